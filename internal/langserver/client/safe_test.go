package client

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

// prepareFor builds a client of the named server over dir (untrusted) and
// prepares one start, without running anything.
func prepareFor(t *testing.T, dir string, sc config.ServerConfig, builtin bool, a *asks) (launch, error) {
	t.Helper()
	m := NewManager(Config{AskTrust: a.add}, newTestWS(dir), nil)
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	c := newClient(m, serverEntry{cfg: sc, builtin: builtin}, dir, dir, append([]string(nil), sc.Command...))
	return m.prepare(c)
}

func TestSafeRustAnalyzer(t *testing.T) {
	dir := t.TempDir()
	var a asks
	sc := config.BuiltinServers()["rust-analyzer"]
	sc.Command = []string{"/bin/sh"} // a program outside the folder; nothing is started
	sc.InitOptions = map[string]any{"cargo": map[string]any{"features": "all", "buildScripts": map[string]any{"enable": true}}}
	l, err := prepareFor(t, dir, sc, true, &a)
	if err != nil {
		t.Fatal(err)
	}
	init := l.init.(map[string]any)
	cargo := init["cargo"].(map[string]any)
	if cargo["buildScripts"].(map[string]any)["enable"] != false || cargo["features"] != "all" ||
		init["procMacro"].(map[string]any)["enable"] != false || init["checkOnSave"] != false {
		t.Errorf("initializationOptions = %v", init)
	}
	ra := l.settings.(map[string]any)["rust-analyzer"].(map[string]any)
	if ra["checkOnSave"] != false || ra["procMacro"].(map[string]any)["enable"] != false {
		t.Errorf("settings = %v", l.settings)
	}
	if reqs := a.wait(t); len(reqs) != 1 || !reqs[0].Started || !strings.Contains(reqs[0].Code, "build scripts") {
		t.Errorf("requests = %+v", reqs)
	}

	// A config file that can name programs leaves no safe form, wherever
	// it lies in the project.
	for _, f := range []string{".cargo/config.toml", "crates/x/rust-toolchain.toml", "rust-analyzer.toml"} {
		dir := t.TempDir()
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[build]\nrustc-wrapper = \"./evil\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var a asks
		_, err := prepareFor(t, dir, sc, true, &a)
		if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), "agentls trust "+dir) {
			t.Errorf("%s: err = %v", f, err)
		}
		if reqs := a.wait(t); len(reqs) != 1 || reqs[0].Started || !strings.Contains(reqs[0].Meanwhile, "does not start") {
			t.Errorf("%s: requests = %+v", f, reqs)
		}
	}
}

func TestUntrustedProgramAndUnknownServer(t *testing.T) {
	dir := t.TempDir()
	inside := filepath.Join(dir, "node_modules", ".bin", "my-ls")
	markerScript(t, inside, filepath.Join(t.TempDir(), "ran"), "")

	// A program inside the folder never runs, even one the user named.
	var a asks
	_, err := prepareFor(t, dir, config.ServerConfig{Name: "mine", Command: []string{inside}, RunUntrusted: true}, false, &a)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "only found inside the folder") {
		t.Errorf("err = %v", err)
	}
	// Found through PATH: the repository's entry is skipped.
	t.Setenv("PATH", filepath.Dir(inside)+string(os.PathListSeparator)+"."+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := prepareFor(t, dir, config.ServerConfig{Name: "mine", Command: []string{"my-ls"}, RunUntrusted: true}, false, &a); !errors.Is(err, ErrUntrusted) {
		t.Errorf("err = %v", err)
	}

	// A server agentls knows no safe form of starts only with run_untrusted.
	var b asks
	_, err = prepareFor(t, dir, config.ServerConfig{Name: "zls", Command: []string{"/bin/sh"}}, false, &b)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "lsp.zls.run_untrusted") {
		t.Errorf("err = %v", err)
	}
	if reqs := b.wait(t); len(reqs) != 1 || reqs[0].Server != "zls" || reqs[0].Started {
		t.Errorf("requests = %+v", reqs)
	}
	l, err := prepareFor(t, dir, config.ServerConfig{Name: "zls", Command: []string{"/bin/sh"}, RunUntrusted: true}, false, &b)
	if err != nil || l.argv[0] != "/bin/sh" {
		t.Fatalf("run_untrusted: %v %v", l.argv, err)
	}
	for _, p := range filepath.SplitList(l.env["PATH"]) {
		if p == "." || p == "" || strings.HasPrefix(p, dir) {
			t.Errorf("the server's PATH keeps %q", p)
		}
	}
}

func TestSafeTypeScriptOptions(t *testing.T) {
	dir := t.TempDir()
	sc := config.BuiltinServers()["typescript-language-server"]
	sc.Command = []string{"/bin/sh"}
	sc.InitOptions = map[string]any{
		"tsserver":    map[string]any{"path": filepath.Join(dir, "node_modules/typescript/lib/tsserver.js")},
		"npmLocation": filepath.Join(dir, "npm"),
		"plugins":     []any{map[string]any{"name": "evil", "location": filepath.Join(dir, "plugins")}, map[string]any{"name": "ok", "location": "/opt/plugins"}},
	}
	// /bin/sh has no typescript next to it and PATH has no tsserver: there
	// is no TypeScript outside the folder, so no safe form.
	t.Setenv("PATH", "/nonexistent")
	var a asks
	_, err := prepareFor(t, dir, sc, true, &a)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "npm i -g typescript") {
		t.Fatalf("err = %v", err)
	}
	// With a global TypeScript (a fake package outside the folder) the
	// workspace's path, npm and plugin are dropped.
	global := t.TempDir()
	tsserver := filepath.Join(global, "typescript", "lib", "tsserver.js")
	markerScript(t, tsserver, filepath.Join(t.TempDir(), "ran"), "")
	if err := os.WriteFile(filepath.Join(global, "typescript", "package.json"), []byte(`{"version":"5.9.3"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	markerScript(t, filepath.Join(global, "typescript", "bin", "tsserver"), filepath.Join(t.TempDir(), "ran"), "")
	t.Setenv("PATH", filepath.Join(global, "typescript", "bin"))
	l, err := prepareFor(t, dir, sc, true, &a)
	if err != nil {
		t.Fatal(err)
	}
	init := l.init.(map[string]any)
	if p := init["tsserver"].(map[string]any)["path"]; p != tsserver {
		t.Errorf("tsserver.path = %v, want %s", p, tsserver)
	}
	if _, ok := init["npmLocation"]; ok || init["disableAutomaticTypingAcquisition"] != true {
		t.Errorf("init = %v", init)
	}
	if plugins := init["plugins"].([]any); len(plugins) != 1 || plugins[0].(map[string]any)["name"] != "ok" {
		t.Errorf("plugins = %v", plugins)
	}
}
