package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// grantEnvBase is the workspace every GrantEnv row starts from (paths
// under base: ws/ is the workspace, home/ the home folder).
var grantEnvBase = map[string]string{
	"ws/go.mod":                  "module demo\n\ngo 1.26\n",
	"ws/main.go":                 "package main\n",
	"ws/package.json":            `{"name":"demo","version":"1.0.0","scripts":{"test":"node test.js","build":"tsc"},"workspaces":["packages/*"]}`,
	"ws/packages/a/package.json": `{"name":"a","scripts":{"test":"node a.js"}}`,
	"ws/Makefile":                "include common.mk\n\ntest:\n\tgo test ./...\n",
	"ws/common.mk":               "GO ?= go\n",
	"ws/README.md":               "# demo\n",
	"ws/pytest.ini":              "[pytest]\n",
	"ws/test_x.py":               "def test_x(): pass\n",
	"ws/Cargo.toml":              "[package]\nname = \"demo\"\n",
	"ws/src/lib.rs":              "\n",
	"ws/scripts/gen.py":          "print(1)\n",
	"ws/test.js":                 "\n",
	"home/.keep":                 "",
}

// TestGrantEnvLapses: what shapes a granted program changes its digest
// (the grant lapses); the code it builds and tests does not.
func TestGrantEnvLapses(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		files map[string]string // written after the grant, under base
		env   []string          // added after the grant
		lapse bool
	}{
		{"go test ./...", map[string]string{"home/.config/go/env": "GOFLAGS=-toolexec=./evil.sh\n"}, nil, true},
		{"go test ./...", map[string]string{"goenv": "GOFLAGS=-toolexec=./evil.sh\n"}, []string{"GOENV=@/goenv"}, true},
		{"go test ./...", nil, []string{"GOFLAGS=-toolexec=./evil.sh"}, true},
		{"go test ./...", nil, []string{"CC=./evil"}, true},
		{"go test ./...", nil, []string{"GOTOOLCHAIN=go1.99.0+path"}, true},
		{"go test ./...", map[string]string{"ws/go.work": "go 1.26\nuse .\n"}, nil, true},
		{"go test ./...", map[string]string{"go.work": "go 1.26\nuse ./ws\n"}, nil, true},
		{"go build ./...", map[string]string{"ws/main.go": "package main\n\nfunc main() {}\n"}, nil, false},
		{"go vet ./...", nil, []string{"EDITOR=vi"}, false},
		{"npm test", map[string]string{"ws/package.json": `{"name":"demo","version":"1.0.0","scripts":{"test":"./evil.sh","build":"tsc"}}`}, nil, true},
		{"npm test", map[string]string{"ws/package.json": `{"name":"demo","version":"1.0.1","scripts":{"build":"tsc","test":"node test.js"},"workspaces":["packages/*"]}`}, nil, false},
		{"npm test", map[string]string{"ws/package.json": `{"name":"demo","scripts":{"test":"node test.js","build":"tsc","pretest":"./evil.sh"}}`}, nil, true},
		{"npm test", map[string]string{"ws/.npmrc": "script-shell=./evil.sh\n"}, nil, true},
		{"npm test", map[string]string{"home/.npmrc": "node-options=--require ./evil.js\n"}, nil, true},
		{"npm test", map[string]string{".npmrc": "script-shell=./evil.sh\n"}, nil, true}, // above the workspace
		{"npm test", nil, []string{"npm_config_script_shell=./evil.sh"}, true},
		{"npm test", nil, []string{"NODE_OPTIONS=--require ./evil.js"}, true},
		{"npm test", map[string]string{"ws/test.js": "console.log(1)\n"}, nil, false},
		{"npm run build", map[string]string{"ws/package.json": `{"scripts":{"build":"./evil.sh"}}`}, nil, true},
		{"npm test -w packages/a", map[string]string{"ws/packages/a/package.json": `{"scripts":{"test":"./evil.sh"}}`}, nil, true},
		{"npm test --workspace=packages/a", map[string]string{"ws/packages/a/package.json": `{"scripts":{"test":"./evil.sh"}}`}, nil, true},
		{"npm test --workspaces", map[string]string{"ws/packages/a/package.json": `{"scripts":{"test":"./evil.sh"}}`}, nil, true},
		{"npm test --workspaces", map[string]string{"ws/packages/b/package.json": `{"scripts":{"test":"./evil.sh"}}`}, nil, true}, // a new workspace
		{"npm test", map[string]string{"ws/packages/a/package.json": `{"scripts":{"test":"./evil.sh"}}`}, nil, false},             // not run by npm test
		{"yarn test", map[string]string{"ws/.yarnrc.yml": "yarnPath: ./evil.cjs\n"}, nil, true},
		{"pnpm test", map[string]string{"ws/.pnpmfile.cjs": "module.exports = {}\n"}, nil, true},
		{"bun test", map[string]string{"ws/bunfig.toml": "preload = [\"./evil.ts\"]\n"}, nil, true},
		{"make test", map[string]string{"ws/Makefile": "test:\n\t./evil.sh\n"}, nil, true},
		{"make test", map[string]string{"ws/common.mk": "GO = ./evil.sh\n"}, nil, true},
		{"make test", map[string]string{"ws/GNUmakefile": "test:\n\t./evil.sh\n"}, nil, true},
		{"make test", nil, []string{"MAKEFLAGS=--eval=x"}, true},
		{"make test", nil, []string{"CC=./evil.sh"}, true},                     // make reads every variable it receives
		{"make test", nil, []string{"DBUS_SESSION_BUS_ADDRESS=unix:x"}, false}, // one it never receives
		{"make test", map[string]string{"ws/README.md": "# changed\n"}, nil, false},
		{"cargo test", map[string]string{"ws/.cargo/config.toml": "[build]\nrustc-wrapper = \"./evil\"\n"}, nil, true},
		{"cargo test", map[string]string{".cargo/config": "[build]\nrustc-wrapper = \"./evil\"\n"}, nil, true},
		{"cargo test", map[string]string{"home/.cargo/config.toml": "[build]\nrustc-wrapper = \"./evil\"\n"}, nil, true},
		{"cargo test", map[string]string{"ws/rust-toolchain.toml": "[toolchain]\npath = \"/tmp/evil\"\n"}, nil, true},
		{"cargo test", nil, []string{"RUSTC_WRAPPER=./evil"}, true},
		{"cargo test", nil, []string{"RUSTFLAGS=-Clinker=./evil"}, true},
		{"cargo test", map[string]string{"ws/src/lib.rs": "pub fn f() {}\n"}, nil, false},
		{"pytest -x", nil, []string{"PYTEST_ADDOPTS=-p evil"}, true},
		{"pytest -x", nil, []string{"PYTHONPATH=/tmp/evil"}, true},
		{"pytest -x", map[string]string{"ws/conftest.py": "import evil\n"}, nil, true},
		{"pytest -x", map[string]string{"ws/pytest.ini": "[pytest]\naddopts = -p evil\n"}, nil, true},
		{"pytest -x", map[string]string{"ws/pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-p evil\"\n"}, nil, true},
		{"pytest -x", map[string]string{"ws/tox.ini": "[pytest]\n"}, nil, true},
		{"pytest -x", map[string]string{"ws/setup.cfg": "[tool:pytest]\n"}, nil, true},
		{"pytest -x", map[string]string{"ws/test_x.py": "def test_x(): assert 1\n"}, nil, false},
		{"python3 -m pytest", nil, []string{"PYTEST_PLUGINS=evil"}, true},
		{"python3 scripts/gen.py", nil, []string{"PYTHONSTARTUP=/tmp/evil.py"}, true},
		{"node test.js", nil, []string{"NODE_OPTIONS=--require ./evil.js"}, true},
	} {
		base := t.TempDir()
		writeTree(t, base, grantEnvBase)
		ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
		digest := func(env []string) string {
			v, err := JudgeWith(tc.cmd, JudgeOptions{Dir: ws, Home: home, Roots: []string{ws}, Env: env})
			if err != nil || v.Fingerprint == "" {
				t.Fatalf("%s: not grantable: %v %s", tc.cmd, err, v.NoGrant)
			}
			return GrantEnv(v, JudgeOptions{Dir: ws, Home: home, Roots: []string{ws}, Env: env})
		}
		before := digest(env)
		if before == "" || before != digest(env) {
			t.Errorf("%s: digest %q is not stable", tc.cmd, before)
			continue
		}
		writeTree(t, base, tc.files)
		for _, kv := range tc.env {
			env = append(env, strings.ReplaceAll(kv, "@", base))
		}
		if lapsed := digest(env) != before; lapsed != tc.lapse {
			t.Errorf("%s after %v %v: lapsed = %v, want %v", tc.cmd, tc.files, tc.env, lapsed, tc.lapse)
		}
	}
}

