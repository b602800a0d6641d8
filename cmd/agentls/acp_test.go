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

// TestACPCommand: `agentls acp` answers initialize on stdout, logs to
// the log file and nothing to stderr (ACP clients show each stderr line
// as an agent error), and exits 0 when the editor closes stdin.
func TestACPCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
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
	if errb.Len() > 0 {
		t.Errorf("stderr is not empty: %q", errb.String())
	}
	log, err := os.ReadFile(filepath.Join(state, "agentls", "agentls.log"))
	if err != nil || !strings.Contains(string(log), "acp: initialize") {
		t.Errorf("the log file has no line of the initialize (%v): %q", err, log)
	}

	// --log-file - is the log on stderr, at --log-level.
	in = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"acp", "--model", "replay:" + scriptPath, "--log-file", "-", "--log-level", "debug"}, in, &out, &errb); code != 0 {
		t.Fatalf("--log-file -: exit %d, stderr: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "acp: initialize") {
		t.Errorf("--log-file -: stderr has no log of the initialize: %q", errb.String())
	}
}

// TestEditorCommandLogLevel: a --log-level that is not a level stops the
// command before anything starts, naming the levels.
func TestEditorCommandLogLevel(t *testing.T) {
	for _, cmd := range []string{"acp", "serve"} {
		code, out, stderr := runCLI(t, cmd, "--log-level", "loud")
		if code != 2 || !strings.Contains(stderr, "debug, info, warn or error") || out != "" {
			t.Errorf("%s --log-level loud: exit %d, stdout %q, stderr %q", cmd, code, out, stderr)
		}
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
