package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// bareSession is a session with an environment and the built-in tools,
// without a connection: its translator can be driven directly.
func bareSession(t *testing.T) (*session, string) {
	t.Helper()
	root := workspace(t, nil)
	env, err := testApp(t, func() agent.Provider { return nil }).Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	reg, err := env.Registry(config.Config{}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ss := &session{id: "s1", env: env, as: &app.Session{Tools: reg}}
	ss.tr = newTranslator(ss)
	return ss, root
}

func TestTextStreamsOnce(t *testing.T) {
	ss, _ := bareSession(t)
	tr := ss.tr
	var got []string
	for _, e := range []agent.Event{
		{Type: agent.EventTurnStart},
		{Type: agent.EventThinkingDelta, Text: "hm"}, {Type: agent.EventThinking, Text: "hm"},
		{Type: agent.EventTextDelta, Text: "Hel"}, {Type: agent.EventTextDelta, Text: "lo"}, {Type: agent.EventText, Text: "Hello"},
		{Type: agent.EventThinking, Text: "unstreamed thought"}, {Type: agent.EventText, Text: " unstreamed"},
		{Type: agent.EventUsage}, {Type: agent.EventWarning, Message: "not saved"}, {Type: agent.EventTurnEnd},
	} {
		for _, u := range tr.updates(e) {
			switch {
			case u.AgentMessageChunk != nil:
				got = append(got, "msg:"+u.AgentMessageChunk.Content.Text.Text)
			case u.AgentThoughtChunk != nil:
				got = append(got, "thought:"+u.AgentThoughtChunk.Content.Text.Text)
			default:
				b, _ := json.Marshal(u)
				got = append(got, string(b))
			}
		}
	}
	want := []string{"thought:hm", "msg:Hel", "msg:lo", "thought:unstreamed thought", "msg: unstreamed", "msg:\nagentls: not saved\n"}
	if len(got) != len(want) {
		t.Fatalf("updates %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("updates %q, want %q", got, want)
		}
	}
}

func TestToolCallUpdates(t *testing.T) {
	ss, root := bareSession(t)
	tr := ss.tr
	file := filepath.Join(root, "a.go")
	one := func(e agent.Event) sdk.SessionUpdate {
		t.Helper()
		us := tr.updates(e)
		if len(us) != 1 {
			t.Fatalf("%s: %d updates, want 1", e.Type, len(us))
		}
		return us[0]
	}
	call := one(agent.Event{Type: agent.EventToolCall, TurnID: "s1-t2", ID: "call_1", Name: "edit", Title: "edit a.go",
		Input: json.RawMessage(`{"file_path":"a.go","old_string":"x","new_string":"y"}`)}).ToolCall
	if call == nil || call.ToolCallId != "s1-t2/call_1" || call.Kind != sdk.ToolKindEdit || call.Status != sdk.ToolCallStatusPending ||
		len(call.Locations) != 1 || call.Locations[0].Path != file || call.Title != "edit a.go" {
		t.Fatalf("tool_call %+v", call)
	}
	if tr.currentCall() != "s1-t2/call_1" {
		t.Fatalf("current call %q", tr.currentCall())
	}
	if us := tr.updates(agent.Event{Type: agent.EventPermission, Decision: "deny"}); len(us) != 0 {
		t.Fatalf("a deny is shown by the result, not as progress: %+v", us)
	}
	run := one(agent.Event{Type: agent.EventPermission, Decision: "allow"}).ToolCallUpdate
	if run == nil || *run.Status != sdk.ToolCallStatusInProgress || run.ToolCallId != "s1-t2/call_1" {
		t.Fatalf("allowed call %+v", run)
	}
	hunks := tools.DiffHunks("a.go", "package a\nvar x = 1\n", "package a\nvar y = 1\n")
	content, failed := "Edited a.go (+1 −1).", false
	res := one(agent.Event{Type: agent.EventToolResult, TurnID: "s1-t2", ID: "call_1", Name: "edit", IsError: &failed, Content: &content, Hunks: hunks}).ToolCallUpdate
	if *res.Status != sdk.ToolCallStatusCompleted || len(res.Content) != 2 || res.Content[0].Diff == nil || res.Content[1].Content == nil {
		t.Fatalf("result %+v", res)
	}
	d := res.Content[0].Diff
	if d.Path != file || *d.OldText != "package a\nvar x = 1\n" || d.NewText != "package a\nvar y = 1\n" {
		t.Errorf("diff %+v", d)
	}
	if len(res.Locations) != 1 || res.Locations[0].Path != file || *res.Locations[0].Line != 1 {
		t.Errorf("result locations %+v", res.Locations)
	}
	if tr.currentCall() != "" {
		t.Errorf("current call %q after the result", tr.currentCall())
	}
	failed = true
	bad := one(agent.Event{Type: agent.EventToolResult, TurnID: "s1-t2", ID: "call_2", Name: "view", IsError: &failed, Content: &content}).ToolCallUpdate
	if *bad.Status != sdk.ToolCallStatusFailed {
		t.Errorf("an error result is %s", *bad.Status)
	}
}

func TestPlanFromTodos(t *testing.T) {
	u := planUpdate(agent.Event{Type: agent.EventTodos, Message: "1/3", Todos: []tools.Todo{
		{Content: "Read", Status: "completed"}, {Content: "Fix", Status: "in_progress", ActiveForm: "Fixing"}, {Content: "Test", Status: "pending"}}})
	if u.Plan == nil {
		t.Fatal("no plan from a todos event")
	}
	var got []string
	for _, e := range u.Plan.Entries {
		got = append(got, e.Content+":"+string(e.Status)+":"+string(e.Priority))
	}
	want := "Read:completed:medium Fix:in_progress:medium Test:pending:medium"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("plan %s, want %s", s, want)
	}
	// A cleared list clears the client's plan.
	if u := planUpdate(agent.Event{Type: agent.EventTodos, Todos: []tools.Todo{}}); u.Plan == nil || len(u.Plan.Entries) != 0 {
		t.Errorf("a cleared list = %+v, want an empty plan", u.Plan)
	}
}

