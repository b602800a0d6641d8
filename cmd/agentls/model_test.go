package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/openai/openaitest"
)

// TestRunContinueWithAnotherModel: `agentls run --continue --model X`
// goes on with the stored session on model X — X's first request holds
// the first turn (the prompt, the tool call and its result, the answer)
// made by another model — and a later `run --continue` stays on X, the
// model chosen last, though the defaults name none.
func TestRunContinueWithAnotherModel(t *testing.T) {
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Parts: []string{"the second model answers"}}
	})
	defer srv.Close()
	home := t.TempDir()
	for k, v := range map[string]string{"XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "AGENTLS_MODEL": "", "TEST_KEY": "k"} {
		t.Setenv(k, v)
	}
	cfg, _ := json.Marshal(map[string]any{"providers": map[string]any{"openai": map[string]string{"base_url": srv.URL, "api_key_env": "TEST_KEY"}}})
	if err := os.MkdirAll(filepath.Join(home, "config", "agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config", "agentls", "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha-content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "first.json")
	if err := os.WriteFile(script, []byte(`{"turns":[{"tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},{"text":"a.txt holds alpha"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run1 := func(args ...string) (model string, answer string) {
		t.Helper()
		var out, errb bytes.Buffer
		args = append([]string{"run", "--workspace", ws, "--mode", "auto", "--json"}, args...)
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, errb.String(), out.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var e struct{ Type, Model, Text string }
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			switch e.Type {
			case "turn_start":
				model = e.Model
			case "text":
				answer = e.Text
			}
		}
		return model, answer
	}
	if m, a := run1("--model", "replay:"+script, "what is in a.txt?"); m != "replay:"+script || a != "a.txt holds alpha" {
		t.Fatalf("first run on %q answered %q", m, a)
	}
	if m, a := run1("--continue", "--model", "openai:test-model", "and now?"); m != "openai:test-model" || a != "the second model answers" {
		t.Fatalf("continued on %q, answered %q", m, a)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the second model got %d requests", len(reqs))
	}
	var roles []string
	for _, m := range reqs[0].Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool assistant user" {
		t.Errorf("the second model's first request: %s, want the first turn before the prompt", got)
	}
	for _, want := range []string{"what is in a.txt?", "alpha-content", "a.txt holds alpha", "and now?"} {
		if !strings.Contains(reqs[0].Text(), want) {
			t.Errorf("the second model's first request lacks %q", want)
		}
	}
	if m, _ := run1("--continue", "once more"); m != "openai:test-model" {
		t.Errorf("a plain --continue ran on %q, want the model chosen last", m)
	}
	if n := len(srv.Requests()); n != 2 || !strings.Contains(srv.Requests()[1].Text(), "and now?") {
		t.Errorf("the second model got %d requests; the last should hold the whole conversation", n)
	}
}
