// Package providertest is the conformance table every model provider
// passes: one set of agent-level scenarios (a streamed answer, tool
// round trips, a failed tool, usage, compaction after a "too long"
// answer, a retried 429, an authentication failure, a cancel mid-stream)
// driven through a real agent.Session with a real tools.Registry, against
// a loopback server speaking the provider's wire format over real HTTP.
//
// A Wire adapts one provider and its loopback server (openaitest,
// anthropictest) to the neutral Request and Reply used here; Run plays
// every scenario against it. The package also holds what the providers'
// own tests and loopback servers share: Record, RunTurn, Wait, WantErr,
// FastRetries and Configure.
package providertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// Call is a tool call in a request's history or in a reply.
type Call struct {
	ID, Name string
	Input    map[string]any
}

// Message is one message of a request as the model saw it, in neutral
// form: Role is "user", "assistant" or "tool" (one message per tool
// result, however the wire groups them).
type Message struct {
	Role    string
	Text    string
	Calls   []Call
	CallID  string
	IsError bool
}

// Request is what the loopback server received.
type Request struct {
	System   string
	Messages []Message
	Tools    []string
	// Tokens is the server's count of the prompt.
	Tokens int
}

// Last is the request's last message.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Reply is one scripted answer.
type Reply struct {
	Parts []string
	Calls []Call
	// BeforePart, when set, runs on the server before part i is sent.
	BeforePart func(i int)
	// Status, when set, answers with that HTTP error in the wire's own
	// error format, with Message; RetryAfter sets the Retry-After header.
	Status     int
	Message    string
	RetryAfter string
}

// Server is a running loopback server.
type Server interface {
	Requests() []Request
	// OverWindow counts the requests refused as too long.
	OverWindow() int
	// Usage is what the server reported over all its answers.
	Usage() agent.Usage
	Close()
}

// Wire is one provider with its loopback server.
type Wire interface {
	// Start starts a server answering with answer; a window > 0 refuses
	// prompts of more tokens with the wire's own "too long" error.
	Start(answer func(Request) Reply, window int) Server
	// Provider is the provider under test, built the way agentls builds
	// it (model.New), reaching srv with its key in KeyEnv.
	Provider(t *testing.T, srv Server) agent.Provider
	// KeyEnv is the environment variable the key comes from.
	KeyEnv() string
	// FlagsErrors reports whether the wire marks failed tool results.
	FlagsErrors() bool
}

// Run plays every scenario against w, each in a subtest.
func Run(t *testing.T, w Wire) {
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) { sc.Run(t, w) })
	}
}

// Scenario is one agent-level behaviour every provider must show.
type Scenario struct {
	Name string
	Run  func(t *testing.T, w Wire)
}

// waitLimit bounds every wait for a turn.
const waitLimit = 10 * time.Second

// System is the short system prompt of the sessions here, so small
// windows hold the conversation.
const System = "You are a test agent."

// harness is a session on a loopback server with the echo and fail tools.
type harness struct {
	srv  Server
	sess *agent.Session
	mu   sync.Mutex
	runs []string
}

// start makes a harness; the server closes when the test ends.
func start(t *testing.T, w Wire, window int, answer func(Request) Reply) *harness {
	t.Helper()
	srv := w.Start(answer, window)
	t.Cleanup(srv.Close)
	h := newHarness(t, w.Provider(t, srv))
	h.srv = srv
	return h
}

// NewSession is a session on prov with the System prompt and two
// read-only tools that run unasked: echo {"path", "size"} answers "echo
// ran on PATH" (padded to size bytes), fail {"path"} answers the error
// "fail: PATH is broken". ran returns the calls run so far ("echo a.go").
func NewSession(t testing.TB, prov agent.Provider) (sess *agent.Session, ran func() []string) {
	h := newHarness(t, prov)
	return h.sess, h.ran
}

func newHarness(t testing.TB, prov agent.Provider) *harness {
	t.Helper()
	h := &harness{}
	reg, err := tools.NewRegistry(&testTool{name: "echo", h: h}, &testTool{name: "fail", h: h})
	if err != nil {
		t.Fatal(err)
	}
	h.sess = agent.NewSession("conformance", agent.Config{
		Provider: prov,
		Tools:    reg,
		Gate:     permission.NewGate(permission.ModeSmart, nil, nil),
		System:   System,
		Channel:  "headless",
	})
	return h
}

// recorder collects a turn's events and signals each to watch.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
	watch  chan agent.Event
}

func (r *recorder) emit(e agent.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	if r.watch != nil {
		select {
		case r.watch <- e:
		default:
		}
	}
}

