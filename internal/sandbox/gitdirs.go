package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// EnclosingGitDirs are the git folders of the repositories the roots lie
// in when the repository's top is above a root (a workspace opened on a
// package of a larger repository): git run in the workspace reads and
// writes them, so the policy makes them writable. A .git file (a linked
// work tree, a submodule) leads to its git folder and that folder's common
// one. A repository whose top is the home folder (or above it: a
// dotfiles repository) is left out: its objects hold the home's files.
func EnclosingGitDirs(roots []string, home string) []string {
	var out []string
	for _, root := range roots {
		for d := filepath.Dir(filepath.Clean(root)); ; d = filepath.Dir(d) {
			dotgit := filepath.Join(d, ".git")
			if fi, err := os.Lstat(dotgit); err == nil {
				if home == "" || !within(d, filepath.Clean(home)) {
					out = append(out, gitDirsOf(d, dotgit, fi)...)
				}
				break
			}
			if _, err := os.Lstat(filepath.Join(root, ".git")); err == nil || d == filepath.Dir(d) {
				break // the root is a repository's top itself, or none encloses it
			}
		}
	}
	return out
}

// gitDirsOf is the git folder a .git entry leads to, and its common one.
func gitDirsOf(top, dotgit string, fi os.FileInfo) []string {
	if fi.IsDir() {
		return []string{dotgit}
	}
	b, err := os.ReadFile(dotgit)
	if err != nil || len(b) > 4096 {
		return nil
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil
	}
	gitdir := strings.TrimSpace(target)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(top, gitdir)
	}
	out := []string{gitdir}
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil && len(c) < 4096 {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		out = append(out, filepath.Clean(common))
	}
	return out
}
