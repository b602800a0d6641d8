package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// agentls.history gives an editor a stored session's turns to show on
// resume: the prompt as typed (without the file agentls added), the
// agent's text, the tool call and its result; an unknown id is refused
// naming agentls.sessions.
func TestHistoryOfAStoredSession(t *testing.T) {
	ctx := ctxT(t)
	dataDir := t.TempDir()
	prov := script(t, `{"turns":[
		{"text":"Looking.","tool_calls":[{"name":"view","input":{"file_path":"a.go"}}]},
		{"text":"a.go is package a."}]}`)
	ed, root := setup(t, map[string]string{"a.go": "package a\n"}, prov, func(o *fake.Options) { o.Server.DataDir = dataDir })
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "what is a.go?", URI: "file://" + root + "/a.go"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandHistory, lsp.HistoryArgs{SessionID: res.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SessionID string             `json:"sessionId"`
		Title     string             `json:"title"`
		Entries   []lsp.HistoryEntry `json:"entries"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got.Entries {
		lines = append(lines, e.Kind+" "+e.Tool+" "+e.Text)
	}
	want := []string{"you  what is a.go?", "agent  Looking.", `tool view {"file_path":"a.go"}`, "result view ", "agent  a.go is package a."}
	if got.SessionID != res.SessionID || got.Title != "what is a.go?" || len(lines) != len(want) {
		t.Fatalf("agentls.history = %s %q %q, want the session titled by its prompt with %q", got.SessionID, got.Title, lines, want)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("entry %d = %q, want %q", i, lines[i], want[i])
		}
	}
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandHistory, lsp.HistoryArgs{SessionID: "nope"}); err == nil || !strings.Contains(err.Error(), "agentls.sessions") {
		t.Errorf("history of an unknown session = %v, want refused naming agentls.sessions", err)
	}
}
