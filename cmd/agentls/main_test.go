package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if os.Getenv("AGENTLS_TEST_KEEP_DATA") == "" {
		t.Setenv("XDG_DATA_HOME", t.TempDir())
	}
	t.Setenv("AGENTLS_MODEL", "")
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunDemoJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "run", "--workspace", "../../examples/demo", "--model", "replay:../../examples/demo/script.json", "--on-ask", "deny", "--json", "what does Greet do?")
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	var types []string
	sawGreet := false
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line is not JSON: %q", line)
		}
		types = append(types, e["type"].(string))
		if e["type"] == "tool_result" && e["name"] == "view" && strings.Contains(e["content"].(string), "func Greet(name string) string") {
			sawGreet = true
		}
		if e["type"] == "tool_result" && e["is_error"] == true {
			t.Errorf("tool failed: %v", e)
		}
	}
	if types[0] != "turn_start" || types[len(types)-1] != "turn_end" {
		t.Errorf("event types = %v", types)
	}
	if !sawGreet {
		t.Errorf("view result did not show greet.go:\n%s", out)
	}
	if !strings.Contains(out, `"reason":"completed"`) {
		t.Errorf("turn did not complete:\n%s", out)
	}
}

func TestRunPlainPrintsAnswer(t *testing.T) {
	code, out, _ := runCLI(t, "run", "--workspace", "../../examples/demo", "--model", "replay:../../examples/demo/script.json", "--on-ask", "deny", "what does Greet do?")
	if code != 0 || !strings.HasPrefix(out, "Greet in greet.go returns") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	exhausted := filepath.Join(dir, "short.json")
	if err := os.WriteFile(exhausted, []byte(`{"turns":[{"tool_calls":[{"name":"ls","input":{}}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no prompt", []string{"run", "--model", "replay:x.json"}, 2, "PROMPT is required"},
		{"no model", []string{"run", "--workspace", dir, "hi"}, 2, "no model configured"},
		{"bad model string", []string{"run", "--workspace", dir, "--model", "gpt4", "hi"}, 2, "provider:model"},
		{"missing workspace", []string{"run", "--workspace", filepath.Join(dir, "nope"), "--model", "replay:" + exhausted, "hi"}, 2, "not a directory"},
		{"bad mode", []string{"run", "--workspace", dir, "--model", "replay:" + exhausted, "--mode", "yolo", "hi"}, 2, "unknown permission mode"},
		{"unknown flag", []string{"run", "--bogus", "hi"}, 2, "flag provided but not defined"},
		{"provider error", []string{"run", "--workspace", dir, "--model", "replay:" + exhausted, "--on-ask", "deny", "hi"}, 1, "replay script exhausted"},
		{"smart mode without a terminal", []string{"run", "--workspace", dir, "--model", "replay:" + exhausted, "hi"}, 2, "--mode auto"},
		{"bad --on-ask", []string{"run", "--workspace", dir, "--model", "replay:" + exhausted, "--on-ask", "allow", "hi"}, 2, "only value is deny"},
		{"--yolo with another mode", []string{"run", "--workspace", dir, "--model", "replay:" + exhausted, "--yolo", "--mode", "smart", "hi"}, 2, "conflicts"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out+stderr, tt.msg) {
				t.Errorf("exit %d (want %d), output %q %q, want %q", code, tt.code, out, stderr, tt.msg)
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"run", "--help"}} {
		code, out, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(out+stderr, "Usage") {
			t.Errorf("%v: exit %d, output %q %q", args, code, out, stderr)
		}
	}
	code, out, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "agentls ") {
		t.Errorf("version: %d %q", code, out)
	}
}

// Without -X main.Version, `agentls version` is the module version the go
// command recorded: a `go install …@v1.2.3` says v1.2.3.
func TestModuleVersion(t *testing.T) {
	for _, c := range []struct{ recorded, want string }{
		{"v1.2.3", "v1.2.3"},
		{"v0.0.0-20260102030405-abcdef123456+dirty", "v0.0.0-20260102030405-abcdef123456+dirty"},
		{"(devel)", "0.1.0-dev"},
		{"", "0.1.0-dev"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/agentls/agentls", Version: c.recorded}}
		if got := moduleVersion(info); got != c.want {
			t.Errorf("module version %q: agentls version %q, want %q", c.recorded, got, c.want)
		}
	}
	if got := moduleVersion(nil); got != "0.1.0-dev" {
		t.Errorf("no build info: %q", got)
	}
}

// --on-ask deny: what would be asked is denied and reported; the file is
// not written.
func TestRunOnAskDeny(t *testing.T) {
	ws := t.TempDir()
	script := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(script, []byte(`{"turns":[{"tool_calls":[{"name":"write","input":{"file_path":"x.txt","content":"hi"}}]},{"text":"never"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "run", "--workspace", ws, "--model", "replay:"+script, "--on-ask", "deny", "--json", "write it")
	if code != 0 || !strings.Contains(out, `"type":"permission"`) || !strings.Contains(out, `"decision":"deny"`) || !strings.Contains(out, `"reason":"denied"`) {
		t.Errorf("exit %d, out:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); !os.IsNotExist(err) {
		t.Errorf("denied write happened: %v", err)
	}
}

func TestPermissionExplain(t *testing.T) {
	ws := t.TempDir()
	code, out, errb := runCLI(t, "permission", "explain", "--workspace", ws, "--tool", "bash", "--input", `{"command":"rm -rf build"}`, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var ex struct {
		Decision, Source, Capability, Scope string
		Steps                               []struct{ Step, Outcome string }
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if ex.Decision != "ask" || ex.Capability != "shell.exec" || ex.Scope != "rm -rf build" || len(ex.Steps) < 10 {
		t.Errorf("explain = %+v", ex)
	}
	code, out, _ = runCLI(t, "permission", "explain", "--workspace", ws, "--tool", "bash", "--input", `{"command":"sudo ls"}`)
	if code != 0 || !strings.Contains(out, "decision: deny (source: block") {
		t.Errorf("sudo: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "permission", "explain", "--workspace", ws, "--tool", "view", "--input", `{"file_path":"a.go"}`, "--mode", "auto")
	if code != 0 || !strings.Contains(out, "decision: allow") {
		t.Errorf("view: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"permission", "explain", "--workspace", ws, "--tool", "nope"},
		{"permission", "explain", "--workspace", ws, "--tool", "bash", "--input", "{not json"},
		{"permission", "explain", "--workspace", ws},
		{"permission", "frob"},
	} {
		if code, _, _ := runCLI(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

func TestPermissionGrantsEmpty(t *testing.T) {
	ws := t.TempDir()
	code, out, _ := runCLI(t, "permission", "grants", "--workspace", ws)
	if code != 0 || !strings.Contains(out, "no grants") {
		t.Errorf("grants: %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "permission", "revoke", "--workspace", ws, "3"); code != 2 {
		t.Errorf("revoke of a missing number: exit %d", code)
	}
}
