package app_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// updateGolden, set to 1 in the environment, rewrites the golden files
// instead of comparing with them:
//
//	AGENTLS_UPDATE_GOLDEN=1 go test ./internal/app -run TestEnvironmentInTheFirstPrompt
const updateGolden = "AGENTLS_UPDATE_GOLDEN"

// plantedValue is in the environment of the tests; no prompt may hold it.
const plantedValue = "PLANTED-VALUE-7c1e"

// fixtureDate is the day the golden prompt is dated.
var fixtureDate = time.Date(2026, time.March, 14, 9, 30, 0, 0, time.UTC)

// commitFixture writes the txtar's files into root and commits them to a
// new repository on branch main, git run with none of the person's
// configuration.
func commitFixture(t *testing.T, root, archive string) {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "fixture")
}

// git runs git in dir with none of the person's configuration.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// fakeBin makes a folder for PATH holding git (a link to the real one)
// and a gopls that leaves a mark if it is ever run.
func fakeBin(t *testing.T) (bin, ranMark string) {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is not on PATH: %v", err)
	}
	bin, err = filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ranMark = filepath.Join(bin, "gopls-ran")
	if err := os.Symlink(realGit, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "gopls"), []byte("#!/bin/sh\ntouch '"+ranMark+"'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, ranMark
}

// firstSystemPrompt runs one turn in a workspace over root with the
// options given and returns the system prompt of the first request.
func firstSystemPrompt(t *testing.T, o app.Options, root string) string {
	t.Helper()
	return firstRequest(t, o, root).System
}

// firstRequest runs one turn in a workspace over root with the options
// given and returns the first request to the model.
func firstRequest(t *testing.T, o app.Options, root string) agent.Request {
	t.Helper()
	prov := &script{}
	o.Config.Model = "test:script"
	o.DataDir, o.StateDir = t.TempDir(), t.TempDir()
	o.Getenv = func(string) string { return "" }
	o.NewProvider = func(string, string) (agent.Provider, error) { return prov, nil }
	if o.Now == nil {
		o.Now = func() time.Time { return fixtureDate }
	}
	env, err := app.New(o).Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	turnEvents(t, env, &askLog{answer: permission.AnswerDeny}, "hello")
	if len(prov.reqs) == 0 {
		t.Fatal("the model was never asked")
	}
	return prov.reqs[0]
}

