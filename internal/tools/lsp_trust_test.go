package tools

// Untrusted means inert, through the lsp_* tools alone (agentls run, no
// editor): a workspace whose node_modules/typescript/lib/tsserver.js
// writes a marker runs the real typescript-language-server on the global
// TypeScript until the folder is trusted; trusted, the repository's own
// TypeScript runs.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/client"
)

// tsMarkerFixture is a fixture over the trust tests' TypeScript project:
// its node_modules/typescript/lib/tsserver.js records in tsserver-ran
// that it ran, then hands over to the global TypeScript.
func tsMarkerFixture(t *testing.T, cfg client.Config) *lspFixture {
	t.Helper()
	requireProgram(t, "typescript-language-server")
	requireProgram(t, "npm")
	f := newLSPFixture(t, nil, cfg)
	const src = "../langserver/client/testdata/tsmarker"
	if err := os.CopyFS(f.root, os.DirFS(src+"/project")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(f.root, "node_modules"), os.DirFS(src+"/modules")); err != nil {
		t.Fatal(err)
	}
	return f
}

// tsWarm waits (at most 60 s) until tsserver has loaded the project and
// reports use.ts's error, and returns the diagnostics.
func tsWarm(f *lspFixture) string {
	f.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out := f.must("lsp_diagnostics", map[string]any{"file_path": "use.ts"})
		if strings.Contains(out, "not assignable to parameter of type 'string'") || time.Now().After(deadline) {
			return out
		}
	}
}

func TestLSPToolsUntrustedTypeScript(t *testing.T) {
	t.Parallel()
	f := tsMarkerFixture(t, client.Config{})
	wantIn(t, tsWarm(f), "not assignable to parameter of type 'string'")
	wantIn(t, f.must("lsp_definition", map[string]any{"file_path": "use.ts", "line": 3, "symbol": "hello"}), "hello.ts:1:17")
	f.must("view", map[string]any{"file_path": "hello.ts"})
	wantIn(t, f.must("edit", map[string]any{"file_path": "hello.ts", "old_string": "name: string", "new_string": "name: number"}), "Edited hello.ts")
	if _, err := os.Stat(filepath.Join(f.root, "tsserver-ran")); err == nil {
		t.Fatal("the workspace's tsserver.js ran while the folder was untrusted")
	}

	trusted := tsMarkerFixture(t, client.Config{Trusted: func(string) bool { return true }})
	wantIn(t, tsWarm(trusted), "not assignable to parameter of type 'string'")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(trusted.root, "tsserver-ran")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the trusted workspace's tsserver.js never ran: the test proves nothing")
		}
	}
}

// A server with no safe form says, through the tool, how to trust the
// folder.
func TestLSPToolsUntrustedServerWithoutSafeForm(t *testing.T) {
	t.Parallel()
	off := false
	f := newLSPFixture(t, map[string]string{"a.zz": "x\n"}, client.Config{AutoLSP: &off,
		Servers: map[string]config.ServerConfig{"zz": {Command: []string{"/bin/sh"}, Filetypes: []string{"zz"}}}})
	res := f.call("lsp_references", map[string]any{"file_path": "a.zz", "line": 1, "column": 1})
	wantIn(t, res.Content, "zz is not started in "+f.root, "agentls trust "+f.root, "lsp.zz.run_untrusted")
	if !res.IsError {
		t.Errorf("not an error: %+v", res)
	}
}
