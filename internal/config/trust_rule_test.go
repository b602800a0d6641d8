package config_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/agent/hooks"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/config/trust"
)

// TestOneTrustRule: every workspace-controlled setting follows the same
// rule (package trust): the loosening permissions of .agentls.json, its
// hooks, its lsp key, and the full form of the language servers. A
// parent folder trusts what is below it only when written parent/**.
func TestOneTrustRule(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "src", "repo")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "repo-link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(base, "src")
	ws := config.Config{
		Permissions: config.Permissions{Mode: "auto"},
		LSP:         map[string]config.ServerConfig{"mine": {Command: []string{"mine-ls"}, Filetypes: []string{"zz"}}},
		Hooks:       json.RawMessage(`[{"event":"Stop","command":"echo from the repo"}]`),
	}
	cases := []struct {
		name    string
		entries []string
		want    bool
	}{
		{"exact", []string{root}, true},
		{"exact with a trailing slash", []string{root + "/"}, true},
		{"through a link", []string{link}, true},
		{"parent/**", []string{src + "/**"}, true},
		{"plain parent", []string{src}, false},
		{"a prefix of the name", []string{root[:len(root)-1]}, false},
		{"a sibling's /**", []string{root + "x/**"}, false},
		{"nothing", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := config.Resolve(config.Config{}, config.Config{}, config.Flags{}, map[string]config.Config{root: ws}, c.entries)
			if err != nil {
				t.Fatal(err)
			}
			perms := got.Permissions.Mode == "auto"
			lsp := got.LSP["mine"].Command != nil
			hs, _, err := hooks.Collect([]hooks.Source{{Name: "ws", Root: root, Hooks: ws.Hooks}}, c.entries)
			if err != nil {
				t.Fatal(err)
			}
			full := got.Trusted(root)
			if perms != c.want || lsp != c.want || (len(hs) == 1) != c.want || full != c.want || trust.Trusted(root, c.entries) != c.want {
				t.Errorf("entries %q: permissions %v, lsp key %v, hooks %d, servers' full form %v; want all %v", c.entries, perms, lsp, len(hs), full, c.want)
			}
		})
	}
}