// TestGrantEnvUnreadable: a configuration file that cannot be read (a
// folder, a file over the bound) gives a digest no grant matches — not
// even the same call's a moment later — and programs with no known
// environment have none.
func TestGrantEnvUnreadable(t *testing.T) {
	for _, files := range []map[string]string{
		{"ws/.npmrc/x": ""},
		{"ws/package.json": `{"scripts":{"test":"` + strings.Repeat("x", grantEnvMaxFile) + `"}}`},
	} {
		base := t.TempDir()
		writeTree(t, base, grantEnvBase)
		writeTree(t, base, files)
		o := JudgeOptions{Dir: filepath.Join(base, "ws"), Home: filepath.Join(base, "home"), Roots: []string{filepath.Join(base, "ws")}, Env: []string{"PATH=" + os.Getenv("PATH")}}
		v, _ := JudgeWith("npm test", o)
		if a, b := GrantEnv(v, o), GrantEnv(v, o); a == "" || a == b {
			t.Errorf("%v: digests %q and %q, want two different ones", files, a, b)
		}
	}
	o := JudgeOptions{Dir: t.TempDir(), Roots: []string{os.TempDir()}}
	for _, cmd := range []string{"ls -la", "git status", "echo hi", "rm -rf x"} {
		v, _ := JudgeWith(cmd, o)
		if got := GrantEnv(v, o); got != "" {
			t.Errorf("GrantEnv(%q) = %q, want none", cmd, got)
		}
	}
}

// writeTree writes files (path relative to base: content), making folders.
func writeTree(t *testing.T, base string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
