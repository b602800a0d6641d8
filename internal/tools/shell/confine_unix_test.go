//go:build unix

package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// confinedRun runs cmd in a fresh workspace next to an "outside" folder
// and a throwaway home, and returns the result with the folders.
func confinedRun(t *testing.T, cmd string, readOnly bool) (Result, string, string) {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, out, home := filepath.Join(base, "ws"), filepath.Join(base, "outside"), filepath.Join(base, "home")
	for _, d := range []string{ws, out, filepath.Join(home, "keep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(ws, "a.txt"), filepath.Join(out, "secret.txt"), filepath.Join(home, "keep", "x"), filepath.Join(home, ".bashrc")} {
		if err := os.WriteFile(f, []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(ws, "linkout")); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "OUT=" + out}
	res, err := Run(context.Background(), cmd, Options{Dir: ws, Roots: []string{ws}, Env: env, ReadOnly: readOnly})
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	return res, out, home
}

// TestRunConfinesWrites: in every run, what a program is seen to write or
// delete, and what a redirection opens for writing, must be inside the
// roots, whatever the words expand to at run time; catastrophic deletions
// are refused even inside them.
func TestRunConfinesWrites(t *testing.T) {
	for _, cmd := range []string{
		"echo x > $OUT/new.txt", "echo x >> linkout/secret.txt", "cp a.txt $OUT/", "cp a.txt linkout/copy.txt",
		"d=$OUT; touch $d/t", "tee $OUT/t < a.txt", "mv a.txt $OUT/", "rm linkout/secret.txt", "rm -rf $OUT",
		"sort -o $OUT/s a.txt", "x=linkout; echo x > $x/y", "dd if=a.txt of=$OUT/dd", "mkdir $OUT/dir", "ln -s a.txt $OUT/l",
		"find $OUT -delete", "sh -c 'echo x > $OUT/sh'", "bash -c 'rm -f \"$OUT\"/secret.txt'",
	} {
		res, out, _ := confinedRun(t, cmd, false)
		entries, _ := os.ReadDir(out)
		if len(entries) != 1 || entries[0].Name() != "secret.txt" {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("%q changed the outside folder: %v (stderr %q)", cmd, names, res.Stderr)
		}
		if !strings.Contains(res.Stderr, "agentls: blocked") {
			t.Errorf("%q: stderr %q does not say it was blocked", cmd, res.Stderr)
		}
	}
	for _, cmd := range []string{`h=$HOME; rm -rf "$h"/*`, `cd ~ && rm -rf *`, `rm -rf ~/.bashrc`, `x=~; find $x -mindepth 1 -delete`} {
		res, _, home := confinedRun(t, cmd, false)
		for _, f := range []string{".bashrc", "keep/x"} {
			if _, err := os.Stat(filepath.Join(home, f)); err != nil {
				t.Errorf("%q deleted %s (stderr %q)", cmd, f, res.Stderr)
			}
		}
	}
	// Inside the workspace, writing and deleting work as usual.
	if res, _, _ := confinedRun(t, "echo x > b.txt && cp b.txt c.txt && rm b.txt && cat c.txt", false); res.Stdout != "x\n" || res.ExitCode != 0 {
		t.Errorf("in-workspace writes: %+v", res)
	}
}

// TestRunReadOnlyEnforced: a command run as read-only is judged again per
// program with its real words: a write, a non-read-only program or a read
// outside fails instead of running.
func TestRunReadOnlyEnforced(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"cat a.txt", ""},
		{"ls; cat a.txt | wc -l", ""},
		{"cat $OUT/secret.txt", "outside the workspace"},
		{"cat linkout/secret.txt", "outside the workspace"},
		{"for f in $OUT/*; do cat $f; done", "outside the workspace"},
		{"echo x > b.txt", "may not write"},
		{"cat < $OUT/secret.txt", "may not read"},
		{"f=a.txt; touch $f", "read-only"},
		{"sort -o b.txt a.txt", "read-only"},
	} {
		res, _, _ := confinedRun(t, tc.cmd, true)
		if tc.want == "" {
			if res.ExitCode != 0 || res.Stderr != "" {
				t.Errorf("read-only %q: %+v", tc.cmd, res)
			}
			continue
		}
		if !strings.Contains(res.Stderr, tc.want) || strings.Contains(res.Stdout, "data") {
			t.Errorf("read-only %q: stdout %q stderr %q, want %q", tc.cmd, res.Stdout, res.Stderr, tc.want)
		}
	}
}

