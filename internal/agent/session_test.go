package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/hooks"
	"github.com/agentls/agentls/internal/agent/providertest"
	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// waitLimit bounds every wait: a cancelled turn must end well before it.
const waitLimit = 5 * time.Second

// ---- scripted provider ----

// step is one scripted model answer.
type step struct {
	resp agent.Response
	err  error
	// block makes the request wait for its context, like a slow network.
	block bool
}

// scripted is an agent.Provider that plays steps and records requests.
type scripted struct {
	steps []step
	// inFlight, when set, receives a value when a blocking step starts.
	inFlight chan struct{}

	mu   sync.Mutex
	reqs []agent.Request
}

func (p *scripted) Name() string { return "test:scripted" }

func (p *scripted) Complete(ctx context.Context, req agent.Request, _ agent.Stream) (agent.Response, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	i := len(p.reqs) - 1
	p.mu.Unlock()
	if i >= len(p.steps) {
		return agent.Response{}, fmt.Errorf("scripted provider: no step %d", i+1)
	}
	s := p.steps[i]
	if s.block {
		if p.inFlight != nil {
			p.inFlight <- struct{}{}
		}
		<-ctx.Done()
		return agent.Response{}, ctx.Err()
	}
	return s.resp, s.err
}

func (p *scripted) requests() []agent.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.reqs)
}

func text(s string) step { return step{resp: agent.Response{Text: s}} }

func calls(txt string, cs ...agent.ToolCall) step {
	return step{resp: agent.Response{Text: txt, ToolCalls: cs}}
}

func call(id, name, input string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

// ---- in-test tools ----

// runLog records tool runs in order.
type runLog struct {
	mu   sync.Mutex
	runs []string
}

func (l *runLog) add(s string) {
	l.mu.Lock()
	l.runs = append(l.runs, s)
	l.mu.Unlock()
}

func (l *runLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.runs)
}

// testTool takes {"path": string}. Read-only tools are allowed in smart
// mode; others are asked.
type testTool struct {
	name     string
	readOnly bool
	blocked  string
	log      *runLog
	// run replaces the default result "<name> ran on <path>".
	run func(ctx context.Context, path string) (tools.Result, error)
}

func (t *testTool) Spec() tools.Spec {
	s := tools.Spec{
		Name:        t.name,
		Description: "a test tool",
		Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		Capability:  "test.write",
		Action:      permission.ActionWrite,
		ReadOnly:    t.readOnly,
	}
	if t.readOnly {
		s.Capability, s.Action = "test.read", permission.ActionRead
	}
	return s
}

func (t *testTool) parse(call tools.Call) (string, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := tools.DecodeInput(call, t.name, &in); err != nil {
		return "", err
	}
	return in.Path, nil
}

func (t *testTool) Describe(_ context.Context, call tools.Call) (permission.Request, error) {
	path, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	s := t.Spec()
	return permission.Request{
		Tool: t.name, Capability: s.Capability, Action: s.Action, ReadOnly: s.ReadOnly,
		Paths: []string{"/ws/" + path}, Blocked: t.blocked,
	}, nil
}

func (t *testTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	path, err := t.parse(call)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	t.log.add(t.name + " " + path)
	if t.run != nil {
		return t.run(ctx, path)
	}
	return tools.Result{Content: t.name + " ran on " + path}, nil
}

// ---- asker ----

type askerFunc func(ctx context.Context, q permission.Question) (permission.Answer, error)

func (f askerFunc) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	return f(ctx, q)
}

func answer(a permission.Answer) permission.Asker {
	return askerFunc(func(context.Context, permission.Question) (permission.Answer, error) { return a, nil })
}

// ---- harness ----

// recorder collects a turn's events; emit is called from the turn's
// goroutine.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) emit(e agent.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *recorder) types() []agent.EventType {
	var ts []agent.EventType
	for _, e := range r.all() {
		ts = append(ts, e.Type)
	}
	return ts
}

