package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools/confine"
	"github.com/agentls/agentls/internal/tools/shell"
)

// What the model is told of a workspace folder's repository, learnt
// without trusting it: the branch from the files themselves (no git
// runs), the status from git only where the bash tool would run it
// without asking, and more carefully still.

// ErrGitOutside: the repository's git files lie outside the workspace
// folder (a .git file or link leading out, as a linked worktree's or a
// submodule's does), and agentls reads nothing there for this.
var ErrGitOutside = errors.New("the repository's git files are outside the workspace folder")

// gitStatusTimeout bounds GitStatus, the judge's git included.
const gitStatusTimeout = 3 * time.Second

// GitHead is the branch checked out in the repository whose .git is in
// root (a folder, or a file naming one with "gitdir:"), or the commit
// when none is (detached), read from the files themselves: no git runs.
// Nothing outside root is read: a .git, a gitdir or a HEAD that leads out
// is ErrGitOutside; no .git is an fs.ErrNotExist.
func GitHead(root string) (branch, detached string, err error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", "", err
	}
	defer r.Close()
	gitDir := ".git"
	fi, err := r.Stat(gitDir)
	if err != nil {
		return "", "", rootErr(err)
	}
	if !fi.IsDir() {
		b, err := readSmall(r, gitDir)
		if err != nil {
			return "", "", rootErr(err)
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return "", "", errors.New(".git is a file that names no git directory")
		}
		dir = strings.TrimSpace(dir)
		if filepath.IsAbs(dir) {
			rel, err := filepath.Rel(root, dir)
			if err != nil {
				return "", "", ErrGitOutside
			}
			dir = rel
		}
		if !filepath.IsLocal(dir) {
			return "", "", ErrGitOutside
		}
		gitDir = dir
	}
	b, err := readSmall(r, filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", "", rootErr(err)
	}
	return parseHead(strings.TrimSpace(string(b)))
}

// rootErr is an error of reading through an os.Root: one that is not a
// missing file or a refused permission is a link leading out of the root.
func rootErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return err
	}
	return fmt.Errorf("%w (%v)", ErrGitOutside, err)
}

// parseHead reads a HEAD file: a symbolic ref to a branch, or a commit.
func parseHead(head string) (branch, detached string, err error) {
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		name, ok := strings.CutPrefix(ref, "refs/heads/")
		if !ok || !plainRef(name) || name == ".invalid" { // .invalid: a reftable repository's placeholder
			return "", "", errors.New("HEAD names no branch agentls can read")
		}
		return name, "", nil
	}
	if (len(head) == 40 || len(head) == 64) && strings.Trim(head, "0123456789abcdef") == "" {
		return "", head[:12], nil
	}
	return "", "", errors.New("HEAD is neither a branch nor a commit")
}

// plainRef reports whether a branch name is one git could have made and
// short enough to show: printable, no spaces.
func plainRef(name string) bool {
	if name == "" || len(name) > 200 {
		return false
	}
	for _, c := range name {
		if c <= ' ' || c == 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// readSmall reads a file of r of at most 4 KiB.
func readSmall(r *os.Root, name string) ([]byte, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<10+1))
	if err != nil {
		return nil, err
	}
	if len(b) > 4<<10 {
		return nil, fmt.Errorf("%s is larger than 4 KiB", name)
	}
	return b, nil
}

// GitStatus is `git status --porcelain` in dir (a folder of the
// workspace): its first max lines and how many there are in all. It runs
// only where the bash tool would run it without asking — the judge finds
// it read-only, every file it reads inside the workspace, so the
// repository's configuration names no program git would run and its git
// files lie inside — and further only in the sandbox, or, where programs
// run unconfined, in a trusted folder. The judge's git and the status run
// the hardened way (shell.GitEnv), within ctx and at most three seconds.
// The error says why it did not run.
func (e *ShellEnv) GitStatus(ctx context.Context, dir string, max int) (lines []string, total int, err error) {
	ctx, cancel := context.WithTimeout(ctx, gitStatusTimeout)
	defer cancel()
	sb := e.Sandbox()
	root := e.ws.Root(dir)
	if root == "" {
		return nil, 0, fmt.Errorf("%s is outside the workspace", dir)
	}
	if !sb.Confined() && (e.trusted == nil || !e.trusted(root)) {
		return nil, 0, errors.New("not run: the folder is not trusted and programs run unconfined here")
	}
	run := func(dir string, args ...string) ([]byte, error) { return runGit(ctx, sb, dir, args...) }
	const command = "git status --porcelain"
	v, err := shell.JudgeWith(command, shell.JudgeOptions{Dir: dir, Home: e.home, Roots: e.ws.Roots(), Env: sb.Env(""), Git: run})
	if err != nil {
		return nil, 0, err
	}
	if !readOnlyRun(v, confine.Roots(e.ws.Roots()), dir) {
		why := v.NotReadOnly
		if why == "" {
			why = "it would read outside the workspace"
		}
		return nil, 0, errors.New("not run: " + why)
	}
	out, err := run(dir, "status", "--porcelain")
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("git status took longer than %v", gitStatusTimeout)
		}
		return nil, 0, err
	}
	all := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(all) == 1 && all[0] == "" {
		return nil, 0, nil
	}
	for i, l := range all {
		if i == max {
			break
		}
		lines = append(lines, truncate(l, 120))
	}
	return lines, len(all), nil
}

// runGit runs `git ARGS` in dir the way the judge's git runs: in sb (nil:
// unconfined), with the allow-listed environment and shell.GitEnv, within
// ctx.
func runGit(ctx context.Context, sb *sandbox.Sandbox, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(sb.Env(""), shell.GitEnv()...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := sb.Start(cmd); err != nil {
		return nil, err
	}
	if err := cmd.Wait(); err != nil {
		return out.Bytes(), fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), nil
}
