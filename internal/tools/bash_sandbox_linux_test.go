package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
)

// plantedSecret hides in the throwaway home folder and the environment of
// the sandbox tests; no tool result may carry it.
const plantedSecret = "PLANTED-TOKEN-b41f9"

// confined makes ShellEnv's commands over ws run in a sandbox built for
// m, with the session folder tmp, proxy and trust as given.
func confined(t *testing.T, env *ShellEnv, ws *Workspace, m sandbox.Machine, proxy *sandbox.Proxy, trusted bool) *sandbox.Sandbox {
	t.Helper()
	tmp := t.TempDir()
	sandbox.PrepareCaches(m)
	sb, err := sandbox.New(sandbox.Options{Policy: sandbox.DefaultPolicy(m, ws.Roots(), tmp, nil, nil), TempDir: tmp, Home: m.Home, Proxy: proxy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if !sb.Confined() {
		t.Fatalf("the sandbox cannot confine here: %s", sb.Status().Reason)
	}
	env.Confine(func() *sandbox.Sandbox { return sb }, proxy, func(string) bool { return trusted })
	return sb
}

// plantSecrets points HOME at a throwaway folder holding keys where tools
// keep them, and puts tokens in the environment.
func plantSecrets(t *testing.T) (home string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, home, map[string]string{
		".ssh/id_rsa": plantedSecret, ".aws/credentials": "aws_secret_access_key=" + plantedSecret,
		".npmrc": "//registry.npmjs.org/:_authToken=" + plantedSecret, ".netrc": "machine x login y password " + plantedSecret,
		".gitconfig":          "[user]\n\tname = Ada\n[url \"https://x:" + plantedSecret + "@github.com/\"]\n\tinsteadOf = https://github.com/\n",
		".docker/config.json": `{"auths":{"x":{"auth":"` + plantedSecret + `"}}}`,
	})
	t.Setenv("HOME", home)
	for _, k := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "NODE_AUTH_TOKEN", "OPENAI_API_KEY", "DATABASE_URL", "SLACK_WEBHOOK"} {
		t.Setenv(k, plantedSecret)
	}
	return home
}

func bashRun(t *testing.T, bash *BashTool, call Call, cmd string) Result {
	t.Helper()
	call.Input, _ = json.Marshal(map[string]any{"command": cmd})
	res, err := bash.Run(context.Background(), call)
	if err != nil {
		t.Fatalf("%q: %v", cmd, err)
	}
	return res
}