func (r *recorder) ofType(t agent.EventType) []agent.Event {
	var out []agent.Event
	for _, e := range r.all() {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

type fixture struct {
	prov *scripted
	log  *runLog
	sess *agent.Session
	// slowStarted receives a value when the "slow" tool starts.
	slowStarted chan struct{}
}

type setup struct {
	steps    []step
	mode     permission.Mode
	asker    permission.Asker
	maxSteps int
	hooks    []hooks.Config
	hookDir  string
	maxStops int
}

// newFixture builds a session "s" with the tools echo (read-only), write
// (asked in smart mode), block (always blocked) and slow (read-only, runs
// until cancelled).
func newFixture(t *testing.T, su setup) *fixture {
	t.Helper()
	f := &fixture{
		prov:        &scripted{steps: su.steps, inFlight: make(chan struct{}, 1)},
		log:         &runLog{},
		slowStarted: make(chan struct{}, 1),
	}
	reg, err := tools.NewRegistry(
		&testTool{name: "write", log: f.log},
		&testTool{name: "echo", readOnly: true, log: f.log},
		&testTool{name: "block", log: f.log, blocked: "this call is never allowed"},
		&testTool{name: "slow", readOnly: true, log: f.log, run: func(ctx context.Context, _ string) (tools.Result, error) {
			f.slowStarted <- struct{}{}
			<-ctx.Done()
			return tools.Result{}, ctx.Err()
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	mode := su.mode
	if mode == "" {
		mode = permission.ModeSmart
	}
	f.sess = agent.NewSession("s", agent.Config{
		Provider: f.prov,
		Tools:    reg,
		Gate:     permission.NewGate(mode, su.asker, nil),
		MaxSteps: su.maxSteps,
		Channel:  "editor",
		Hooks:    su.hooks,
		HookDir:  func() string { return su.hookDir },

		MaxStopContinuations: su.maxStops,
	})
	return f
}

// runTurn starts a turn and waits for its end.
func (f *fixture) runTurn(t *testing.T, prompt string) (agent.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	return providertest.RunTurn(t, f.sess, prompt, rec.emit), rec
}

func wait(t *testing.T, turn *agent.Turn) agent.Result {
	t.Helper()
	return providertest.Wait(t, turn)
}

// toolMsg is the history entry answering call id.
func toolMsg(id, name, content string) agent.Message {
	return agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: name, Content: content}
}

func checkMessages(t *testing.T, got, want []agent.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d:\n%s", len(got), len(want), dump(got))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Role != w.Role || g.ToolCallID != w.ToolCallID || g.Name != w.Name || len(g.ToolCalls) != len(w.ToolCalls) {
			t.Errorf("message %d = %s, want %s", i, dump([]agent.Message{g}), dump([]agent.Message{w}))
			continue
		}
		// Content: exact, or a prefix when the wanted one ends with "*".
		if p, ok := strings.CutSuffix(w.Content, "*"); ok {
			if !strings.HasPrefix(g.Content, p) {
				t.Errorf("message %d content %q, want prefix %q", i, g.Content, p)
			}
		} else if g.Content != w.Content {
			t.Errorf("message %d content %q, want %q", i, g.Content, w.Content)
		}
		for j := range w.ToolCalls {
			gc, wc := g.ToolCalls[j], w.ToolCalls[j]
			if gc.ID != wc.ID || gc.Name != wc.Name || string(gc.Input) != string(wc.Input) {
				t.Errorf("message %d tool call %d = %+v, want %+v", i, j, gc, wc)
			}
		}
	}
}

func dump(ms []agent.Message) string {
	var b strings.Builder
	for _, m := range ms {
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkAnswered asserts the history is valid for OpenAI-style APIs: every
// assistant message with tool calls is followed by exactly one tool
// message per call id, before any other message.
func checkAnswered(t *testing.T, msgs []agent.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == agent.RoleTool {
			t.Errorf("message %d: tool message %q answers no pending call", i, m.ToolCallID)
			continue
		}
		if m.Role != agent.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		pending := map[string]bool{}
		for _, c := range m.ToolCalls {
			pending[c.ID] = true
		}
		for len(pending) > 0 {
			i++
			if i >= len(msgs) || msgs[i].Role != agent.RoleTool || !pending[msgs[i].ToolCallID] {
				t.Errorf("assistant message with calls %v: unanswered %v in\n%s", m.ToolCalls, pending, dump(msgs))
				return
			}
			delete(pending, msgs[i].ToolCallID)
		}
	}
}

func eventTypes(ts ...agent.EventType) []agent.EventType { return ts }

const (
	tStart  = agent.EventTurnStart
	tText   = agent.EventText
	tCall   = agent.EventToolCall
	tPerm   = agent.EventPermission
	tResult = agent.EventToolResult
	tEnd    = agent.EventTurnEnd
	tErr    = agent.EventError
)

// ---- tests ----

func TestAnswerWithoutToolCalls(t *testing.T) {
	f := newFixture(t, setup{steps: []step{text("The answer is 42.")}})
	res, rec := f.runTurn(t, "what is the answer?")
	if res.Reason != agent.ReasonCompleted || res.Text != "The answer is 42." || res.Err != nil {
		t.Errorf("result = %+v, want completed with the text", res)
	}
	if got, want := rec.types(), eventTypes(tStart, tText, tEnd); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	evs := rec.all()
	if evs[1].Text != "The answer is 42." || evs[2].Reason != agent.ReasonCompleted {
		t.Errorf("events %+v", evs)
	}
	for _, e := range evs {
		if e.SessionID != "s" || e.TurnID != "s-t1" {
			t.Errorf("event %s has session %q turn %q, want s and s-t1", e.Type, e.SessionID, e.TurnID)
		}
	}
	reqs := f.prov.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if reqs[0].System != agent.DefaultSystemPrompt {
		t.Errorf("system prompt = %q, want the default", reqs[0].System)
	}
	checkMessages(t, reqs[0].Messages, []agent.Message{{Role: agent.RoleUser, Content: "what is the answer?"}})
	var names []string
	for _, d := range reqs[0].Tools {
		names = append(names, d.Name)
		if d.Description == "" || !json.Valid(d.Schema) {
			t.Errorf("tool def %+v lacks a description or schema", d)
		}
	}
	if want := []string{"block", "echo", "slow", "write"}; !slices.Equal(names, want) {
		t.Errorf("tools offered %v, want %v", names, want)
	}
	if f.sess.Current() != nil {
		t.Error("Current() is not nil after the turn ended")
	}
}

func TestCustomSystemPrompt(t *testing.T) {
	prov := &scripted{steps: []step{text("ok")}}
	reg, _ := tools.NewRegistry()
	s := agent.NewSession("x", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate("", nil, nil), System: "be brief"})
	turn, err := s.Start(context.Background(), "hi", func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, turn)
	if r := prov.requests(); len(r) != 1 || r[0].System != "be brief" || len(r[0].Tools) != 0 {
		t.Errorf("requests %+v, want one with the custom system prompt and no tools", r)
	}
}

func TestToolCallsExecutedAndFedBack(t *testing.T) {
	c1, c2 := call("c1", "echo", `{"path":"a.go"}`), call("c2", "echo", `{"path":"b.go"}`)
	f := newFixture(t, setup{steps: []step{calls("Let me look.", c1, c2), text("Both files are fine.")}})
	res, rec := f.runTurn(t, "check a and b")
	if res.Reason != agent.ReasonCompleted || res.Text != "Both files are fine." {
		t.Errorf("result = %+v", res)
	}
	if got, want := f.log.get(), []string{"echo a.go", "echo b.go"}; !slices.Equal(got, want) {
		t.Errorf("tool runs %v, want %v", got, want)
	}
	want := eventTypes(tStart, tText, tCall, tPerm, tResult, tCall, tPerm, tResult, tText, tEnd)
	if got := rec.types(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	callEvs, resEvs := rec.ofType(tCall), rec.ofType(tResult)
	for i, c := range []agent.ToolCall{c1, c2} {
		ce, re := callEvs[i], resEvs[i]
		if ce.ID != c.ID || ce.Name != "echo" || string(ce.Input) != string(c.Input) {
			t.Errorf("tool_call event %+v, want %+v", ce, c)
		}
		wantPath := strings.TrimSuffix(strings.TrimPrefix(string(c.Input), `{"path":"`), `"}`)
		if ce.Title != "echo "+wantPath {
			t.Errorf("tool_call title %q, want %q", ce.Title, "echo "+wantPath)
		}
		if re.ID != c.ID || re.Name != "echo" || re.IsError == nil || *re.IsError || re.Content == nil || *re.Content != "echo ran on "+wantPath {
			t.Errorf("tool_result event %s", mustJSON(t, re))
		}
	}
	reqs := f.prov.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	checkMessages(t, reqs[1].Messages, []agent.Message{
		{Role: agent.RoleUser, Content: "check a and b"},
		{Role: agent.RoleAssistant, Content: "Let me look.", ToolCalls: []agent.ToolCall{c1, c2}},
		toolMsg("c1", "echo", "echo ran on a.go"),
		toolMsg("c2", "echo", "echo ran on b.go"),
	})
	checkAnswered(t, reqs[1].Messages)
	for _, m := range reqs[1].Messages[2:] {
		if m.IsError {
			t.Errorf("successful result %+v is marked IsError", m)
		}
	}
}

// TestToolErrorsContinueTurn: calls the model can fix become error results
// and the turn goes on.
func TestToolErrorsContinueTurn(t *testing.T) {
	tests := []struct {
		name        string
		call        agent.ToolCall
		mode        permission.Mode
		contentPart []string
		// perm is the permission event wanted, "" for none.
		permSource string
	}{
		{
			name:        "unknown tool",
			call:        call("c1", "nosuch", `{}`),
			contentPart: []string{`unknown tool "nosuch"`, "available tools: block, echo, slow, write"},
		},
		{
			name:        "invalid input",
			call:        call("c1", "echo", `{"path":3}`),
			contentPart: []string{"echo: invalid input", `{"path":3}`},
		},
		{
			name:        "input not an object",
			call:        call("c1", "echo", `"a.go"`),
			contentPart: []string{"echo: invalid input"},
		},
		{
			name:        "blocked in smart mode",
			call:        call("c1", "block", `{"path":"x"}`),
			contentPart: []string{"permission denied (block): this call is never allowed"},
			permSource:  "block",
		},
		{
			name:        "blocked in auto mode",
			call:        call("c1", "block", `{"path":"x"}`),
			mode:        permission.ModeAuto,
			contentPart: []string{"permission denied (block): this call is never allowed"},
			permSource:  "block",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			asker := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
				asked = true
				return permission.AnswerAllow, nil
			})
			f := newFixture(t, setup{mode: tt.mode, asker: asker, steps: []step{calls("", tt.call), text("I see.")}})
			res, rec := f.runTurn(t, "go")
			if res.Reason != agent.ReasonCompleted || res.Text != "I see." {
				t.Errorf("result = %+v, want completed after the error result", res)
			}
			if runs := f.log.get(); len(runs) != 0 {
				t.Errorf("tools ran: %v", runs)
			}
			if asked {
				t.Error("a person was asked")
			}
			results := rec.ofType(tResult)
			if len(results) != 1 || results[0].IsError == nil || !*results[0].IsError || results[0].Content == nil {
				t.Fatalf("tool_result events %+v, want one error", results)
			}
			content := *results[0].Content
			for _, p := range tt.contentPart {
				if !strings.Contains(content, p) {
					t.Errorf("result %q does not contain %q", content, p)
				}
			}
			perms := rec.ofType(tPerm)
			switch {
			case tt.permSource == "" && len(perms) != 0:
				t.Errorf("permission events %+v, want none", perms)
			case tt.permSource != "" && (len(perms) != 1 || perms[0].Decision != "deny" || perms[0].Source != tt.permSource || perms[0].Reason == ""):
				t.Errorf("permission events %+v, want one deny from %s with a reason", perms, tt.permSource)
			}
			reqs := f.prov.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			checkMessages(t, reqs[1].Messages, []agent.Message{
				{Role: agent.RoleUser, Content: "go"},
				{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{tt.call}},
				toolMsg("c1", tt.call.Name, content),
			})
			if m := reqs[1].Messages[2]; !m.IsError {
				t.Errorf("tool message %+v is not marked IsError, so providers cannot flag it", m)
			}
		})
	}
}

