//go:build unix

package nvim_test

// Which agentls the plugin runs when setup() has no cmd (lua/agentls/
// binary.lua): :AgentInstall's build, mason's bin, then $PATH; and
// :AgentInstall, which builds it with go — from the plugin's own checkout
// of this repository (a real `go build`), or with `go install
// github.com/agentls/agentls/cmd/agentls@version` (a recording fake go:
// the test does not download). Scenario: test/plugin_binary.lua.

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// binaryRun is a plugin run with a PATH of its own: the system's folders
// without agentls (and without go unless withGo), then the test's bin
// folder, which starts empty.
func binaryRun(t *testing.T, withGo bool) *pluginRun {
	t.Helper()
	r := newPluginRun(t, map[string]string{"a.txt": "hello\n"})
	r.env["AGENTLS_E2E_FILE"] = "a.txt"
	r.env["AGENTLS_E2E_MODEL"] = "replay:none.json"
	r.env["AGENTLS_PLUGIN_FIND"] = "1"
	hide := []string{"agentls"}
	if !withGo {
		hide = append(hide, "go")
	} else {
		// The run's HOME is its own: keep go's caches and configuration.
		out, err := exec.Command("go", "env", "GOENV", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
		if err != nil {
			t.Fatalf("go env: %v (the test runs :AgentInstall with go)", err)
		}
		vals := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, k := range []string{"GOENV", "GOCACHE", "GOMODCACHE", "GOPATH"} {
			r.env[k] = vals[i]
		}
		maps.Copy(r.env, buildFlags())
	}
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != "" && !slices.ContainsFunc(hide, func(name string) bool { return isFile(filepath.Join(d, name)) }) {
			dirs = append(dirs, d)
		}
	}
	if err := os.MkdirAll(r.path("bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.env["PATH"] = strings.Join(append(dirs, r.path("bin")), string(os.PathListSeparator))
	return r
}

// buildFlags is the environment that makes go build agentls with the flags
// this test binary was built with (-trimpath, -race, CGO_ENABLED), so the
// build :AgentInstall runs links the packages already compiled for the
// test instead of compiling every one again (minutes, per Neovim version).
func buildFlags() map[string]string {
	env := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return env
	}
	flags := strings.Fields(os.Getenv("GOFLAGS"))
	for _, s := range info.Settings {
		switch s.Key {
		case "-trimpath", "-race":
			if s.Value == "true" && !slices.Contains(flags, s.Key) {
				flags = append(flags, s.Key)
			}
		case "CGO_ENABLED":
			env["CGO_ENABLED"] = s.Value
		}
	}
	if len(flags) > 0 {
		env["GOFLAGS"] = strings.Join(flags, " ")
	}
	return env
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// link puts the real agentls at elem (under the run's folder).
func (r *pluginRun) link(elem ...string) string {
	p := r.path(elem...)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(binary(r.t), p); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// The order: $PATH's agentls, then mason's over it, then :AgentInstall's
// over both; cmd in setup() over all three. Each time the client started
// runs the one found, and :checkhealth names it and its version.
func TestNvimPluginFindsBinary(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		cases := []struct {
			name   string
			places [][]string // agentls links to make, under the run's folder
			cmd    bool       // setup() gets cmd = {AGENTLS_E2E_BIN, …}
			want   []string   // the one that runs
			from   string     // what find() says
		}{
			{"PATH", [][]string{{"bin", "agentls"}}, false, []string{"bin", "agentls"}, "PATH"},
			{"mason", [][]string{{"bin", "agentls"}, {"data", "nvim", "mason", "bin", "agentls"}}, false,
				[]string{"data", "nvim", "mason", "bin", "agentls"}, "mason"},
			{"AgentInstall", [][]string{{"bin", "agentls"}, {"data", "nvim", "mason", "bin", "agentls"}, {"data", "nvim", "agentls", "bin", "agentls"}}, false,
				[]string{"data", "nvim", "agentls", "bin", "agentls"}, ":AgentInstall"},
			{"cmd", [][]string{{"bin", "agentls"}, {"data", "nvim", "mason", "bin", "agentls"}, {"data", "nvim", "agentls", "bin", "agentls"}}, true,
				nil, ":AgentInstall"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := binaryRun(t, false)
				for _, p := range c.places {
					r.link(p...)
				}
				want := binary(t)
				if c.want != nil {
					want = r.path(c.want...)
				}
				if c.cmd {
					delete(r.env, "AGENTLS_PLUGIN_FIND")
				}
				rec := r.nvim("plugin_binary.lua")
				defer r.done()
				if c.want != nil && (rec.FoundBefore.Path != want || rec.FoundBefore.From != c.from) {
					r.errorf("find() = %q from %q, want %q from %q", rec.FoundBefore.Path, rec.FoundBefore.From, want, c.from)
				}
				if len(rec.ClientCmd) != 3 || rec.ClientCmd[0] != want || rec.ClientCmd[1] != "serve" {
					r.errorf("the client runs %q, want [%s serve --stdio]", rec.ClientCmd, want)
				}
				health := strings.Join(rec.Health, "\n")
				if !strings.Contains(health, "OK: "+want+" (") || !strings.Contains(health, "): agentls ") {
					r.errorf(":checkhealth agentls does not name %s and its version:\n%s", want, health)
				}
				if !strings.Contains(health, "OK: sandbox: on (landlock; network: ") {
					r.errorf(":checkhealth agentls does not say the sandbox is on:\n%s", health)
				}
			})
		}
	})
}

