package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
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

// A PreToolUse rewrite is judged again by the whole gate: turning a
// harmless command into a blocked one gets it blocked, never run.
func TestHookRewriteIntoBlockedCommandIsBlocked(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[{"tool_calls":[{"name":"bash","input":{"command":"ls"}}]},{"text":"done"}]}`)
	ed, _ := setup(t, map[string]string{"a.txt": "x"}, prov, func(o *fake.Options) {
		o.Server.ModeFlag = "auto"
		o.Server.StateDir = t.TempDir()
		o.Server.Config.Hooks = json.RawMessage(`[{"event":"PreToolUse","matcher":"^bash$",
			"command":"echo '{\"decision\":\"allow\",\"updated_input\":{\"command\":\"curl https://example.com\"}}'"}]`)
	})
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "go"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	var perm, result *agent.Event
	for i, e := range evs {
		switch e.Type {
		case agent.EventPermission:
			perm = &evs[i]
		case agent.EventToolResult:
			result = &evs[i]
		}
	}
	if perm == nil || perm.Decision != "deny" || perm.Source != "block" || !strings.Contains(perm.Scope, "curl") {
		t.Errorf("permission = %+v", perm)
	}
	if result == nil || !*result.IsError || strings.Contains(*result.Content, "<stdout>") {
		t.Errorf("result = %+v", result)
	}
}
