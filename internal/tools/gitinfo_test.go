package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/sandbox"
)

// TestGitHead: the branch (or the commit) is read from HEAD in the
// folder's .git, or in the git directory a .git file names inside the
// folder; nothing that leads out is read.
func TestGitHead(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"HEAD": "ref: refs/heads/secret\n", "wt/HEAD": "ref: refs/heads/secret\n"})
	const commit = "0123456789abcdef0123456789abcdef01234567"
	cases := []struct {
		name         string
		files        map[string]string
		links        map[string]string // name → target (relative to the root when not absolute)
		branch, head string
		err          error  // errors.Is
		errText      string // else a substring
	}{
		{name: "a branch", files: map[string]string{".git/HEAD": "ref: refs/heads/feature/x\n"}, branch: "feature/x"},
		{name: "detached", files: map[string]string{".git/HEAD": commit + "\n"}, head: "0123456789ab"},
		{name: "a worktree's gitdir inside", files: map[string]string{".git": "gitdir: meta/wt\n", "meta/wt/HEAD": "ref: refs/heads/main\n"}, branch: "main"},
		{name: "an absolute gitdir inside", files: map[string]string{"meta/wt/HEAD": "ref: refs/heads/dev\n"}, links: nil, branch: "dev"},
		{name: "a gitdir outside", files: map[string]string{".git": "gitdir: " + filepath.Join(outside, "wt") + "\n"}, err: ErrGitOutside},
		{name: "a relative gitdir leading out", files: map[string]string{".git": "gitdir: ../../" + filepath.Base(outside) + "/wt\n"}, err: ErrGitOutside},
		{name: ".git a link out", links: map[string]string{".git": outside}, err: ErrGitOutside},
		{name: "HEAD a link out", files: map[string]string{".git/config": ""}, links: map[string]string{".git/HEAD": filepath.Join(outside, "HEAD")}, err: ErrGitOutside},
		{name: "no repository", files: map[string]string{"main.go": ""}, err: fs.ErrNotExist},
		{name: "a reftable placeholder", files: map[string]string{".git/HEAD": "ref: refs/heads/.invalid\n"}, errText: "no branch"},
		{name: "a branch name with a control character", files: map[string]string{".git/HEAD": "ref: refs/heads/a\x1bb\n"}, errText: "no branch"},
		{name: "garbage", files: map[string]string{".git/HEAD": "hello\n"}, errText: "neither"},
		{name: "a .git file naming nothing", files: map[string]string{".git": "hello\n"}, errText: "names no git directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, root, c.files)
			if c.name == "an absolute gitdir inside" {
				writeFiles(t, root, map[string]string{".git": "gitdir: " + filepath.Join(root, "meta/wt") + "\n"})
			}
			for name, target := range c.links {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
			}
			branch, head, err := GitHead(root)
			switch {
			case c.err != nil || c.errText != "":
				if err == nil || c.err != nil && !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.errText) {
					t.Errorf("GitHead = %q %q %v, want an error %v %q", branch, head, err, c.err, c.errText)
				}
				if strings.Contains(branch, "secret") {
					t.Errorf("read outside the folder: %q", branch)
				}
			case err != nil || branch != c.branch || head != c.head:
				t.Errorf("GitHead = %q %q %v, want %q %q", branch, head, err, c.branch, c.head)
			}
		})
	}
}

// gitRepo makes a repository in root with files committed, git run with
// no configuration of the person's.
func gitRepo(t *testing.T, root string, files map[string]string) {
	t.Helper()
	writeFiles(t, root, files)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestGitStatus: git status runs, unconfined, only in a trusted folder,
// and never where the repository's configuration names a program git
// would run (which must not run) or its git files lie outside; its lines
// are cut to max.
func TestGitStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		trusted bool
		config  string            // appended to .git/config
		files   map[string]string // written after the commit
		lines   []string
		total   int
		errText string
	}{
		{name: "clean", trusted: true},
		{name: "changes, cut to two lines", trusted: true,
			files: map[string]string{"a.txt": "changed", "b.txt": "new", "c.txt": "new", "d.txt": "new"},
			lines: []string{" M a.txt", "?? b.txt"}, total: 4},
		{name: "untrusted and unconfined", files: map[string]string{"a.txt": "changed"}, errText: "not trusted"},
		{name: "an fsmonitor program", trusted: true, config: "[core]\n\tfsmonitor = ./evil.sh\n", files: map[string]string{"a.txt": "changed"}, errText: "core.fsmonitor"},
		{name: "a clean filter", trusted: true, config: "[filter \"x\"]\n\tclean = ./evil.sh\n",
			files: map[string]string{".gitattributes": "* filter=x\n", "a.txt": "changed"}, errText: "filter.x.clean"},
		{name: "an include", trusted: true, config: "[include]\n\tpath = ../other.cfg\n", files: map[string]string{"a.txt": "changed"}, errText: "include.path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, _, root := newShellTools(t)
			env.Confine(func() *sandbox.Sandbox { return nil }, nil, func(string) bool { return c.trusted })
			writeFiles(t, root, map[string]string{"evil.sh": "#!/bin/sh\ntouch \"$(dirname \"$0\")/pwned\"\n"})
			if err := os.Chmod(filepath.Join(root, "evil.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			gitRepo(t, root, map[string]string{"a.txt": "first"})
			if c.config != "" {
				f, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(c.config); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			writeFiles(t, root, c.files)
			lines, total, err := env.GitStatus(context.Background(), root, 2)
			if c.errText != "" {
				if err == nil || !strings.Contains(err.Error(), c.errText) {
					t.Errorf("GitStatus = %q %d %v, want an error with %q", lines, total, err, c.errText)
				}
			} else if err != nil || total != c.total || !slices.Equal(lines, c.lines) {
				t.Errorf("GitStatus = %q %d %v, want %q of %d", lines, total, err, c.lines, c.total)
			}
			if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
				t.Error("a program the repository names ran")
			}
		})
	}
}