// TestPersonDenies: a person's no stops the turn; the calls after the
// denied one are not run but still answered in the history.
func TestPersonDenies(t *testing.T) {
	tests := []struct {
		name        string
		asker       permission.Asker
		contentPart string
	}{
		{"deny", answer(permission.AnswerDeny), "The user denied this call. The turn ends here; do not retry."},
		{"ask fails", askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
			return "", errors.New("editor went away")
		}), "The user denied this call (ask failed: editor went away)."},
		{"nobody to ask", nil, "The user denied this call (no one to ask: run with --mode auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c1, c2, c3 := call("c1", "echo", `{"path":"a"}`), call("c2", "write", `{"path":"b"}`), call("c3", "echo", `{"path":"c"}`)
			f := newFixture(t, setup{asker: tt.asker, steps: []step{
				calls("Editing.", c1, c2, c3),
				text("OK, I won't."), // for the next turn
			}})
			res, rec := f.runTurn(t, "edit b")
			if res.Reason != agent.ReasonDenied || res.Text != "Editing." || res.Err != nil {
				t.Errorf("result = %+v, want denied", res)
			}
			if got := f.log.get(); !slices.Equal(got, []string{"echo a"}) {
				t.Errorf("tool runs %v, want only the call before the denied one", got)
			}
			want := eventTypes(tStart, tText, tCall, tPerm, tResult, tCall, tPerm, tResult, tEnd)
			if got := rec.types(); !slices.Equal(got, want) {
				t.Errorf("events %v, want %v", got, want)
			}
			perms := rec.ofType(tPerm)
			if len(perms) == 2 && (perms[1].Decision != "deny" || perms[1].Source != "user" || perms[1].Tool != "write") {
				t.Errorf("permission event %+v, want deny by user for write", perms[1])
			}
			results := rec.ofType(tResult)
			if len(results) == 2 {
				r := results[1]
				if r.ID != "c2" || r.IsError == nil || !*r.IsError || r.Content == nil || !strings.Contains(*r.Content, tt.contentPart) {
					t.Errorf("denied tool_result %s, want an error containing %q", mustJSON(t, r), tt.contentPart)
				}
			}
			if end := rec.ofType(tEnd); len(end) != 1 || end[0].Reason != agent.ReasonDenied {
				t.Errorf("turn_end events %+v, want reason denied", end)
			}
			if n := len(f.prov.requests()); n != 1 {
				t.Errorf("%d model requests, want 1", n)
			}

			// The next turn sends a history where every call is answered.
			res2, _ := f.runTurn(t, "never mind")
			if res2.Reason != agent.ReasonCompleted {
				t.Errorf("second turn = %+v", res2)
			}
			reqs := f.prov.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			msgs := reqs[1].Messages
			checkMessages(t, msgs, []agent.Message{
				{Role: agent.RoleUser, Content: "edit b"},
				{Role: agent.RoleAssistant, Content: "Editing.", ToolCalls: []agent.ToolCall{c1, c2, c3}},
				toolMsg("c1", "echo", "echo ran on a"),
				toolMsg("c2", "write", "The user denied this call*"),
				toolMsg("c3", "echo", "Not run: the turn ended (denied)."),
				{Role: agent.RoleUser, Content: "never mind"},
			})
			checkAnswered(t, msgs)
		})
	}
}