// No agentls anywhere and no go: opening a file says how to get one, and
// :AgentInstall says it needs go; :checkhealth reports the places.
func TestNvimPluginNoBinaryNoGo(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := binaryRun(t, false)
		r.env["AGENTLS_PLUGIN_INSTALL"] = "-"
		rec := r.nvim("plugin_binary.lua")
		defer r.done()
		if rec.FoundBefore.Path != "" || rec.ClientCmd != nil {
			r.errorf("found %q, client %q; want none", rec.FoundBefore.Path, rec.ClientCmd)
		}
		looked := strings.Join(rec.FoundBefore.Looked, ", ")
		if looked != r.path("data", "nvim", "agentls", "bin", "agentls")+", "+r.path("data", "nvim", "mason", "bin", "agentls")+", $PATH" {
			r.errorf("looked in %q", looked)
		}
		want := []string{
			"agentls: no agentls binary (looked in " + looked + "): run :AgentInstall to build it with go, or see :help agentls-install",
			"agentls: :AgentInstall builds agentls with go, which is not on $PATH: install Go (https://go.dev/dl), or get agentls another way (:help agentls-install)",
		}
		if !slices.Equal(rec.Messages, want) {
			r.errorf("messages:\n  %s\nwant:\n  %s", strings.Join(rec.Messages, "\n  "), strings.Join(want, "\n  "))
		}
		health := strings.Join(rec.Health, "\n")
		if !strings.Contains(health, "ERROR") || !strings.Contains(health, "no agentls binary; looked in "+looked) || !strings.Contains(health, ":AgentInstall") {
			r.errorf(":checkhealth agentls does not report the missing binary:\n%s", health)
		}
	})
}

// :AgentInstall in a checkout of this repository builds ./cmd/agentls
// with the real go into stdpath('data')/agentls/bin; the buffer opened
// before gets its client, running that binary.
func TestNvimPluginInstallFromCheckout(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := binaryRun(t, true)
		r.env["AGENTLS_PLUGIN_INSTALL"] = "-"
		r.timeout = 5 * time.Minute
		rec := r.nvim("plugin_binary.lua")
		defer r.done()
		repo, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Checkout != repo {
			r.errorf("checkout() = %q, want %q", rec.Checkout, repo)
		}
		dest := r.path("data", "nvim", "agentls", "bin", "agentls")
		if rec.FoundBefore.Path != "" || rec.FoundAfter.Path != dest || rec.FoundAfter.From != ":AgentInstall" {
			r.errorf("find(): before %+v, after %+v; want nothing, then %s", rec.FoundBefore, rec.FoundAfter, dest)
		}
		if !pluginInOrder(rec.Messages, "agentls: go build ./cmd/agentls in "+tildeHome(r, repo)+" …", "agentls: installed "+dest) {
			r.errorf("messages:\n  %s", strings.Join(rec.Messages, "\n  "))
		}
		if len(rec.ClientCmd) == 0 || rec.ClientCmd[0] != dest {
			r.errorf("the client runs %q, want %s", rec.ClientCmd, dest)
		}
		if out, err := exec.Command(dest, "version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "agentls ") {
			r.errorf("%s version: %q %v", dest, out, err)
		}
		if _, err := os.Stat(r.path("data", "nvim", "agentls", "bin", ".install")); !os.IsNotExist(err) {
			r.errorf("the build folder is left: %v", err)
		}
	})
}

