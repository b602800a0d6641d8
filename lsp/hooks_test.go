package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/fake"
)

// In the editor: a PreToolUse hook's deny reaches the model and the
// transcript (agentls/event), and the next tool call of the turn runs.
func TestPreToolUseDenyThroughTheEditor(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"edit","input":{"file_path":"migrations/1.sql","old_string":"a","new_string":"b"}},
		               {"name":"view","input":{"file_path":"main.go"}}]},
		{"text":"done"}]}`)
	ed, _ := setup(t, map[string]string{"main.go": "package main\n", "migrations/1.sql": "a\n"}, prov, func(o *fake.Options) {
		o.Server.Config.Hooks = json.RawMessage(`[{"event":"PreToolUse","matcher":"^(edit|multiedit|write)$",
			"command":"echo 'never touch migrations/' >&2; exit 2"}]`)
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	var hook, editRes, viewRes *agent.Event
	for i, e := range evs {
		switch {
		case e.Type == agent.EventHook:
			hook = &evs[i]
		case e.Type == agent.EventToolResult && e.Name == "edit":
			editRes = &evs[i]
		case e.Type == agent.EventToolResult && e.Name == "view":
			viewRes = &evs[i]
		}
	}
	if hook == nil || hook.HookEvent != "PreToolUse" || hook.Decision != "deny" || *hook.ExitCode != 2 {
		t.Errorf("hook event = %+v", hook)
	}
	if editRes == nil || !*editRes.IsError || !strings.Contains(*editRes.Content, "never touch migrations/") {
		t.Errorf("edit result = %+v", editRes)
	}
	if viewRes == nil || *viewRes.IsError || !strings.Contains(*viewRes.Content, "package main") {
		t.Errorf("the next call did not run: %+v", viewRes)
	}
	if evs[len(evs)-1].Reason != agent.ReasonCompleted || len(ed.Asks()) != 0 {
		t.Errorf("turn %q, asks %v", evs[len(evs)-1].Reason, ed.Asks())
	}
}