func TestPersonAllows(t *testing.T) {
	var questions []permission.Question
	asker := askerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
		questions = append(questions, q)
		return permission.AnswerAllow, nil
	})
	f := newFixture(t, setup{asker: asker, steps: []step{calls("", call("c1", "write", `{"path":"b"}`)), text("done")}})
	res, rec := f.runTurn(t, "edit b")
	if res.Reason != agent.ReasonCompleted {
		t.Errorf("result = %+v", res)
	}
	if got := f.log.get(); !slices.Equal(got, []string{"write b"}) {
		t.Errorf("tool runs %v", got)
	}
	if len(questions) != 1 || questions[0].Request.Tool != "write" || questions[0].Request.SessionID != "s" {
		t.Errorf("questions %+v, want one about write in session s", questions)
	}
	perms := rec.ofType(tPerm)
	want := agent.Event{Type: tPerm, SessionID: "s", TurnID: "s-t1", ID: "c1", Kind: "edit", Tool: "write", Capability: "test.write",
		Scope: "/ws/b", Decision: "allow", Source: "user", Channel: "editor"}
	if len(perms) != 1 || !reflect.DeepEqual(perms[0], want) {
		t.Errorf("permission events %+v, want [%+v]", perms, want)
	}
}

func TestPermissionEvents(t *testing.T) {
	tests := []struct {
		name   string
		mode   permission.Mode
		call   agent.ToolCall
		asker  permission.Asker
		want   agent.Event
		reason string
	}{
		{
			name: "read-only allowed by default", mode: permission.ModeSmart, call: call("c1", "echo", `{"path":"a.go"}`),
			want: agent.Event{Tool: "echo", Capability: "test.read", Scope: "/ws/a.go", Decision: "allow", Source: "default"},
		},
		{
			name: "auto mode", mode: permission.ModeAuto, call: call("c1", "write", `{"path":"a.go"}`),
			want: agent.Event{Tool: "write", Capability: "test.write", Scope: "/ws/a.go", Decision: "allow", Source: "mode"},
		},
		{
			name: "user deny", mode: permission.ModeSmart, call: call("c1", "write", `{"path":"a.go"}`), asker: answer(permission.AnswerDeny),
			want: agent.Event{Tool: "write", Capability: "test.write", Scope: "/ws/a.go", Decision: "deny", Source: "user", Reason: "denied by the user"},
		},
		{
			name: "block", mode: permission.ModeAuto, call: call("c1", "block", `{"path":"x"}`),
			want: agent.Event{Tool: "block", Capability: "test.write", Scope: "/ws/x", Decision: "deny", Source: "block", Reason: "this call is never allowed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{mode: tt.mode, asker: tt.asker, steps: []step{calls("", tt.call), text("ok")}})
			_, rec := f.runTurn(t, "go")
			want := tt.want
			want.Type, want.SessionID, want.TurnID, want.Channel, want.ID = tPerm, "s", "s-t1", "editor", "c1"
			want.Kind = "edit"
			if tt.want.Capability == "test.read" {
				want.Kind = "read"
			}
			if perms := rec.ofType(tPerm); len(perms) != 1 || !reflect.DeepEqual(perms[0], want) {
				t.Errorf("permission events %+v, want [%+v]", perms, want)
			}
		})
	}
}

