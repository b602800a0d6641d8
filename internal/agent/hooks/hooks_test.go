package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	got, err := Parse([]byte(`[
		{"event": "PreToolUse", "matcher": "^(edit|multiedit|write)$", "command": "./scripts/guard.sh", "timeout": 30},
		{"event": "pre_tool_use", "command": "true"},
		{"event": "stop", "command": "echo hi"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Config{
		{Event: PreToolUse, Matcher: "^(edit|multiedit|write)$", Command: "./scripts/guard.sh", Timeout: 30},
		{Event: PreToolUse, Command: "true"},
		{Event: Stop, Command: "echo hi"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	for _, empty := range []string{"", "null", " [] "} {
		if got, err := Parse([]byte(empty)); err != nil || len(got) != 0 {
			t.Errorf("Parse(%q) = %v, %v", empty, got, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, json, want string }{
		{"invalid regexp", `[{"event":"PreToolUse","matcher":"^(edit","command":"true"}]`, `hooks[0]: matcher "^(edit" is not a valid Go regular expression`},
		{"matcher on non-tool event", `[{"event":"Stop","matcher":"x","command":"true"}]`, "Stop is not a tool event"},
		{"unknown event", `[{"event":"BeforeLunch","command":"true"}]`, `unknown event "BeforeLunch"`},
		{"missing event", `[{"command":"true"}]`, "event is required"},
		{"missing command", `[{"event":"Stop","command":"  "}]`, "command is required"},
		{"bad shell", `[{"event":"Stop","command":"echo 'open"}]`, "not valid shell"},
		{"negative timeout", `[{"event":"Stop","command":"true","timeout":-1}]`, "out of range"},
		{"huge timeout", `[{"event":"Stop","command":"true","timeout":99999999999}]`, "out of range"},
		{"unknown key", `[{"event":"Stop","command":"true","comand":"x"}]`, `unknown field "comand"`},
		{"not an array", `{"event":"Stop"}`, "write an array"},
		{"trailing data", `[] []`, "after the array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.json))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	// Every bad entry is reported, not just the first.
	_, err := Parse([]byte(`[{"event":"Stop","command":"true"},{"event":"x","command":"true"},{"event":"PreToolUse","matcher":"(","command":"true"}]`))
	if err == nil || !strings.Contains(err.Error(), "hooks[1]") || !strings.Contains(err.Error(), "hooks[2]") {
		t.Errorf("err = %v, want both hooks[1] and hooks[2]", err)
	}
}

func TestNewValidates(t *testing.T) {
	dir := func() string { return "/" }
	if _, err := New([]Config{{Event: PreToolUse, Matcher: "[", Command: "true"}}, Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "regular expression") {
		t.Errorf("invalid matcher: err = %v", err)
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("missing Dir: no error")
	}
	r, err := New([]Config{{Event: "posttooluse", Matcher: "^view$", Command: "true"}}, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Matches(PostToolUse, "view") || r.Matches(PostToolUse, "edit") || r.Matches(PreToolUse, "view") {
		t.Error("Matches is wrong")
	}
}

func TestCollectTrust(t *testing.T) {
	trustedRoot, untrustedRoot := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(trustedRoot, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	sources := []Source{
		{Name: "config.json", Hooks: json.RawMessage(`[{"event":"Stop","command":"echo user"}]`)},
		{Name: "editor settings", Hooks: json.RawMessage(`[{"event":"Stop","command":"echo editor"}]`)},
		{Name: untrustedRoot + "/.agentls.json", Root: untrustedRoot, Hooks: json.RawMessage(`[{"event":"Stop","command":"echo evil"}]`)},
		// Broken JSON in an untrusted file is not even parsed.
		{Name: "broken", Root: untrustedRoot, Hooks: json.RawMessage(`[{`)},
		{Name: "empty", Root: untrustedRoot, Hooks: json.RawMessage(`[]`)},
		{Name: trustedRoot + "/.agentls.json", Root: trustedRoot, Hooks: json.RawMessage(`[{"event":"Stop","command":"echo trusted"}]`)},
	}
	// Trust is recorded through a symbolic link and with a trailing slash.
	got, warnings, err := Collect(sources, []string{link + "/", "relative/path"})
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, c := range got {
		cmds = append(cmds, c.Command)
	}
	if want := []string{"echo user", "echo editor", "echo trusted"}; !reflect.DeepEqual(cmds, want) {
		t.Errorf("commands = %q, want %q", cmds, want)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "not trusted") || !strings.Contains(warnings[0], "agentls trust "+untrustedRoot) {
		t.Errorf("warnings = %q", warnings)
	}
	// The one trust rule: a parent folder is not trust for the
	// repositories below it, unless it is written "parent/**".
	child := []Source{{Name: "child", Root: trustedRoot, Hooks: json.RawMessage(`[{"event":"Stop","command":"echo child"}]`)}}
	if got, _, _ := Collect(child, []string{filepath.Dir(trustedRoot)}); len(got) != 0 {
		t.Error("a parent folder trusted its child")
	}
	if got, _, _ := Collect(child, []string{filepath.Dir(trustedRoot) + "/**"}); len(got) != 1 {
		t.Error("parent/** did not trust the folder below it")
	}

	// A broken trusted source is an error naming it; the others still load.
	got, _, err = Collect([]Source{
		{Name: "config.json", Hooks: json.RawMessage(`[{"event":"Stop","command":"true"}]`)},
		{Name: "editor settings", Hooks: json.RawMessage(`[{"event":"PreToolUse","matcher":"(","command":"true"}]`)},
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "editor settings: hooks[0]: matcher") || len(got) != 1 {
		t.Errorf("got %v, err %v", got, err)
	}
}

func TestParseOutput(t *testing.T) {
	cases := []struct {
		name, out string
		want      verdict
		warn      string // a warning containing this, or none when empty
		err       bool
	}{
		{name: "empty", out: " \n", want: verdict{}},
		{name: "allow", out: `{"decision":"allow"}`, want: verdict{decision: Allow}},
		{name: "deny with reason", out: `{"decision":"deny","reason":"no"}`, want: verdict{decision: Deny, reason: "no"}},
		{name: "deny default reason", out: `{"decision":"DENY"}`, want: verdict{decision: Deny, reason: defaultDenyReason}},
		{name: "block (Claude Code)", out: `{"decision":"block","reason":"say more"}`, want: verdict{decision: Deny, reason: "say more"}},
		{name: "approve (Claude Code)", out: `{"decision":"approve"}`, want: verdict{decision: Allow}},
		{name: "context string", out: `{"context":" look at x "}`, want: verdict{context: "look at x"}},
		{name: "context array", out: `{"context":["a","","b"]}`, want: verdict{context: "a\nb"}},
		{name: "updated input", out: `{"updated_input":{"path":"b","n":2}}`, want: verdict{patch: map[string]json.RawMessage{"path": json.RawMessage(`"b"`), "n": json.RawMessage(`2`)}}},
		{name: "updated input as string", out: `{"updated_input":"{\"n\":3}"}`, want: verdict{patch: map[string]json.RawMessage{"n": json.RawMessage(`3`)}}},
		{name: "updated input not object", out: `{"decision":"allow","updated_input":[1]}`, want: verdict{decision: Allow}, warn: "updated_input ignored"},
		{name: "halt", out: `{"halt":true,"reason":"stop now"}`, want: verdict{decision: Deny, reason: "stop now", halt: true, haltReason: "stop now"}},
		{name: "continue false", out: `{"continue":false,"stopReason":"done"}`, want: verdict{decision: Deny, reason: "done", halt: true, haltReason: "done"}},
		{name: "halt default reason", out: `{"halt":true}`, want: verdict{decision: Deny, reason: defaultHaltReason, halt: true, haltReason: defaultHaltReason}},
		{name: "specific deny", out: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not there"}}`, want: verdict{decision: Deny, reason: "not there"}},
		{
			name: "specific allow with input and context",
			out:  `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine","updatedInput":{"a":1},"additionalContext":"ctx"}}`,
			want: verdict{decision: Allow, reason: "fine", context: "ctx", patch: map[string]json.RawMessage{"a": json.RawMessage(`1`)}},
		},
		{name: "specific ask is no opinion", out: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, want: verdict{}},
		{name: "specific wrong event", out: `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}`, want: verdict{decision: Deny, reason: defaultDenyReason}, warn: "hookEventName"},
		{name: "native deny beats specific allow", out: `{"decision":"deny","reason":"r","hookSpecificOutput":{"permissionDecision":"allow"}}`, want: verdict{decision: Deny, reason: "r"}},
		{name: "both inputs, specific later wins", out: `{"updated_input":{"a":1,"b":1},"hookSpecificOutput":{"updatedInput":{"b":2}}}`, want: verdict{patch: map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`2`)}}},
		{name: "unknown decision", out: `{"decision":"maybe"}`, want: verdict{}, warn: `unknown decision "maybe"`},
		{name: "unknown fields ignored", out: `{"version":2,"suppressOutput":true}`, want: verdict{}},
		{name: "malformed", out: `{"decision":`, err: true},
		{name: "plain text", out: `all good`, err: true},
		{name: "array", out: `[1]`, err: true},
		{name: "wrong type", out: `{"halt":"yes"}`, err: true},
		{name: "bad context", out: `{"context":{"a":1}}`, err: true},
		{name: "trailing garbage", out: `{} x`, err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, warnings, err := parseOutput(PreToolUse, c.out)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if err != nil && (!reflect.DeepEqual(got, verdict{}) || !strings.Contains(err.Error(), "JSON object") && !strings.Contains(err.Error(), "context")) {
				t.Errorf("on error: verdict %+v, err %v", got, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("verdict = %+v, want %+v", got, c.want)
			}
			if c.warn == "" && len(warnings) > 0 || c.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], c.warn)) {
				t.Errorf("warnings = %q, want one containing %q", warnings, c.warn)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	res := merge([]verdict{
		{decision: Allow, reason: "fine", context: "c1", patch: map[string]json.RawMessage{"a": raw("1"), "b": raw("1")}},
		{},
		{decision: Deny, reason: "no", context: "c2", patch: map[string]json.RawMessage{"b": raw("2")}},
		{decision: Allow, context: "c3", patch: map[string]json.RawMessage{"c": raw("3")}},
		{decision: Deny, reason: "never"},
	})
	want := Result{
		Decision: Deny, Reason: "no\nnever", Context: "c1\nc2\nc3",
		UpdatedInput: map[string]json.RawMessage{"a": raw("1"), "b": raw("2"), "c": raw("3")},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("got %+v\nwant %+v", res, want)
	}
	res = merge([]verdict{{decision: Allow, reason: "a"}, {}, {decision: Allow, reason: "b"}})
	if res.Decision != Allow || res.Reason != "a\nb" || res.Halt {
		t.Errorf("allow merge: %+v", res)
	}
	res = merge([]verdict{{decision: Deny, reason: "x", halt: true, haltReason: "x"}, {decision: Allow}})
	if !res.Halt || res.HaltReason != "x" || res.Decision != Deny {
		t.Errorf("halt is sticky: %+v", res)
	}
	if res := merge(nil); !reflect.DeepEqual(res, Result{}) {
		t.Errorf("empty merge: %+v", res)
	}
}

