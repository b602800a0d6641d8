package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestEnclosingGitDirs(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"repo/.git", "repo/pkg/sub", "own/.git", "plain/x", "main/.git/worktrees/wt", "wt"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "wt/.git"), []byte("gitdir: ../main/.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "main/.git/worktrees/wt/commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		root string
		want []string
	}{
		{"repo/pkg/sub", []string{"repo/.git"}},
		{"own", nil},     // its own .git is inside the workspace
		{"plain/x", nil}, // no repository
		{"repo", nil},    // the top itself
		{"wt/sub", []string{"main/.git/worktrees/wt", "main/.git"}},
	} {
		if tc.root == "wt/sub" {
			os.MkdirAll(filepath.Join(base, "wt/sub"), 0o755)
		}
		got := EnclosingGitDirs([]string{filepath.Join(base, tc.root)}, "/nonexistent-home")
		var want []string
		for _, w := range tc.want {
			want = append(want, filepath.Join(base, w))
		}
		if !slices.Equal(got, want) {
			t.Errorf("EnclosingGitDirs(%s) = %q, want %q", tc.root, got, want)
		}
	}
	// A repository at the home folder (dotfiles) is never opened up.
	if got := EnclosingGitDirs([]string{filepath.Join(base, "repo/pkg/sub")}, filepath.Join(base, "repo")); got != nil {
		t.Errorf("the home's own repository was opened: %q", got)
	}
}