// TestBashSandboxHidesSecrets: neither the interpreter's own expansions
// nor the programs it runs see a token of agentls's environment or a key
// in the home folder.
func TestBashSandboxHidesSecrets(t *testing.T) {
	home := plantSecrets(t)
	env, ws, root := newShellTools(t)
	confined(t, env, ws, sandbox.Machine{Home: home, Getenv: os.Getenv, LookPath: exec.LookPath}, nil, true)
	bash := NewBashTool(env)
	for _, cmd := range []string{
		"echo $GITHUB_TOKEN", "cat <<< \"$AWS_SECRET_ACCESS_KEY\"", "echo ${NPM_TOKEN:-none} ${OPENAI_API_KEY:-none}",
		"env", "printenv", "set", "export -p", "jq -n env", "jq -rn '$ENV.NPM_TOKEN'", "cat /proc/self/environ",
		"cat ~/.ssh/id_rsa", "cat ~/.npmrc ~/.netrc ~/.aws/credentials ~/.docker/config.json", "git config --global -l",
		"git config --global --get-regexp url", "grep -r PLANTED ~", "ls -la ~/.ssh",
		"cat /proc/" + fmt.Sprint(os.Getpid()) + "/environ", "python3 -c 'import os; print(os.environ)'",
		"node -e 'console.log(JSON.stringify(process.env))'",
	} {
		res := bashRun(t, bash, Call{}, cmd)
		if strings.Contains(res.Content, plantedSecret) {
			t.Errorf("%q printed a planted secret:\n%s", cmd, res.Content)
		}
	}
	// The sandbox says what it refused, in words the model can act on.
	res := bashRun(t, bash, Call{}, "cat ~/.ssh/id_rsa")
	if !strings.Contains(res.Content, "blocked by the sandbox: "+home+"/.ssh/id_rsa is outside what commands may read") {
		t.Errorf("no explanation of the refusal:\n%s", res.Content)
	}
	res = bashRun(t, bash, Call{}, "python3 -c \"open('"+home+"/.profile', 'w').write('x')\"")
	if !strings.Contains(res.Content, "blocked by the sandbox: writing "+home+"/.profile is outside the workspace") || !strings.Contains(res.Content, "sandbox.writable") {
		t.Errorf("no explanation of the refused write:\n%s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(home, ".profile")); err == nil {
		t.Error("a write outside landed")
	}
	// A read outside that a person approved when asked reaches exactly
	// that file; the same command allowed by a mode or rule does not.
	writeFiles(t, home, map[string]string{"notes.txt": "my notes\n"})
	if res := bashRun(t, bash, Call{PersonApproved: true}, "cat ~/notes.txt"); !strings.Contains(res.Content, "my notes") {
		t.Errorf("an approved outside read was refused:\n%s", res.Content)
	}
	if res := bashRun(t, bash, Call{PersonApproved: true}, "cat ~/notes.txt ~/.ssh/../notes.txt && cat ~/.ssh/id_rsa"); !strings.Contains(res.Content, plantedSecret) {
		t.Log("(the second cat names id_rsa too: approved, so it is readable — the person saw it in the question)")
	}
	if res := bashRun(t, bash, Call{}, "cat ~/notes.txt"); strings.Contains(res.Content, "my notes") {
		t.Errorf("an outside read no person approved got through:\n%s", res.Content)
	}
	_ = root
}

// TestBashSandboxProxyAsks: a program reaches the network only through
// the proxy, and the gate is asked (Call.Check) about each new host; an
// allowed host answers, a person's deny ends the turn.
func TestBashSandboxProxyAsks(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer upstream.Close()
	proxy := sandbox.NewProxy(sandbox.ProxyOptions{Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if h, _, _ := net.SplitHostPort(addr); h == "allowed.test" || h == "denied.test" {
			return (&net.Dialer{}).DialContext(ctx, network, upstream.Listener.Addr().String())
		}
		return nil, fmt.Errorf("no route to %s", addr)
	}})
	env, ws, _ := newShellTools(t)
	confined(t, env, ws, sandbox.NewMachine(), proxy, true)
	bash := NewBashTool(env)
	var mu sync.Mutex
	var asked []permission.Request
	call := Call{Check: func(_ context.Context, r permission.Request) permission.Decision {
		mu.Lock()
		asked = append(asked, r)
		mu.Unlock()
		if strings.Contains(r.Destinations[0], "allowed.test") {
			return permission.Decision{Kind: permission.Allow, Source: permission.SourceUser}
		}
		return permission.Decision{Kind: permission.Deny, Source: permission.SourceUser, StopTurn: true, Reason: "denied by the user"}
	}}
	fetch := func(host string) string {
		return "python3 -c \"import urllib.request; print(urllib.request.urlopen('http://" + host + "/x').read().decode())\""
	}
	res := bashRun(t, bash, call, fetch("allowed.test")+" && "+fetch("allowed.test"))
	if !strings.Contains(res.Content, "hello from allowed.test") || res.IsError || res.Stop {
		t.Errorf("allowed host:\n%s", res.Content)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].Capability != "net.fetch" || asked[0].Tool != "bash" || !strings.Contains(asked[0].Summary, "allowed.test:80") {
		t.Errorf("asked %+v, want one net.fetch request for allowed.test (the second fetch reuses the answer)", asked)
	}
	mu.Unlock()
	res = bashRun(t, bash, call, fetch("denied.test"))
	if strings.Contains(res.Content, "hello") || !res.Stop || !strings.Contains(res.Content, "the person denied the connection to denied.test:80") {
		t.Errorf("denied host: stop %v:\n%s", res.Stop, res.Content)
	}
	// Past the proxy nothing leaves: a direct connection is refused.
	res = bashRun(t, bash, call, "python3 -c \"import socket; socket.create_connection(('"+upstream.Listener.Addr().(*net.TCPAddr).IP.String()+"', "+fmt.Sprint(upstream.Listener.Addr().(*net.TCPAddr).Port)+"), 3)\"")
	if !strings.Contains(res.Content, "Exit code: 1") {
		t.Errorf("a direct connection to the loopback server was not refused:\n%s", res.Content)
	}
}

