package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/app"
)

// TestEnvironmentSandboxLine: where programs are confined (Landlock here)
// the block says so, and git status runs in the sandbox even for a folder
// that is not trusted.
func TestEnvironmentSandboxLine(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "x")
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sys := firstSystemPrompt(t, app.Options{ModeFlag: "smart"}, root)
	for _, want := range []string{
		"- Sandbox: programs agentls starts are confined by Landlock: they write only in the workspace",
		"(not trusted:",
		"branch main, 1 changed or untracked (git status --porcelain):\n  ?? b.txt\n",
	} {
		if !strings.Contains(sys, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, sys)
		}
	}
}
