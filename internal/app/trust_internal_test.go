package app

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEditorTrustCoversTheWorkspaceOnly: the editor's trust (VS Code's
// Workspace Trust) lets language servers of folders in the workspace run
// in their full form, never a folder outside it, not even through a link
// the repository commits; without it nothing is trusted.
func TestEditorTrustCoversTheWorkspaceOnly(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	sub := filepath.Join(root, "svc")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "vendored")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{}).Open(Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, f := range []string{root, sub, link, outside} {
		if e.langServerTrusted(f) {
			t.Errorf("%s trusted before the editor said so", f)
		}
	}
	e.SetEditorTrust(EditorTrusted)
	for f, want := range map[string]bool{root: true, sub: true, link: false, outside: false} {
		if got := e.langServerTrusted(f); got != want {
			t.Errorf("with the editor's trust, %s trusted = %v, want %v", f, got, want)
		}
	}
	if e.Trusted(sub) {
		t.Error("the editor's trust reached agentls's own trust (it would let .agentls.json loosen permissions)")
	}
}