// TestUsageUpdate: each model step's usage becomes a usage_update with
// what the step put in the context window, the window's size and, when
// the model has a price, the session's cost so far; a subagent's steps do
// not (its window is its own); a turn's end sends the cost again only
// when calls without a step of their own changed it.
func TestUsageUpdate(t *testing.T) {
	ss, _ := bareSession(t)
	ss.as.Session = agent.NewSession("s1", agent.Config{ContextWindow: 200_000})
	usd := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name string
		e    agent.Event
		want string // "" for no update
	}{
		{"an unpriced step", agent.Event{Type: agent.EventUsage, Usage: &agent.Usage{Input: 1200, Output: 300, CacheRead: 1000},
			SessionUsage: &agent.Usage{Input: 1200, Output: 300}},
			`{"sessionUpdate":"usage_update","size":200000,"used":1500}`},
		{"its turn's end", agent.Event{Type: agent.EventTurnEnd, SessionUsage: &agent.Usage{Input: 1200, Output: 300}}, ""},
		{"a priced step", agent.Event{Type: agent.EventUsage, Usage: &agent.Usage{Input: 2000, Output: 100, Cost: usd(0.0075)},
			SessionUsage: &agent.Usage{Input: 3200, Output: 400, Cost: usd(0.0123)}},
			`{"cost":{"amount":0.0123,"currency":"USD"},"sessionUpdate":"usage_update","size":200000,"used":2100}`},
		{"a subagent's step", agent.Event{Type: agent.EventUsage, ParentID: "call_1", Usage: &agent.Usage{Input: 5, Cost: usd(1)},
			SessionUsage: &agent.Usage{Input: 5, Cost: usd(1)}}, ""},
		{"a subagent's turn end", agent.Event{Type: agent.EventTurnEnd, ParentID: "call_1", SessionUsage: &agent.Usage{Input: 5, Cost: usd(1)}}, ""},
		{"a turn end at the cost sent", agent.Event{Type: agent.EventTurnEnd, SessionUsage: &agent.Usage{Input: 3200, Cost: usd(0.0123)}}, ""},
		{"a turn end after the subagent's calls", agent.Event{Type: agent.EventTurnEnd, SessionUsage: &agent.Usage{Input: 3205, Cost: usd(1.0123)}},
			`{"cost":{"amount":1.0123,"currency":"USD"},"sessionUpdate":"usage_update","size":200000,"used":2100}`},
	} {
		got := ss.tr.updates(c.e)
		switch {
		case c.want == "" && len(got) != 0:
			b, _ := json.Marshal(got)
			t.Errorf("%s: sent %s, want nothing", c.name, b)
		case c.want != "" && (len(got) != 1 || got[0].UsageUpdate == nil):
			t.Errorf("%s: updates %+v, want one usage_update", c.name, got)
		case c.want != "":
			if b, _ := json.Marshal(got[0]); string(b) != c.want {
				t.Errorf("%s: usage_update = %s\nwant %s", c.name, b, c.want)
			}
		}
	}
}
