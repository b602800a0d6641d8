package agent_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

func ptr[T any](v T) *T { return &v }

// TestEventJSON pins the `run --json` line of each event type.
func TestEventJSON(t *testing.T) {
	tests := []struct {
		name string
		ev   agent.Event
		want string
	}{
		{"turn_start", agent.Event{Type: agent.EventTurnStart, SessionID: "s1", TurnID: "s1-t1"},
			`{"type":"turn_start","session_id":"s1","turn_id":"s1-t1"}`},
		{"text", agent.Event{Type: agent.EventText, Text: "hi"},
			`{"type":"text","text":"hi"}`},
		{"tool_call", agent.Event{Type: agent.EventToolCall, ID: "c1", Name: "view", Title: "view a.go", Input: json.RawMessage(`{"file_path":"a.go"}`)},
			`{"type":"tool_call","id":"c1","name":"view","title":"view a.go","input":{"file_path":"a.go"}}`},
		{"tool_result ok", agent.Event{Type: agent.EventToolResult, ID: "c1", Name: "view", IsError: ptr(false), Content: ptr("1\tpackage a")},
			`{"type":"tool_result","id":"c1","name":"view","is_error":false,"content":"1\tpackage a"}`},
		{"tool_result empty ok", agent.Event{Type: agent.EventToolResult, ID: "c1", Name: "view", IsError: ptr(false), Content: ptr("")},
			`{"type":"tool_result","id":"c1","name":"view","is_error":false,"content":""}`},
		{"tool_result error", agent.Event{Type: agent.EventToolResult, ID: "c2", Name: "view", IsError: ptr(true), Content: ptr("no such file")},
			`{"type":"tool_result","id":"c2","name":"view","is_error":true,"content":"no such file"}`},
		{"permission", agent.Event{Type: agent.EventPermission, Tool: "edit", Capability: "fs.write", Scope: "/w/a.go", Decision: "deny", Source: "user", Reason: "denied by the user", Channel: "editor"},
			`{"type":"permission","reason":"denied by the user","tool":"edit","capability":"fs.write","scope":"/w/a.go","decision":"deny","source":"user","channel":"editor"}`},
		{"turn_end", agent.Event{Type: agent.EventTurnEnd, Reason: agent.ReasonCompleted},
			`{"type":"turn_end","reason":"completed"}`},
		{"error", agent.Event{Type: agent.EventError, Message: "model x: boom"},
			`{"type":"error","message":"model x: boom"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.ev)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("json\n got %s\nwant %s", b, tt.want)
			}
			var back agent.Event
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			b2, _ := json.Marshal(back)
			if string(b2) != string(b) {
				t.Errorf("round trip changed the line: %s", b2)
			}
		})
	}
}

// TestRunEventJSONShape checks the keys and value types of the events a
// real turn emits, one of each type, against the documented line format.
func TestRunEventJSONShape(t *testing.T) {
	f := newFixture(t, setup{maxSteps: 1, steps: []step{
		calls("Looking.", call("c1", "echo", `{"path":"a.go"}`), call("c2", "nosuch", `{}`)),
	}})
	_, rec := f.runTurn(t, "go")

	common := []string{"type", "session_id", "turn_id"}
	// Per type: the keys every line has, beyond common, with JSON kinds.
	want := map[agent.EventType]map[string]string{
		agent.EventTurnStart:  {},
		agent.EventText:       {"text": "string"},
		agent.EventToolCall:   {"id": "string", "name": "string", "input": "object", "title": "string", "kind": "string"},
		agent.EventPermission: {"id": "string", "kind": "string", "tool": "string", "capability": "string", "scope": "string", "decision": "string", "source": "string", "channel": "string"},
		agent.EventToolResult: {"id": "string", "name": "string", "is_error": "bool", "content": "string"},
		agent.EventError:      {"message": "string"},
		agent.EventTurnEnd:    {"reason": "string"},
	}
	seen := map[agent.EventType]int{}
	sawOK, sawErr := false, false
	for _, e := range rec.all() {
		seen[e.Type]++
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatal(err)
		}
		kinds, ok := want[e.Type]
		if !ok {
			t.Errorf("unexpected event type in %s", b)
			continue
		}
		wantKeys := slices.Concat(common, slices.Collect(maps.Keys(kinds)))
		slices.Sort(wantKeys)
		gotKeys := slices.Sorted(maps.Keys(obj))
		if !slices.Equal(gotKeys, wantKeys) {
			t.Errorf("%s: keys %v, want %v", b, gotKeys, wantKeys)
		}
		for k, kind := range kinds {
			if got := jsonKind(obj[k]); got != kind {
				t.Errorf("%s: %q is a %s, want a %s", b, k, got, kind)
			}
		}
		if e.Type == agent.EventToolResult {
			if obj["is_error"] == true {
				sawErr = true
			} else {
				sawOK = true
			}
		}
	}
	for typ := range want {
		if seen[typ] == 0 {
			t.Errorf("the turn emitted no %s event; types: %v", typ, rec.types())
		}
	}
	if !sawOK || !sawErr {
		t.Errorf("want both an ok and an error tool_result; ok=%v error=%v", sawOK, sawErr)
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return "other"
}

func TestEventString(t *testing.T) {
	tests := []struct {
		ev   agent.Event
		want string
	}{
		{agent.Event{Type: agent.EventTurnStart}, "turn started"},
		{agent.Event{Type: agent.EventText, Text: "hello"}, "agent: hello"},
		{agent.Event{Type: agent.EventToolCall, Name: "view", Input: json.RawMessage("{\n  \"file_path\": \"a.go\"\n}")}, `→ view {"file_path":"a.go"}`},
		{agent.Event{Type: agent.EventToolCall, Name: "view", Input: json.RawMessage(`not json`)}, `→ view not json`},
		{agent.Event{Type: agent.EventToolCall, Name: "ls"}, `→ ls `},
		{agent.Event{Type: agent.EventToolResult, Name: "view", IsError: ptr(false), Content: ptr("one")}, "← view (ok): one"},
		{agent.Event{Type: agent.EventToolResult, Name: "view", IsError: ptr(true), Content: ptr("boom")}, "← view (error): boom"},
		{agent.Event{Type: agent.EventToolResult, Name: "view"}, "← view (ok): "},
		{agent.Event{Type: agent.EventToolResult, Name: "view", IsError: ptr(false), Content: ptr("1\n2\n3")}, "← view (ok): 1\n2\n3"},
		{agent.Event{Type: agent.EventToolResult, Name: "view", IsError: ptr(false), Content: ptr("1\n2\n3\n4\n5")}, "← view (ok): 1\n2\n3\n…"},
		{agent.Event{Type: agent.EventPermission, Decision: "deny", Tool: "edit", Scope: "/w/a.go", Source: "user"}, "permission deny: edit /w/a.go (user)"},
		{agent.Event{Type: agent.EventTurnEnd, Reason: agent.ReasonMaxSteps}, "turn ended: max_steps"},
		{agent.Event{Type: agent.EventTurnEnd, Reason: agent.ReasonCompleted, TurnUsage: &agent.Usage{Input: 1200, Output: 300}}, "turn ended: completed (1200 tokens in, 300 out)"},
		{agent.Event{Type: agent.EventTurnEnd, Reason: agent.ReasonCompleted, TurnUsage: &agent.Usage{Input: 1200, Output: 300, Cost: ptr(0.0081)}}, "turn ended: completed (1200 tokens in, 300 out, $0.0081)"},
		{agent.Event{Type: agent.EventUsage, Usage: &agent.Usage{Input: 1200, CacheRead: 1000, Output: 300}}, "usage: 1200 tokens in (1000 cached), 300 out"},
		{agent.Event{Type: agent.EventUsage, Usage: &agent.Usage{Input: 1200, CacheRead: 1000, Output: 300, Cost: ptr(1.234)}}, "usage: 1200 tokens in (1000 cached), 300 out, $1.23"},
		{agent.Event{Type: agent.EventError, Message: "no key"}, "error: no key"},
		{agent.Event{Type: "future", Text: "x"}, `{"type":"future","text":"x"}`},
	}
	for _, tt := range tests {
		if got := tt.ev.String(); got != tt.want {
			t.Errorf("String() of %+v =\n%q\nwant\n%q", tt.ev, got, tt.want)
		}
	}
}

// TestEventStringOfRealTurn: every event a turn emits renders as a known
// transcript line (none falls back to JSON).
func TestEventStringOfRealTurn(t *testing.T) {
	f := newFixture(t, setup{steps: []step{calls("Looking.", call("c1", "echo", `{"path":"a.go"}`)), text("Done.")}})
	_, rec := f.runTurn(t, "go")
	var lines []string
	for _, e := range rec.all() {
		lines = append(lines, e.String())
	}
	want := []string{
		"turn started",
		"agent: Looking.",
		`→ echo {"path":"a.go"}`,
		"permission allow: echo /ws/a.go (default)",
		"← echo (ok): echo ran on a.go",
		"agent: Done.",
		"turn ended: completed",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("transcript\n%q\nwant\n%q", lines, want)
	}
}

func TestUserMessage(t *testing.T) {
	tests := []struct {
		name string
		c    *agent.Context
		want string
	}{
		{"no context", nil, "fix it"},
		{"no file", &agent.Context{StartLine: 1, EndLine: 2, Selected: "x"}, "fix it"},
		{"file only", &agent.Context{File: "main.go"}, "fix it\n\nThe user is in main.go."},
		{"selection", &agent.Context{File: "a/b.go", StartLine: 3, EndLine: 5, Selected: "x := 1\ny := 2\n\n"},
			"fix it\n\nThe user is in a/b.go with lines 3-5 selected:\n```\nx := 1\ny := 2\n```"},
		{"cursor", &agent.Context{File: "a/b.go", StartLine: 18, EndLine: 18, Selected: "return x\n", Cursor: true},
			"fix it\n\nThe user is in a/b.go at line 18:\n```\nreturn x\n```"},
	}
	for _, tt := range tests {
		if got := agent.UserMessage("fix it", tt.c); got != tt.want {
			t.Errorf("%s: UserMessage =\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
}