func TestMaxSteps(t *testing.T) {
	loop := calls("again", call("c", "echo", `{"path":"a"}`))
	f := newFixture(t, setup{maxSteps: 2, steps: []step{loop, loop, loop, loop}})
	res, rec := f.runTurn(t, "loop")
	if res.Reason != agent.ReasonMaxSteps || res.Err == nil || !strings.Contains(res.Err.Error(), "max_steps") || res.Text != "again" {
		t.Errorf("result = %+v, want max_steps with an error", res)
	}
	if n := len(f.prov.requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
	evs := rec.all()
	if len(evs) < 2 {
		t.Fatalf("events %v", rec.types())
	}
	errEv, endEv := evs[len(evs)-2], evs[len(evs)-1]
	if errEv.Type != tErr || !strings.Contains(errEv.Message, "2 model calls") || !strings.Contains(errEv.Message, "max_steps") {
		t.Errorf("next-to-last event %+v, want an error about max_steps", errEv)
	}
	if endEv.Type != tEnd || endEv.Reason != agent.ReasonMaxSteps {
		t.Errorf("last event %+v, want turn_end max_steps", endEv)
	}
}

func TestDefaultMaxSteps(t *testing.T) {
	loop := calls("", call("c", "echo", `{"path":"a"}`))
	steps := make([]step, agent.DefaultMaxSteps+1)
	for i := range steps {
		steps[i] = loop
	}
	f := newFixture(t, setup{steps: steps})
	res, _ := f.runTurn(t, "loop")
	if res.Reason != agent.ReasonMaxSteps {
		t.Errorf("result = %+v, want max_steps", res)
	}
	if n := len(f.prov.requests()); n != agent.DefaultMaxSteps {
		t.Errorf("%d model requests, want %d", n, agent.DefaultMaxSteps)
	}
}

func TestProviderError(t *testing.T) {
	f := newFixture(t, setup{steps: []step{{err: errors.New("401: bad key")}}})
	res, rec := f.runTurn(t, "hi")
	if res.Reason != agent.ReasonError || res.Err == nil || res.Err.Error() != "model test:scripted: 401: bad key" {
		t.Errorf("result = %+v, want error naming the model", res)
	}
	if got, want := rec.types(), eventTypes(tStart, tErr, tEnd); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if e := rec.ofType(tErr); len(e) == 1 && e[0].Message != "model test:scripted: 401: bad key" {
		t.Errorf("error event message %q", e[0].Message)
	}
}

func TestCancelWhileModelInFlight(t *testing.T) {
	f := newFixture(t, setup{steps: []step{{block: true}}})
	rec := &recorder{}
	turn, err := f.sess.Start(context.Background(), "slow model", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.prov.inFlight:
	case <-time.After(waitLimit):
		t.Fatal("the model was never called")
	}
	start := time.Now()
	turn.Cancel()
	res := wait(t, turn)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the turn took %v to end after cancel", d)
	}
	if res.Reason != agent.ReasonCancelled || res.Err != nil {
		t.Errorf("result = %+v, want cancelled without error", res)
	}
	if got, want := rec.types(), eventTypes(tStart, tEnd); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if end := rec.ofType(tEnd); len(end) == 1 && end[0].Reason != agent.ReasonCancelled {
		t.Errorf("turn_end reason %q", end[0].Reason)
	}
}