// TestBashSandboxBuildsUnasked: in smart mode a known build or test
// command runs without asking in a trusted workspace when commands are
// confined — go test, npm test, npm run build, pytest, make test, make
// lint, cargo test on sample projects, really run — and is asked in
// approve mode, in an untrusted workspace or without a sandbox. The
// scripts also try to write outside the workspace (the folder above it):
// the kernel refuses, the build goes on, nothing lands.
func TestBashSandboxBuildsUnasked(t *testing.T) {
	for _, prog := range []string{"go", "npm", "pytest", "make", "cargo"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Fatalf("%s is not on PATH: scripts/test installs it (pytest: apt-get install python3-pytest; cargo: apt-get install cargo)", prog)
		}
	}
	env, ws, root := newShellTools(t)
	// Beside the workspace, in the test's own temporary folder.
	outside := filepath.Join(filepath.Dir(root), "escaped")
	writeFiles(t, root, map[string]string{
		"go.mod": "module sample\n\ngo 1.26\n", "sum.go": "package sample\n\nfunc Sum(a, b int) int { return a + b }\n",
		"sum_test.go":  "package sample\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestSum(t *testing.T) {\n\tif Sum(2, 3) != 5 {\n\t\tt.Fatal(\"sum\")\n\t}\n\tif err := os.WriteFile(os.TempDir()+\"/scratch\", []byte(\"x\"), 0o600); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n",
		"package.json": `{"name":"sample","version":"1.0.0","scripts":{"test":"node test.js","build":"node build.js"}}` + "\n",
		"test.js":      "const assert = require('assert'); assert.strictEqual(1 + 1, 2); console.log('js ok');\n",
		"build.js": "const fs = require('fs');\nfs.mkdirSync('dist', {recursive: true});\nfs.writeFileSync('dist/out.txt', 'built');\n" +
			"try { fs.writeFileSync('" + outside + "-npm', 'x'); console.log('npm wrote outside'); } catch (e) { console.log('outside: ' + e.code); }\n" +
			"console.log('build ok: ' + fs.readFileSync('dist/out.txt'));\n",
		"test_sum.py": "def test_sum():\n    assert 2 + 3 == 5\n",
		"Makefile": "test:\n\t@echo make ok > build.txt && cat build.txt\n" +
			"lint:\n\t@mkdir -p reports && echo lint ok > reports/lint.txt\n\t-@echo x > " + outside + "-make\n\t@cat reports/lint.txt\n",
		"Cargo.toml": "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": "pub fn sum(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn sums() {\n" +
			"        assert_eq!(super::sum(2, 3), 5);\n        let out = concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../escaped-cargo\");\n" +
			"        assert!(std::fs::write(out, \"x\").is_err(), \"cargo test wrote outside\");\n    }\n}\n",
		"pytest.ini":    "[pytest]\naddopts = -p no:cacheprovider\n",
		"sub/keep.txt":  "",
		"vendor/.keep":  "",
		".gitignore":    "build.txt\n",
		"README.md":     "# sample\n",
		"data/in.txt":   "1\n",
		"scripts/x.txt": "",
	})
	sb := confined(t, env, ws, sandbox.NewMachine(), nil, true)
	bash := NewBashTool(env)
	gate := func(mode permission.Mode) *permission.Gate {
		p := permission.DefaultPolicy()
		p.Mode = mode
		g, err := permission.New(permission.Options{Policy: p, Roots: ws.Roots})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	decide := func(mode permission.Mode, cmd string) permission.Decision {
		raw, _ := json.Marshal(map[string]any{"command": cmd})
		req, err := bash.Describe(context.Background(), Call{Input: raw})
		if err != nil {
			t.Fatal(err)
		}
		return gate(mode).Check(context.Background(), req)
	}
	for cmd, want := range map[string]string{
		"go test ./...": "ok  \tsample", "npm test": "js ok", "pytest -q": "1 passed", "make test": "make ok",
		"go vet ./...": "", "go build ./...": "", "npm run build": "build ok: built", "make lint": "lint ok",
		"cargo test": "test result: ok. 1 passed",
	} {
		d := decide(permission.ModeSmart, cmd)
		if d.Kind != permission.Allow || d.Source != permission.SourceSandbox {
			t.Errorf("smart mode, trusted, confined: %q = %s (%s: %s), want allow by the sandbox", cmd, d.Kind, d.Source, d.Reason)
			continue
		}
		res := bashRun(t, bash, Call{}, cmd)
		if !strings.Contains(res.Content, "Exit code: 0") || !strings.Contains(res.Content, want) {
			t.Errorf("%q in the sandbox:\n%s", cmd, res.Content)
		}
	}
	for _, suffix := range []string{"-npm", "-make", "-cargo"} {
		if _, err := os.Lstat(outside + suffix); err == nil {
			t.Errorf("a build's write outside the workspace landed: %s", outside+suffix)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "dist", "out.txt")); err != nil || string(b) != "built" {
		t.Errorf("npm run build's write inside the workspace: %q, %v", b, err)
	}
	for _, cmd := range []string{"go test -exec=./evil ./...", "go run .", "npm install", "make -f other.mk", "go test ./... && curl x", "cd sub && make"} {
		if d := decide(permission.ModeSmart, cmd); d.Kind == permission.Allow {
			t.Errorf("%q ran unasked (%s)", cmd, d.Source)
		}
	}
	if d := decide(permission.ModeApprove, "go test ./..."); d.Kind == permission.Allow {
		t.Errorf("approve mode ran go test unasked (%s)", d.Source)
	}
	env.Confine(func() *sandbox.Sandbox { return sb }, nil, func(string) bool { return false })
	if d := decide(permission.ModeSmart, "go test ./..."); d.Kind == permission.Allow {
		t.Errorf("an untrusted workspace ran go test unasked (%s)", d.Source)
	}
	env.Confine(func() *sandbox.Sandbox { return nil }, nil, func(string) bool { return true })
	if d := decide(permission.ModeSmart, "go test ./..."); d.Kind == permission.Allow {
		t.Errorf("without a sandbox go test ran unasked (%s)", d.Source)
	}
}