func TestApplyInput(t *testing.T) {
	got, err := ApplyInput(json.RawMessage(`{"path":"a","opts":{"x":1},"keep":true}`),
		map[string]json.RawMessage{"path": json.RawMessage(`"b"`), "opts": json.RawMessage(`{"y":2}`)})
	if err != nil || string(got) != `{"keep":true,"opts":{"y":2},"path":"b"}` {
		t.Errorf("got %s, %v", got, err)
	}
	if got, err := ApplyInput(nil, map[string]json.RawMessage{"a": json.RawMessage(`1`)}); err != nil || string(got) != `{"a":1}` {
		t.Errorf("empty input: %s, %v", got, err)
	}
	if got, err := ApplyInput(json.RawMessage(`{"a":1}`), nil); err != nil || string(got) != `{"a":1}` {
		t.Errorf("no patch: %s, %v", got, err)
	}
	if _, err := ApplyInput(json.RawMessage(`[1]`), map[string]json.RawMessage{"a": json.RawMessage(`1`)}); err == nil {
		t.Error("array input: no error")
	}
}

func TestStopLimit(t *testing.T) {
	l := NewStopLimit(2)
	if !l.Continue() || !l.Continue() || l.Continue() || l.Continue() {
		t.Error("limit 2 must allow exactly two continuations")
	}
	if l.Used() != 2 || l.Max() != 2 {
		t.Errorf("used %d max %d", l.Used(), l.Max())
	}
	l = NewStopLimit(0)
	n := 0
	for l.Continue() {
		n++
	}
	if n != 8 {
		t.Errorf("default allowed %d", n)
	}
}