// TestEnvironmentInTheFirstPrompt: the first request's system prompt in a
// fixture workspace holds the environment block, between agentls's own
// prompt and the project's instructions — compared whole with
// testdata/envprompt/system.golden, the workspace folder and the
// platform normalised. No language server is started for it.
func TestEnvironmentInTheFirstPrompt(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	commitFixture(t, root, filepath.Join("testdata", "envprompt", "workspace.txtar"))
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() { println() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("todo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, goplsRan := fakeBin(t)
	t.Setenv("PATH", bin)
	t.Setenv("AGENTLS_TEST_TOKEN", plantedValue)

	sys := firstSystemPrompt(t, app.Options{
		Config: config.Config{
			TrustedWorkspaces: []string{root},
			// Off, so that the block does not depend on this machine's kernel
			// (TestEnvironmentSandboxLine covers the sandbox's line).
			Sandbox: config.Sandbox{Mode: "off"},
			MCP:     config.MCPServers{"tickets": {Command: []string{"/bin/sh", "-c", "exit 3"}, From: "test config"}},
		},
		ModeFlag: "smart",
	}, root)

	got := strings.ReplaceAll(sys, root, "$ROOT")
	got = strings.ReplaceAll(got, runtime.GOOS+"/"+runtime.GOARCH, "$GOOS/$GOARCH")
	golden := filepath.Join("testdata", "envprompt", "system.golden")
	if os.Getenv(updateGolden) == "1" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (write it with %s=1)", err, updateGolden)
	}
	if got != string(want) {
		t.Errorf("the first system prompt differs from %s (rewrite it with %s=1 when the change is meant):\n--- got\n%s\n--- want\n%s", golden, updateGolden, got, want)
	}
	if _, err := os.Stat(goplsRan); err == nil {
		t.Error("gopls was started to describe the environment")
	}
	if i, j := strings.Index(sys, "# Environment"), strings.Index(sys, "# Project instructions"); i < len(agent.DefaultSystemPrompt) || j < i {
		t.Errorf("the environment (at %d) is not between the system prompt and the instructions (at %d)", i, j)
	}
	home, _ := os.UserHomeDir()
	for _, secret := range []string{plantedValue, home} {
		if secret != "" && strings.Contains(sys, secret) {
			t.Errorf("the prompt holds %q", secret)
		}
	}
}

// TestEnvironmentLines: what the block says follows the workspace, its
// trust, its repository and the session's settings; a repository that
// names a program, or keeps its git files elsewhere, is described without
// running or reading anything of it.
func TestEnvironmentLines(t *testing.T) {
	evil := "#!/bin/sh\ntouch \"$(dirname \"$0\")/pwned\"\n"
	appendConfig := func(t *testing.T, root, text string) {
		f, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	repo := func(t *testing.T, root string) {
		if err := os.WriteFile(filepath.Join(root, "evil.sh"), []byte(evil), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".gitattributes"), []byte("* filter=x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, root, "init", "-q", "-b", "work")
		git(t, root, "add", "-A")
		git(t, root, "commit", "-q", "-m", "x")
		if err := os.WriteFile(filepath.Join(root, "evil.sh"), []byte(evil+"# changed\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		trusted bool
		mode    string
		tools   bool // a test's tool set instead of the built-in one
		setup   func(t *testing.T, root string)
		want    []string
		notWant []string
	}{
		{
			name: "an untrusted folder, programs unconfined: no status", mode: "smart",
			setup: repo,
			want:  []string{"(not trusted: its .agentls.json may only tighten", "branch work; status not shown (not run: the folder is not trusted and programs run unconfined here)"},
		},
		{
			name: "a trusted folder whose repository names a filter program", trusted: true, mode: "smart",
			setup: func(t *testing.T, root string) {
				repo(t, root)
				appendConfig(t, root, "[filter \"x\"]\n\tclean = ./evil.sh\n")
			},
			want: []string{"$ROOT (trusted)", "branch work; status not shown (not run: the repository's configuration sets filter.x.clean"},
		},
		{
			name: "a trusted folder, clean but for one change", trusted: true, mode: "approve",
			setup:   repo,
			want:    []string{"branch work, 1 changed or untracked (git status --porcelain):\n   M evil.sh\n-", "Permission mode: approve — the person is asked before every call"},
			notWant: []string{"… "},
		},
		{
			name: "a linked worktree: the git files are elsewhere", trusted: true, mode: "auto",
			setup: func(t *testing.T, root string) {
				main := t.TempDir()
				git(t, main, "init", "-q", "-b", "main")
				git(t, main, "commit", "-q", "--allow-empty", "-m", "x")
				if err := os.Remove(root); err != nil {
					t.Fatal(err)
				}
				git(t, main, "worktree", "add", "-q", "-b", "side", root)
			},
			want:    []string{"the repository's git files are outside the workspace folder; agentls read none of them.", "Permission mode: auto"},
			notWant: []string{"branch side"},
		},
		{
			name: "no repository, a test's tool set", mode: "chat", tools: true,
			setup:   func(t *testing.T, root string) {},
			want:    []string{"Git (first folder, at the session's start): no .git in the folder.", "Permission mode: chat — no tool runs"},
			notWant: []string{"- Language servers", "- MCP servers"},
		},
		{
			name: "no source files", trusted: true, mode: "smart",
			setup: func(t *testing.T, root string) {
				if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("# x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"Language servers (the lsp_* tools): no source files found", "MCP servers: none configured."},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			c.setup(t, root)
			o := app.Options{Config: config.Config{Sandbox: config.Sandbox{Mode: "off"}}, ModeFlag: c.mode}
			if c.trusted {
				o.Config.TrustedWorkspaces = []string{root}
			}
			if c.tools {
				o.Tools = func(*tools.Workspace) []tools.Tool { return nil }
			}
			sys := strings.ReplaceAll(firstSystemPrompt(t, o, root), root, "$ROOT")
			for _, w := range c.want {
				if !strings.Contains(sys, w) {
					t.Errorf("the prompt lacks %q:\n%s", w, sys)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(sys, w) {
					t.Errorf("the prompt holds %q:\n%s", w, sys)
				}
			}
			if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
				t.Error("a program the repository names ran")
			}
		})
	}
}

// TestLSPToolsNameWhereTheyWork: the lsp_* tools' descriptions in the
// first request end with the workspace's languages they work for, from
// the coverage the environment block reads: Go and gopls in a Go
// workspace with gopls on PATH (and no Python, which it does not hold);
// that they work for none when no server is installed. Nothing starts to
// find it out.
func TestLSPToolsNameWhereTheyWork(t *testing.T) {
	cases := []struct {
		name    string
		gopls   bool
		want    []string
		notWant []string
		env     string
	}{
		{
			name: "gopls on PATH", gopls: true,
			want:    []string{"Works here for: Go (gopls). Other files: no language server."},
			notWant: []string{"Python", "pyright", "Does not work here"},
			env:     "- Language servers (the lsp_* tools): go: gopls. They work for all of these.",
		},
		{
			name:    "no language server installed",
			want:    []string{"Does not work here: no language server answers for this workspace's languages (Go). Use grep, glob and view instead."},
			notWant: []string{"Works here for", "(gopls)"},
			env:     "They work for none of these languages here",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for name, text := range map[string]string{"go.mod": "module example.com/x\n", "main.go": "package main\n\nfunc main() {}\n", "README.md": "# x\n"} {
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			bin, goplsRan := fakeBin(t)
			if !c.gopls {
				if err := os.Remove(filepath.Join(bin, "gopls")); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			req := firstRequest(t, app.Options{
				Config:   config.Config{TrustedWorkspaces: []string{root}, Sandbox: config.Sandbox{Mode: "off"}},
				ModeFlag: "smart",
			}, root)
			lsp := 0
			for _, d := range req.Tools {
				if !strings.HasPrefix(d.Name, "lsp_") {
					if strings.Contains(d.Description, "Works here for") || strings.Contains(d.Description, "Does not work here") {
						t.Errorf("%s, not an lsp_* tool, names where it works:\n%s", d.Name, d.Description)
					}
					continue
				}
				lsp++
				for _, w := range c.want {
					if !strings.HasSuffix(d.Description, "\n\n"+w) {
						t.Errorf("%s's description does not end with %q:\n%s", d.Name, w, d.Description)
					}
				}
				last := d.Description[strings.LastIndex(d.Description, "\n\n")+2:]
				for _, w := range c.notWant {
					if strings.Contains(last, w) {
						t.Errorf("%s's description ends with %q, which holds %q", d.Name, last, w)
					}
				}
			}
			if lsp != 8 {
				t.Errorf("%d lsp_* tools offered, want 8", lsp)
			}
			if !strings.Contains(req.System, c.env) {
				t.Errorf("the environment block lacks %q:\n%s", c.env, req.System)
			}
			if _, err := os.Stat(goplsRan); err == nil {
				t.Error("gopls was started to describe the tools")
			}
		})
	}
}
