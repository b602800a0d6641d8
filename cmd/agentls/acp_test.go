package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestACPCommand: `agentls acp` answers initialize on stdout, logs on
// stderr, and exits 0 when the editor closes stdin.
func TestACPCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("AGENTLS_MODEL", "")
	root := t.TempDir()
	scriptPath := filepath.Join(root, "script.json")
	if err := os.WriteFile(scriptPath, []byte(`{"turns":[{"text":"hi"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"acp", "--model", "replay:" + scriptPath}, in, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errb.String())
	}
	var reply struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion int `json:"protocolVersion"`
			AgentInfo       struct {
				Name, Version string
			} `json:"agentInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &reply); err != nil {
		t.Fatalf("stdout is not one JSON-RPC reply: %q", out.String())
	}
	if reply.ID != 1 || reply.Result.ProtocolVersion != 1 || reply.Result.AgentInfo.Name != "agentls" || reply.Result.AgentInfo.Version != Version {
		t.Errorf("initialize reply %+v", reply)
	}
	if !strings.Contains(errb.String(), "acp: initialize") {
		t.Errorf("stderr has no log of the initialize: %q", errb.String())
	}
}

func TestACPCommandUsage(t *testing.T) {
	code, _, stderr := runCLI(t, "acp", "extra")
	if code != 2 || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "acp", "--help"); code != 0 || !strings.Contains(stderr, "Agent Client Protocol") {
		t.Errorf("--help: exit %d, stderr %q", code, stderr)
	}
}
