package shell

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// fixture is a machine in miniature for judging: a workspace with files
// and a clean git repository, a home folder outside it, and a PATH of
// real (empty) executables outside both, so programs resolve as they
// would on a real system.
type fixture struct {
	ws, home, bin string
	opts          JudgeOptions
}

// fixtureProgs are the programs on the fixture's PATH.
var fixtureProgs = []string{
	"ls", "cat", "head", "tail", "wc", "stat", "file", "du", "df", "nl", "cut", "paste", "join", "comm",
	"fold", "tr", "sort", "uniq", "diff", "cmp", "md5sum", "sha256sum", "grep", "egrep", "fgrep", "rg",
	"tree", "realpath", "readlink", "basename", "dirname", "date", "uname", "id", "whoami", "nproc",
	"uptime", "hostname", "seq", "expr", "sleep", "which", "whereis", "locale", "od", "strings",
	"column", "jq", "sed", "ps", "tac", "rev", "find", "git", "go", "gofmt", "make", "npm", "npx", "pnpm",
	"yarn", "cargo", "python", "python3", "node", "pytest", "rm", "cp", "mv", "ln", "chmod", "chown",
	"mkdir", "touch", "tee", "dd", "tar", "unzip", "rsync", "install", "xargs", "env", "printenv",
	"awk", "perl", "ruby", "bash", "sh", "zsh", "curl", "wget", "ssh", "scp", "sudo", "docker", "kubectl",
	"kill", "pkill", "killall", "truncate", "shred", "rmdir", "unlink", "sysctl", "man", "brew", "pip",
	"pip3", "apt-get", "open", "nice", "timeout", "time", "nohup", "stdbuf", "ssh-keygen", "lsof", "patch",
	"tsc", "eslint", "prettier", "black", "ruff", "mypy", "jest", "gradle",
}

var (
	fixtureOnce sync.Once
	fixtureVal  *fixture
	fixtureErr  error
)

// newFixture returns the shared fixture (built once per test binary; it
// is only read).
func newFixture(t testing.TB) *fixture {
	t.Helper()
	fixtureOnce.Do(func() { fixtureVal, fixtureErr = buildFixture() })
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureVal
}

func buildFixture() (*fixture, error) {
	base, err := os.MkdirTemp("", "agentls-judge-")
	if err != nil {
		return nil, err
	}
	base, _ = filepath.EvalSymlinks(base)
	f := &fixture{ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), bin: filepath.Join(base, "sys", "bin")}
	files := map[string]string{
		"ws/main.go": "package main\n", "ws/README.md": "# r\n", "ws/go.mod": "module x\n",
		"ws/src/a.go": "package src\n", "ws/src/b_test.go": "package src\n", "ws/a.txt": "a\n", "ws/b.txt": "b\n",
		"ws/notes.txt": "n\n", "ws/log.txt": "l\n", "ws/data.txt": "d\n", "ws/names.txt": "x\n", "ws/in.txt": "i\n",
		"ws/package.json": "{}\n", "ws/Makefile": "test:\n", "ws/scripts/gen.py": "print(1)\n", "ws/build.sh": "echo\n",
		"ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.git/config": "[core]\n\tbare = false\n",
		"ws/.git/objects/.keep": "", "ws/.git/refs/.keep": "", "ws/docs/guide.md": "g\n",
		"home/.ssh/id_rsa": "secret\n", "home/.bashrc": "\n", "home/project/x": "\n",
		"outside/secret.txt": "s\n",
	}
	for name, text := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(f.bin, 0o755); err != nil {
		return nil, err
	}
	for _, p := range fixtureProgs {
		if err := os.WriteFile(filepath.Join(f.bin, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			return nil, err
		}
	}
	// A symbolic link inside the workspace that leads out of it.
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(f.ws, "linkout")); err != nil {
		return nil, err
	}
	f.opts = JudgeOptions{Dir: f.ws, Home: f.home, Roots: []string{f.ws},
		Env: []string{"PATH=" + f.bin, "HOME=" + f.home, "LANG=C"}}
	return f, nil
}

// judge judges cmd in the fixture's workspace.
func (f *fixture) judge(t testing.TB, cmd string) Verdict {
	t.Helper()
	v, err := JudgeWith(cmd, f.opts)
	if err != nil {
		t.Fatalf("Judge(%q): %v", cmd, err)
	}
	return v
}

// unasked reports whether a verdict lets the command run without asking in
// smart mode: read-only, and every file it reads inside the workspace.
func (f *fixture) unasked(v Verdict) bool {
	if !v.ReadOnly || v.Blocked != "" {
		return false
	}
	roots := []string{f.ws}
	for _, p := range v.Reads {
		if !insideFor(roots, f.ws, p) {
			return false
		}
	}
	return true
}

func insideFor(roots []string, dir, p string) bool {
	c := &checker{roots: roots, dir: dir}
	return c.insidePath(p)
}
