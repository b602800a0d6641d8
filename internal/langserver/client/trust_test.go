package client

// Untrusted means inert, with the real servers: a workspace that ships
// its own programs (gopls and go earlier in PATH, an activated virtual
// environment's python, a compiler that compile_commands.json names for
// clangd's --query-driver), each writing a marker file when it runs. While
// the folder is untrusted the servers work and no marker appears; once
// Trusted says yes, the full form runs them (the markers appear), which
// proves the test's programs would have run.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
)

// asks records the TrustRequests a Manager made.
type asks struct {
	mu   sync.Mutex
	reqs []TrustRequest
	more chan struct{} // closed on the next add, for wait
}

func (a *asks) add(r TrustRequest) {
	a.mu.Lock()
	a.reqs = append(a.reqs, r)
	if a.more != nil {
		close(a.more)
		a.more = nil
	}
	a.mu.Unlock()
}

// wait returns the requests once there is one (at most 5 s).
func (a *asks) wait(t *testing.T) []TrustRequest {
	t.Helper()
	timeout := time.NewTimer(5 * time.Second)
	defer timeout.Stop()
	for {
		a.mu.Lock()
		reqs := append([]TrustRequest(nil), a.reqs...)
		if a.more == nil {
			a.more = make(chan struct{})
		}
		more := a.more
		a.mu.Unlock()
		if len(reqs) > 0 {
			return reqs
		}
		select {
		case <-more:
		case <-timeout.C:
			return nil
		}
	}
}

// markerScript writes an executable shell script at path that appends to
// marker, then runs real with its arguments (or exits when real is "").
func markerScript(t *testing.T, path, marker, real string) {
	t.Helper()
	body := fmt.Sprintf("#!/bin/sh\necho \"$0 $*\" >> %q\n", marker)
	if real != "" {
		body += fmt.Sprintf("exec %q \"$@\"\n", real)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func ran(marker string) string {
	data, _ := os.ReadFile(marker)
	return string(data)
}

// waitRan waits (at most 30 s) for the full form to have run what, the
// program that writes marker: without it the test would prove nothing.
func waitRan(t *testing.T, marker, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ran(marker) == ""; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the full form never ran %s: the test proves nothing", what)
		}
	}
}

// procEnv is the environment of a running process.
func procEnv(t *testing.T, pid int) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(data), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

func procCmdline(t *testing.T, pid int) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// realProgram finds a program before the test puts the workspace on PATH;
// it fails with the install command when it is missing.
func realProgram(t *testing.T, name, hint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not on PATH: install it with `%s`", name, hint)
	}
	return p
}

func trustedIf(v *bool) func(string) bool { return func(string) bool { return *v } }