// tildeHome is fnamemodify(p, ':~') in the run (HOME is the run's home).
func tildeHome(r *pluginRun, p string) string {
	if rest, ok := strings.CutPrefix(p, r.path("home")); ok {
		return "~" + rest
	}
	return p
}

// :AgentInstall outside a checkout (or with a version) runs `go install
// github.com/agentls/agentls/cmd/agentls@version`, latest by default, into
// a folder of its own, and moves the binary into place; a failing go is
// reported with its output, and nothing is installed.
func TestNvimPluginInstallGoInstall(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		// The plugin as a copy of editors/nvim that is no checkout.
		copyRTP := func(r *pluginRun) string {
			rtp := r.path("copy", "editors", "nvim")
			for _, dir := range []string{"lua", "plugin", "doc"} {
				if err := os.CopyFS(filepath.Join(rtp, dir), os.DirFS(dir)); err != nil {
					t.Fatal(err)
				}
			}
			return rtp
		}
		cases := []struct {
			name, version string
			checkout      bool
			fail          bool
			target        string
		}{
			{"latest", "-", false, false, "github.com/agentls/agentls/cmd/agentls@latest"},
			{"version", "v1.2.3", false, false, "github.com/agentls/agentls/cmd/agentls@v1.2.3"},
			{"version in a checkout", "v1.2.3", true, false, "github.com/agentls/agentls/cmd/agentls@v1.2.3"},
			{"go fails", "v9.9.9", false, true, "github.com/agentls/agentls/cmd/agentls@v9.9.9"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := binaryRun(t, false)
				if !c.checkout {
					r.env["AGENTLS_PLUGIN_RTP"] = copyRTP(r)
				}
				// A go that records how it was run and "installs" the real agentls.
				fake := `#!/bin/sh
{ echo "$GOBIN"; for a in "$@"; do echo "$a"; done; } >"$AGENTLS_FAKE_GO_LOG"
if [ -n "$AGENTLS_FAKE_GO_FAIL" ]; then
  echo "go: $2: unknown revision" >&2
  exit 1
fi
ln -s "$AGENTLS_E2E_BIN" "$GOBIN/agentls"
`
				if err := os.WriteFile(r.path("bin", "go"), []byte(fake), 0o755); err != nil {
					t.Fatal(err)
				}
				r.env["AGENTLS_FAKE_GO_LOG"] = r.path("go.log")
				if c.fail {
					r.env["AGENTLS_FAKE_GO_FAIL"] = "1"
				}
				r.env["AGENTLS_PLUGIN_INSTALL"] = c.version
				rec := r.nvim("plugin_binary.lua")
				defer r.done()
				log, err := os.ReadFile(r.path("go.log"))
				if err != nil {
					r.fail("go was not run: %v", err)
				}
				bin := r.path("data", "nvim", "agentls", "bin")
				want := filepath.Join(bin, ".install") + "\ninstall\n" + c.target + "\n"
				if string(log) != want {
					r.errorf("go ran as (GOBIN, then the arguments):\n%s\nwant:\n%s", log, want)
				}
				if c.fail {
					if rec.FoundAfter.Path != "" || rec.ClientCmd != nil || isFile(filepath.Join(bin, "agentls")) {
						r.errorf("a failed install left agentls: find %+v, client %q", rec.FoundAfter, rec.ClientCmd)
					}
					last := rec.Messages[len(rec.Messages)-1]
					if last != "agentls: go install "+c.target+" failed (exit 1):\ngo: "+c.target+": unknown revision" {
						r.errorf("the failure is reported as %q", last)
					}
					return
				}
				dest := filepath.Join(bin, "agentls")
				if rec.FoundAfter.Path != dest || len(rec.ClientCmd) == 0 || rec.ClientCmd[0] != dest {
					r.errorf("after the install: find %+v, client %q; want %s", rec.FoundAfter, rec.ClientCmd, dest)
				}
				if !pluginInOrder(rec.Messages, "agentls: go install "+c.target+" …", "agentls: installed "+dest) {
					r.errorf("messages:\n  %s", strings.Join(rec.Messages, "\n  "))
				}
			})
		}
	})
}