func (r *recorder) all() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *recorder) ofType(typ agent.EventType) []agent.Event {
	var out []agent.Event
	for _, e := range r.all() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// turn runs one turn to its end.
func (h *harness) turn(t *testing.T, prompt string) (agent.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	return RunTurn(t, h.sess, prompt, rec.emit), rec
}

// RunTurn starts a turn of sess with prompt and waits for its end; emit
// receives its events.
func RunTurn(t testing.TB, sess *agent.Session, prompt string, emit func(agent.Event)) agent.Result {
	t.Helper()
	turn, err := sess.Start(context.Background(), prompt, emit)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return Wait(t, turn)
}

// Wait waits for turn to end; a turn still running after ten seconds
// fails t.
func Wait(t testing.TB, turn *agent.Turn) agent.Result {
	t.Helper()
	select {
	case <-turn.Done():
		return turn.Wait()
	case <-time.After(waitLimit):
		t.Fatalf("turn %s did not end within %v", turn.ID, waitLimit)
		return agent.Result{}
	}
}

func (h *harness) ran() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.runs)
}

// testTool takes {"path": string, "size": int}: echo answers "echo ran
// on PATH" (padded to size bytes), fail answers an error result.
type testTool struct {
	name string
	h    *harness
}

// Spec describes the tool: read-only, so smart mode runs it unasked.
func (tt *testTool) Spec() tools.Spec {
	return tools.Spec{
		Name:        tt.name,
		Description: "a test tool",
		Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"size":{"type":"integer"}},"required":["path"]}`),
		Capability:  "test.read",
		Action:      permission.ActionRead,
		ReadOnly:    true,
	}
}

type toolInput struct {
	Path string `json:"path"`
	Size int    `json:"size"`
}

// Describe tells the gate the path the call reads.
func (tt *testTool) Describe(_ context.Context, call tools.Call) (permission.Request, error) {
	var in toolInput
	if err := tools.DecodeInput(call, tt.name, &in); err != nil {
		return permission.Request{}, err
	}
	s := tt.Spec()
	return permission.Request{Tool: tt.name, Capability: s.Capability, Action: s.Action, ReadOnly: true, Paths: []string{"/ws/" + in.Path}}, nil
}

// Run records the call and answers it.
func (tt *testTool) Run(_ context.Context, call tools.Call) (tools.Result, error) {
	var in toolInput
	if err := tools.DecodeInput(call, tt.name, &in); err != nil {
		return tools.Errorf("%v", err), nil
	}
	tt.h.mu.Lock()
	tt.h.runs = append(tt.h.runs, tt.name+" "+in.Path)
	tt.h.mu.Unlock()
	if tt.name == "fail" {
		return tools.Errorf("fail: %s is broken", in.Path), nil
	}
	out := "echo ran on " + in.Path
	if pad := in.Size - len(out); pad > 0 {
		out += strings.Repeat(".", pad)
	}
	return tools.Result{Content: out}, nil
}

// Result texts the scenarios look for.
func echoed(path string) string { return "echo ran on " + path }

func call(id, name, path string) Call {
	return Call{ID: id, Name: name, Input: map[string]any{"path": path}}
}

// checkCompleted fails unless res completed with text.
func checkCompleted(t *testing.T, res agent.Result, text string) {
	t.Helper()
	if res.Reason != agent.ReasonCompleted || res.Text != text {
		t.Fatalf("turn ended %s with %q (err %v), want completed with %q", res.Reason, res.Text, res.Err, text)
	}
}

// checkToolRound checks that r carries the assistant's calls and then one
// tool message per call with want's text, in order.
func checkToolRound(t *testing.T, r Request, calls []Call, results []string) {
	t.Helper()
	n := len(r.Messages)
	if n < len(calls)+1 {
		t.Fatalf("request has %d messages, want the calls and their %d results: %+v", n, len(calls), r.Messages)
	}
	a := r.Messages[n-len(calls)-1]
	if a.Role != "assistant" || len(a.Calls) != len(calls) {
		t.Fatalf("message before the results = %+v, want an assistant message with %d calls", a, len(calls))
	}
	for i, c := range calls {
		got := a.Calls[i]
		if got.ID != c.ID || got.Name != c.Name || fmt.Sprint(got.Input) != fmt.Sprint(c.Input) {
			t.Errorf("call %d sent back as %+v, want %+v", i, got, c)
		}
		m := r.Messages[n-len(calls)+i]
		if m.Role != "tool" || m.CallID != c.ID || m.Text != results[i] {
			t.Errorf("result %d = %+v, want the result of %s: %q", i, m, c.ID, results[i])
		}
	}
}