func TestCancelByParentContext(t *testing.T) {
	f := newFixture(t, setup{steps: []step{{block: true}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	turn, err := f.sess.Start(ctx, "slow model", func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	<-f.prov.inFlight
	cancel()
	if res := wait(t, turn); res.Reason != agent.ReasonCancelled {
		t.Errorf("result = %+v, want cancelled", res)
	}
}

func TestStartWithCancelledContext(t *testing.T) {
	f := newFixture(t, setup{steps: []step{text("never")}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &recorder{}
	turn, err := f.sess.Start(ctx, "hi", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res := wait(t, turn); res.Reason != agent.ReasonCancelled {
		t.Errorf("result = %+v, want cancelled", res)
	}
	if n := len(f.prov.requests()); n != 0 {
		t.Errorf("%d model requests for a cancelled turn", n)
	}
}

func TestCancelWhileToolRuns(t *testing.T) {
	c1, c2 := call("c1", "slow", `{"path":"big"}`), call("c2", "echo", `{"path":"after"}`)
	f := newFixture(t, setup{steps: []step{calls("Working.", c1, c2), text("next turn")}})
	rec := &recorder{}
	turn, err := f.sess.Start(context.Background(), "run slow", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.slowStarted:
	case <-time.After(waitLimit):
		t.Fatal("the slow tool never started")
	}
	turn.Cancel()
	res := wait(t, turn)
	if res.Reason != agent.ReasonCancelled || res.Text != "Working." {
		t.Errorf("result = %+v, want cancelled", res)
	}
	if got := f.log.get(); !slices.Equal(got, []string{"slow big"}) {
		t.Errorf("tool runs %v, want only the slow one", got)
	}
	want := eventTypes(tStart, tText, tCall, tPerm, tResult, tEnd)
	if got := rec.types(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if r := rec.ofType(tResult); len(r) == 1 && (r[0].IsError == nil || !*r[0].IsError || *r[0].Content != "slow was cancelled") {
		t.Errorf("tool_result %s, want error \"slow was cancelled\"", mustJSON(t, r[0]))
	}
	if end := rec.ofType(tEnd); len(end) == 1 && end[0].Reason != agent.ReasonCancelled {
		t.Errorf("turn_end reason %q", end[0].Reason)
	}

	res2, _ := f.runTurn(t, "again")
	if res2.Reason != agent.ReasonCompleted {
		t.Errorf("next turn = %+v", res2)
	}
	reqs := f.prov.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	checkMessages(t, reqs[1].Messages, []agent.Message{
		{Role: agent.RoleUser, Content: "run slow"},
		{Role: agent.RoleAssistant, Content: "Working.", ToolCalls: []agent.ToolCall{c1, c2}},
		toolMsg("c1", "slow", "slow was cancelled"),
		toolMsg("c2", "echo", "Not run: the turn ended (cancelled)."),
		{Role: agent.RoleUser, Content: "again"},
	})
	checkAnswered(t, reqs[1].Messages)
}

// TestCancelWhileAsking: a cancel while a person is asked ends the turn as
// cancelled, not as denied.
func TestCancelWhileAsking(t *testing.T) {
	asking := make(chan struct{}, 1)
	asker := askerFunc(func(ctx context.Context, _ permission.Question) (permission.Answer, error) {
		asking <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	})
	f := newFixture(t, setup{asker: asker, steps: []step{calls("", call("c1", "write", `{"path":"a"}`))}})
	turn, err := f.sess.Start(context.Background(), "edit", func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	<-asking
	turn.Cancel()
	if res := wait(t, turn); res.Reason != agent.ReasonCancelled {
		t.Errorf("result = %+v, want cancelled", res)
	}
	if runs := f.log.get(); len(runs) != 0 {
		t.Errorf("tool ran: %v", runs)
	}
}

func TestBusy(t *testing.T) {
	f := newFixture(t, setup{steps: []step{{block: true}, text("second")}})
	turn, err := f.sess.Start(context.Background(), "first", func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if f.sess.Current() != turn {
		t.Error("Current() is not the running turn")
	}
	if _, err := f.sess.Start(context.Background(), "second", func(agent.Event) {}); !errors.Is(err, agent.ErrBusy) {
		t.Errorf("second Start: %v, want ErrBusy", err)
	}
	<-f.prov.inFlight
	turn.Cancel()
	wait(t, turn)
	if f.sess.Current() != nil {
		t.Error("Current() is not nil after the turn ended")
	}
	turn2, err := f.sess.Start(context.Background(), "second", func(agent.Event) {})
	if err != nil {
		t.Fatalf("Start after the turn ended: %v", err)
	}
	if turn2.ID != "s-t2" {
		t.Errorf("second turn id %q, want s-t2", turn2.ID)
	}
	if res := wait(t, turn2); res.Reason != agent.ReasonCompleted || res.Text != "second" {
		t.Errorf("second turn = %+v", res)
	}
}

// TestBusyConcurrentStarts: of many simultaneous Starts exactly one wins.
func TestBusyConcurrentStarts(t *testing.T) {
	f := newFixture(t, setup{steps: []step{{block: true}}})
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		won   []*agent.Turn
		busy  int
		other []error
	)
	for range 20 {
		wg.Go(func() {
			turn, err := f.sess.Start(context.Background(), "go", func(agent.Event) {})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, turn)
			case errors.Is(err, agent.ErrBusy):
				busy++
			default:
				other = append(other, err)
			}
		})
	}
	wg.Wait()
	if len(won) != 1 || busy != 19 || len(other) != 0 {
		t.Fatalf("%d started, %d busy, other errors %v; want 1 and 19", len(won), busy, other)
	}
	won[0].Cancel()
	wait(t, won[0])
}

func TestHistoryCarriesOver(t *testing.T) {
	f := newFixture(t, setup{steps: []step{text("Hello, Ann."), text("Your name is Ann.")}})
	r1, rec1 := f.runTurn(t, "I am Ann")
	r2, rec2 := f.runTurn(t, "what is my name?")
	if r1.Reason != agent.ReasonCompleted || r2.Reason != agent.ReasonCompleted || r2.Text != "Your name is Ann." {
		t.Errorf("results %+v, %+v", r1, r2)
	}
	if e := rec1.all(); e[0].TurnID != "s-t1" {
		t.Errorf("first turn id %q", e[0].TurnID)
	}
	if e := rec2.all(); e[0].TurnID != "s-t2" {
		t.Errorf("second turn id %q", e[0].TurnID)
	}
	reqs := f.prov.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	checkMessages(t, reqs[1].Messages, []agent.Message{
		{Role: agent.RoleUser, Content: "I am Ann"},
		{Role: agent.RoleAssistant, Content: "Hello, Ann."},
		{Role: agent.RoleUser, Content: "what is my name?"},
	})
	// The first request's snapshot was not changed by later turns.
	if n := len(reqs[0].Messages); n != 1 {
		t.Errorf("first request now has %d messages, want 1", n)
	}
}

func TestEmptyPrompt(t *testing.T) {
	f := newFixture(t, setup{steps: []step{text("x")}})
	for _, p := range []string{"", "   ", "\n\t "} {
		called := false
		turn, err := f.sess.Start(context.Background(), p, func(agent.Event) { called = true })
		if err == nil || turn != nil || !strings.Contains(err.Error(), "empty prompt") {
			t.Errorf("Start(%q) = %v, %v; want an empty prompt error", p, turn, err)
		}
		if called {
			t.Errorf("Start(%q) emitted events", p)
		}
	}
	if f.sess.Current() != nil || len(f.prov.requests()) != 0 {
		t.Error("an empty prompt started something")
	}
}

// TestWithReplay runs a turn on the replay provider end to end.
func TestWithReplay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	script := `{"turns":[{"text":"Looking.","tool_calls":[{"name":"echo","input":{"path":"a.go"}},{"name":"echo","input":{"path":"b.go"}}]},{"text":"Done."}]}`
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	prov, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	log := &runLog{}
	reg, err := tools.NewRegistry(&testTool{name: "echo", readOnly: true, log: log})
	if err != nil {
		t.Fatal(err)
	}
	sess := agent.NewSession("r", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate(permission.ModeSmart, nil, nil)})
	rec := &recorder{}
	turn, err := sess.Start(context.Background(), "look", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res := wait(t, turn); res.Reason != agent.ReasonCompleted || res.Text != "Done." {
		t.Errorf("result = %+v", res)
	}
	if got := log.get(); !slices.Equal(got, []string{"echo a.go", "echo b.go"}) {
		t.Errorf("runs %v", got)
	}
	var ids []string
	for _, e := range rec.ofType(tCall) {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"call_1", "call_2"}) {
		t.Errorf("call ids %v", ids)
	}
	// The script is exhausted: the next turn fails with a clear error.
	turn, err = sess.Start(context.Background(), "more", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res := wait(t, turn); res.Reason != agent.ReasonError || res.Err == nil || !strings.Contains(res.Err.Error(), "replay script exhausted") {
		t.Errorf("result after the script = %+v, want replay script exhausted", res)
	}
}

func TestToolCallTitle(t *testing.T) {
	long := strings.Repeat("é", 70) // 2 bytes each: a byte cut would split one
	tests := []struct {
		name, tool, input, want string
	}{
		{"file_path", "view", `{"file_path":"main.go","offset":3}`, "view main.go"},
		{"path", "ls", `{"path":"src"}`, "ls src"},
		{"pattern first-found order", "grep", `{"query":"q","pattern":"func"}`, "grep func"},
		{"command", "bash", `{"command":"go test ./..."}`, "bash go test ./..."},
		{"symbol", "def", `{"symbol":"Foo"}`, "def Foo"},
		{"no known key", "ls", `{"depth":2}`, "ls"},
		{"empty value", "ls", `{"path":""}`, "ls"},
		{"non-string value", "view", `{"file_path":3}`, "view"},
		{"not json", "view", `nope`, "view"},
		{"long ascii", "view", `{"file_path":"` + strings.Repeat("a", 70) + `"}`, "view " + strings.Repeat("a", 60) + "…"},
		{"exactly 60", "view", `{"file_path":"` + strings.Repeat("b", 60) + `"}`, "view " + strings.Repeat("b", 60)},
		{"long multibyte", "view", `{"file_path":"` + long + `"}`, "view " + strings.Repeat("é", 60) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &scripted{steps: []step{calls("", agent.ToolCall{ID: "c", Name: tt.tool, Input: json.RawMessage(tt.input)}), text("ok")}}
			reg, _ := tools.NewRegistry()
			s := agent.NewSession("x", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate("", nil, nil)})
			rec := &recorder{}
			turn, err := s.Start(context.Background(), "go", rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			wait(t, turn)
			evs := rec.ofType(tCall)
			if len(evs) != 1 {
				t.Fatalf("tool_call events %+v", evs)
			}
			if evs[0].Title != tt.want {
				t.Errorf("title %q, want %q", evs[0].Title, tt.want)
			}
			if !utf8.ValidString(evs[0].Title) {
				t.Errorf("title %q is not valid UTF-8", evs[0].Title)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Chat mode offers the model no tools at all.
func TestChatModeOffersNoTools(t *testing.T) {
	f := newFixture(t, setup{mode: permission.ModeChat, steps: []step{text("just talking")}})
	if res, _ := f.runTurn(t, "hi"); res.Reason != agent.ReasonCompleted {
		t.Fatal(res.Reason)
	}
	if reqs := f.prov.requests(); len(reqs) != 1 || len(reqs[0].Tools) != 0 {
		t.Errorf("chat mode sent %d tools", len(reqs[0].Tools))
	}
	g := newFixture(t, setup{steps: []step{text("x")}})
	g.runTurn(t, "hi")
	if reqs := g.prov.requests(); len(reqs[0].Tools) == 0 {
		t.Error("smart mode sent no tools")
	}
}

// StartAfter holds the turn (no event, no model call) until ready, while
// the session already counts it as running.
func TestStartAfterHoldsTheTurn(t *testing.T) {
	f := newFixture(t, setup{steps: []step{text("released")}})
	rec := &recorder{}
	ready := make(chan struct{})
	turn, err := f.sess.StartAfter(context.Background(), "hi", rec.emit, ready)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.sess.Start(context.Background(), "again", rec.emit); err != agent.ErrBusy {
		t.Errorf("second start while held: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(rec.all()); n != 0 || len(f.prov.requests()) != 0 {
		t.Fatalf("held turn emitted %d events, called the model %d times", n, len(f.prov.requests()))
	}
	close(ready)
	if res := wait(t, turn); res.Reason != agent.ReasonCompleted || res.Text != "released" {
		t.Errorf("turn = %+v", res)
	}
}

// TestToolStopEndsTurn: a tool that met a person's no while it ran (a host
// its command reached, the editor refusing its terminal) says Stop; the
// turn ends there as after a denied call, and the model is not asked
// again.
func TestToolStopEndsTurn(t *testing.T) {
	log := &runLog{}
	reg, err := tools.NewRegistry(&testTool{name: "echo", readOnly: true, log: log, run: func(context.Context, string) (tools.Result, error) {
		return tools.Result{Content: "the person said no", IsError: true, Stop: true}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	prov := &scripted{steps: []step{calls("Trying.", call("c1", "echo", `{"path":"a"}`)), text("never reached")}, inFlight: make(chan struct{}, 1)}
	sess := agent.NewSession("s", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate(permission.ModeSmart, nil, nil)})
	rec := &recorder{}
	res := providertest.RunTurn(t, sess, "go", rec.emit)
	if res.Reason != agent.ReasonDenied || res.Text != "Trying." {
		t.Errorf("result %+v, want the turn denied after the stopped call", res)
	}
	if n := len(prov.requests()); n != 1 {
		t.Errorf("%d model requests, want 1: the model was asked again after a Stop", n)
	}
}
