package client

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The language-server side stands alone: lsp/client and lsp/docsync
// import no front-end (package lsp, cmd), agent or tools package — only
// the wire framing and the overlay's position helpers.
func TestImportRule(t *testing.T) {
	allowed := map[string]map[string]bool{
		".":          {"internal/lsp/framing": true, "internal/lsp/overlay": true, "internal/proc": true},
		"../docsync": {},
	}
	for dir, ok := range allowed {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if rest, own := strings.CutPrefix(path, "github.com/agentls/agentls/"); own && !ok[rest] {
					t.Errorf("%s imports %s: the language-server side must not depend on the editor-facing server, the agent or the tools", f, path)
				}
			}
		}
	}
}