func TestUntrustedGoplsRunsNothingFromTheRepository(t *testing.T) {
	requireGopls(t)
	realGopls := realProgram(t, "gopls", "go install golang.org/x/tools/gopls@v0.23.0")
	realGo := realProgram(t, "go", "install Go")
	dir := copyFixture(t, "hello")
	marker := filepath.Join(t.TempDir(), "ran")
	bin := filepath.Join(dir, "bin")
	markerScript(t, filepath.Join(bin, "gopls"), marker, realGopls)
	markerScript(t, filepath.Join(bin, "go"), marker, realGo)
	// The repository names a toolchain and puts its bin first on PATH
	// (direnv, an activated environment, a careless .bashrc).
	mod := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(mod, []byte(mustRead(t, mod)+"\ntoolchain go1.99.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	trusted := false
	var a asks
	cfg := Config{RequestTimeout: 30 * time.Second, Trusted: trustedIf(&trusted), AskTrust: a.add}
	m := NewManager(cfg, newTestWS(dir), nil)
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	ctx := context.Background()
	use := filepath.Join(dir, "use.go")

	c, err := m.ClientFor(ctx, use)
	if err != nil {
		t.Fatal(err)
	}
	line, col := find(t, use, "Hello", 2)
	if locs, err := c.Definition(ctx, use, line, col); err != nil || len(locs) != 1 || filepath.Base(locs[0].Path) != "hello.go" {
		t.Fatalf("definition in the safe form: %+v %v", locs, err)
	}
	if got := procCmdline(t, c.PID())[0]; got != realGopls {
		t.Errorf("gopls runs as %s, want %s", got, realGopls)
	}
	env := procEnv(t, c.PID())
	if env["GOTOOLCHAIN"] != "local" || strings.Contains(env["PATH"], bin) {
		t.Errorf("gopls's environment: GOTOOLCHAIN=%q PATH=%q", env["GOTOOLCHAIN"], env["PATH"])
	}
	if out := ran(marker); out != "" {
		t.Fatalf("a program of the untrusted repository ran:\n%s", out)
	}
	reqs := a.wait(t)
	if len(reqs) != 1 || !reqs[0].Started || reqs[0].Folder != dir || !strings.Contains(reqs[0].Code, "its own gopls program (bin/gopls)") || !strings.Contains(reqs[0].Code, "toolchain go1.99.1") {
		t.Errorf("trust requests: %+v", reqs)
	}

	// Trusted, the full form runs what the repository put first on PATH.
	trusted = true
	if err := m.Retrust(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if out := ran(marker); !strings.Contains(out, filepath.Join(bin, "gopls")) {
		t.Errorf("the full form did not run the repository's gopls; marker: %q", out)
	}
}

func TestUntrustedPyrightRunsNoVirtualEnvironmentPython(t *testing.T) {
	realProgram(t, "pyright-langserver", "npm install -g pyright")
	realPython := realProgram(t, "python3", "apt-get install -y python3")
	dir := t.TempDir()
	for name, text := range map[string]string{
		"pyrightconfig.json": "{}\n",
		"hello.py":           "def hello(name: str) -> str:\n    return \"hello \" + name\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(t.TempDir(), "ran")
	venv := filepath.Join(dir, ".venv", "bin")
	markerScript(t, filepath.Join(venv, "python3"), marker, realPython)
	markerScript(t, filepath.Join(venv, "python"), marker, realPython)
	t.Setenv("PATH", venv+string(os.PathListSeparator)+os.Getenv("PATH")) // an activated venv
	trusted := false
	var a asks
	m := NewManager(Config{RequestTimeout: 30 * time.Second, Trusted: trustedIf(&trusted), AskTrust: a.add}, newTestWS(dir), nil)
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	ctx := context.Background()
	hello := filepath.Join(dir, "hello.py")

	c, err := m.ClientFor(ctx, hello)
	if err != nil {
		t.Fatal(err)
	}
	if syms, err := c.DocumentSymbols(ctx, hello); err != nil || len(syms) == 0 || syms[0].Name != "hello" {
		t.Fatalf("symbols in the safe form: %+v %v", syms, err)
	}
	py, _ := c.current().settings.(map[string]any)["python"].(map[string]any)["pythonPath"].(string)
	if py == "" || strings.HasPrefix(py, dir) {
		t.Errorf("python.pythonPath = %q, want an interpreter outside %s", py, dir)
	}
	if strings.Contains(procEnv(t, c.PID())["PATH"], venv) {
		t.Error("pyright's PATH holds the repository's virtual environment")
	}
	// pyright asks the interpreter for its search paths in the background.
	time.Sleep(2 * time.Second)
	if out := ran(marker); out != "" {
		t.Fatalf("the repository's python ran:\n%s", out)
	}
	if reqs := a.wait(t); len(reqs) != 1 || !strings.Contains(reqs[0].Code, ".venv/bin/python3") {
		t.Errorf("trust requests: %+v", reqs)
	}

	trusted = true
	if err := m.Retrust(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DocumentSymbols(ctx, hello); err != nil {
		t.Fatal(err)
	}
	waitRan(t, marker, "the virtual environment's python")
}

func TestUntrustedClangdRunsNoQueryDriver(t *testing.T) {
	realProgram(t, "clangd", "apt-get update && apt-get install -y clangd")
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	cc := filepath.Join(dir, "tools", "evil-cc")
	markerScript(t, cc, marker, "")
	src := filepath.Join(dir, "hello.c")
	if err := os.WriteFile(src, []byte("int hello(int x) { return x + 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cdb := fmt.Sprintf(`[{"directory": %q, "file": %q, "arguments": [%q, "-c", "hello.c"]}]`, dir, src, cc)
	if err := os.WriteFile(filepath.Join(dir, "compile_commands.json"), []byte(cdb), 0o644); err != nil {
		t.Fatal(err)
	}
	trusted := false
	var a asks
	cfg := Config{RequestTimeout: 30 * time.Second, Trusted: trustedIf(&trusted), AskTrust: a.add,
		Servers: map[string]config.ServerConfig{"clangd": {Command: []string{"clangd", "--query-driver=/**", "--log=error"}}}}
	m := NewManager(cfg, newTestWS(dir), nil)
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	ctx := context.Background()

	c, err := m.ClientFor(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Diagnostics(ctx, src); err != nil {
		t.Fatal(err)
	}
	if argv := strings.Join(procCmdline(t, c.PID()), " "); strings.Contains(argv, "query-driver") || !strings.Contains(argv, "--log=error") {
		t.Errorf("clangd runs as %q", argv)
	}
	if out := ran(marker); out != "" {
		t.Fatalf("clangd ran the repository's compiler:\n%s", out)
	}
	if reqs := a.wait(t); len(reqs) != 1 || !strings.Contains(reqs[0].Code, "--query-driver") {
		t.Errorf("trust requests: %+v", reqs)
	}

	trusted = true
	if err := m.Retrust(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Diagnostics(ctx, src); err != nil {
		t.Fatal(err)
	}
	waitRan(t, marker, "the query driver")
}
