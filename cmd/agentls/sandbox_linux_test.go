package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxCommand: agentls sandbox says what the kernel enforces for a
// workspace, as text and JSON, reads sandbox settings from the user file,
// and runs a command confined: inside it writes, outside it cannot.
func TestSandboxCommand(t *testing.T) {
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	extra, _ := filepath.EvalSymlinks(t.TempDir())
	file := filepath.Join(cfgHome, "agentls", "config.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"sandbox": {"writable": ["`+extra+`"], "env": ["MY_TOOL_*"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())

	code, out, errOut := cli("sandbox", "--workspace", ws)
	if code != 0 || !strings.HasPrefix(out, "sandbox: on (landlock)") || !strings.Contains(out, "  "+ws+"\n") || !strings.Contains(out, "  "+extra+"\n") || !strings.Contains(out, "MY_TOOL_*") {
		t.Errorf("agentls sandbox = %d:\n%s\n%s", code, out, errOut)
	}
	code, out, _ = cli("sandbox", "--workspace", ws, "--json")
	var st struct {
		Confined bool     `json:"confined"`
		Network  string   `json:"network"`
		Write    []string `json:"write"`
		Gaps     []string `json:"gaps"`
	}
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || !st.Confined || st.Network == "none" || len(st.Gaps) == 0 {
		t.Errorf("--json = %d %v: %s", code, err, out)
	}
	code, _, errOut = cli("sandbox", "--workspace", ws, "--", "sh", "-c", "echo x > inside && echo y > "+extra+"/ok && echo z > "+outside+"/escaped")
	if code == 0 {
		t.Errorf("the write outside succeeded: %s", errOut)
	}
	for p, want := range map[string]bool{ws + "/inside": true, extra + "/ok": true, outside + "/escaped": false} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", p, err == nil, want)
		}
	}
}
