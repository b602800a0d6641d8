//go:build unix

package proc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGuard(t *testing.T) {
	repo, outside := t.TempDir(), t.TempDir()
	for _, dir := range []string{filepath.Join(repo, "bin"), filepath.Join(outside, "bin")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link outside that leads into the repository counts as inside.
	if err := os.Symlink(filepath.Join(repo, "bin"), filepath.Join(outside, "linked")); err != nil {
		t.Fatal(err)
	}
	g := NewGuard([]string{repo})
	path := strings.Join([]string{"", ".", "bin", filepath.Join(repo, "bin"), filepath.Join(outside, "linked"), filepath.Join(outside, "bin")}, string(os.PathListSeparator))
	if got, want := g.CleanPath(path), filepath.Join(outside, "bin"); got != want {
		t.Errorf("CleanPath = %q, want only %q", got, want)
	}
	if got, want := g.Program("tool", filepath.Join(repo, "bin")+string(os.PathListSeparator)+filepath.Join(outside, "bin")), filepath.Join(outside, "bin", "tool"); got != want {
		t.Errorf("Program(tool) = %q, want the one outside, %q", got, want)
	}
	if got := g.Program(filepath.Join(repo, "bin", "tool"), ""); got != "" {
		t.Errorf("Program(a path inside) = %q, want none", got)
	}
	if got := g.Program(filepath.Join(outside, "linked", "tool"), ""); got != "" {
		t.Errorf("Program(a link into the repository) = %q, want none", got)
	}
	if !g.Inside("relative/x") || g.Inside(outside) {
		t.Errorf("Inside: a relative path must count as inside, the outside folder not")
	}
}