func TestEventJSON(t *testing.T) {
	b, err := json.Marshal(Event{Type: TypeRun, Event: PreToolUse, Command: "./guard.sh", ExitCode: 0, Decision: "none", DurationMS: 0, Message: "not shown"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"hook","event":"PreToolUse","command":"./guard.sh","exit_code":0,"decision":"none","duration_ms":0}`; string(b) != want {
		t.Errorf("run event:\n got %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(Event{Type: TypeWarning, Event: Stop, Command: "x", ExitCode: 3, Message: "fix it"})
	if want := `{"type":"hook_warning","event":"Stop","command":"x","message":"fix it"}`; string(b) != want {
		t.Errorf("warning event:\n got %s\nwant %s", b, want)
	}
}

func TestPayload(t *testing.T) {
	b, err := payload(Input{Event: PreToolUse, SessionID: "s", TurnID: "t", ToolName: "edit", ToolInput: json.RawMessage(`{"a":1}`), Prompt: "ignored"}, "/w")
	if err != nil || string(b) != `{"event":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/w","tool_name":"edit","tool_input":{"a":1}}`+"\n" {
		t.Errorf("PreToolUse: %s %v", b, err)
	}
	b, _ = payload(Input{Event: PostToolUseFailure, ToolName: "bash", ToolInput: json.RawMessage(`{"command":`), ToolResult: "boom"}, "/w")
	if string(b) != `{"event":"PostToolUseFailure","session_id":"","turn_id":"","cwd":"/w","tool_name":"bash","tool_input":"{\"command\":","tool_result":"boom","is_error":true}`+"\n" {
		t.Errorf("PostToolUseFailure: %s", b)
	}
	b, _ = payload(Input{Event: UserPromptSubmit, Prompt: "hi", ToolName: "x"}, "/w")
	if string(b) != `{"event":"UserPromptSubmit","session_id":"","turn_id":"","cwd":"/w","prompt":"hi"}`+"\n" {
		t.Errorf("UserPromptSubmit: %s", b)
	}
	b, _ = payload(Input{Event: Stop, StopReason: "end_turn"}, "/w")
	if string(b) != `{"event":"Stop","session_id":"","turn_id":"","cwd":"/w","stop_reason":"end_turn"}`+"\n" {
		t.Errorf("Stop: %s", b)
	}
}

func TestWithEnvQuotes(t *testing.T) {
	got := withEnv(Input{Event: PreToolUse, ToolName: "it's"}, "echo hi")
	if want := `export AGENTLS_HOOK_EVENT=PreToolUse; export AGENTLS_TOOL_NAME="it's"; echo hi`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := withEnv(Input{Event: Stop, ToolName: "x"}, "true"); got != "export AGENTLS_HOOK_EVENT=Stop; true" {
		t.Errorf("non-tool event: %s", got)
	}
}