// TestRunGitConfigNeutralised: read-only git runs with the repository's
// program-naming settings switched off, so a core.fsmonitor a hostile
// repository set never runs; the judge also refuses to call it read-only.
func TestRunGitConfigNeutralised(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: install it (apt-get install git)")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	marker := filepath.Join(dir, "fsmonitor-ran")
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", dir, "config", "core.fsmonitor", "touch "+marker+"; false").CombinedOutput(); err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	v, err := JudgeWith("git status", JudgeOptions{Dir: dir, Roots: []string{dir}, Env: os.Environ()})
	if err != nil || v.ReadOnly || !strings.Contains(v.NotReadOnly, "core.fsmonitor") {
		t.Errorf("git status with a repository fsmonitor: read-only %v (%s) %v", v.ReadOnly, v.NotReadOnly, err)
	}
	// Run as read-only anyway (as if the judge had been fooled): the guard
	// refuses it; run as asked-and-allowed, git's own fsmonitor setting is
	// the person's choice, but with the environment override it does not
	// run when judged read-only.
	res, err := Run(context.Background(), "git status", Options{Dir: dir, Roots: []string{dir}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("fsmonitor ran in a read-only run: %+v", res)
	}
	env := gitReadOnlyEnv()
	cmd := exec.Command("git", "status")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git status with the read-only environment: %v %s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("fsmonitor ran despite GIT_CONFIG_* overrides %q", env)
	}
}

func TestGitConfigRisk(t *testing.T) {
	for _, tc := range []struct {
		entries string // git config --list -z, unscoped
		risky   string
	}{
		{"core.repositoryformatversion\n0\x00core.bare\nfalse\x00remote.origin.url\nx\x00", ""},
		{"core.fsmonitor\n./hook.sh\x00", "core.fsmonitor"},
		{"core.fsmonitor\nfalse\x00", ""},
		{"core.pager\nsh\x00", "core.pager"},
		{"diff.x.textconv\nsh\x00", "diff.x.textconv"},
		{"diff.a]b.command\nsh\x00", "diff.a]b.command"},
		{"diff.external\nsh\x00", "diff.external"},
		{"filter.lfs.clean\nsh\x00", "filter.lfs.clean"},
		{"gpg.program\nsh\x00", "gpg.program"},
		{"core.sshcommand\nsh\x00", "core.sshcommand"},
		{"core.worktree\n/\x00", "core.worktree"},
		{"submodule.x.update\n!sh\x00", "submodule.x.update"},
		{"submodule.x.update\ncheckout\x00", ""},
		{"core.bare\x00", ""}, // a key without a value
	} {
		got := gitConfigRisk([]byte(tc.entries), false)
		if (tc.risky == "") != (got == "") || (tc.risky != "" && !strings.Contains(got, tc.risky)) {
			t.Errorf("gitConfigRisk(%q) = %q, want %q", tc.entries, got, tc.risky)
		}
	}
	scoped := "local\x00core.bare\nfalse\x00command\x00core.pager\ncat\x00local\x00diff.external\nsh\x00"
	if got := gitConfigRisk([]byte(scoped), true); !strings.Contains(got, "diff.external") {
		t.Errorf("scoped: %q", got)
	}
	if got := gitConfigRisk([]byte("command\x00core.pager\ncat\x00"), true); got != "" {
		t.Errorf("agentls's own command-line settings counted: %q", got)
	}
}
