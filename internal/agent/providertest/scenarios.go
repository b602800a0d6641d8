package providertest

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

// Scenarios is the table Run plays.
func Scenarios() []Scenario {
	return []Scenario{
		{"plain answer streamed", plainAnswer},
		{"one tool call round trip", oneToolCall},
		{"two tool calls in one step", twoToolCalls},
		{"a tool error reported back", toolError},
		{"usage summed", usageSummed},
		{"context too long: compaction and success", compaction},
		{"429 then success", rateLimited},
		{"authentication failure names the key", authFailure},
		{"cancel mid-stream", cancelMidStream},
		{"an answer past the bound is cut off", tooLong},
	}
}

// plainAnswer: the answer reaches the front-end as it streams.
func plainAnswer(t *testing.T, w Wire) {
	h := start(t, w, 0, func(Request) Reply {
		return Reply{Parts: []string{"Hello", ", ", "world"}, BeforePart: func(i int) {
			if i > 0 {
				time.Sleep(80 * time.Millisecond) // longer than the ~50 ms coalescing
			}
		}}
	})
	res, rec := h.turn(t, "say hello")
	checkCompleted(t, res, "Hello, world")
	deltas := rec.ofType(agent.EventTextDelta)
	var streamed strings.Builder
	for _, d := range deltas {
		streamed.WriteString(d.Text)
	}
	if len(deltas) < 2 || streamed.String() != "Hello, world" {
		t.Errorf("text_delta events %+v, want the answer in more than one piece", deltas)
	}
	for _, e := range rec.all() {
		if e.Type == agent.EventText {
			t.Errorf("text event before any text_delta: %+v", rec.all())
		}
		if e.Type == agent.EventTextDelta {
			break
		}
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 || reqs[0].Last().Role != "user" || reqs[0].Last().Text != "say hello" || !strings.Contains(reqs[0].System, System) {
		t.Errorf("requests %+v, want one with the system prompt and the prompt", reqs)
	}
}

// toolScript answers a request whose last message is a tool result
// with "done: " and the results, and any other with calls.
func toolScript(calls ...Call) func(Request) Reply {
	return func(r Request) Reply {
		if r.Last().Role != "tool" {
			return Reply{Parts: []string{"Looking."}, Calls: calls}
		}
		var texts []string
		for _, m := range r.Messages[len(r.Messages)-len(calls):] {
			texts = append(texts, m.Text)
		}
		return Reply{Parts: []string{"done: " + strings.Join(texts, "; ")}}
	}
}

func oneToolCall(t *testing.T, w Wire) {
	c := call("call_1", "echo", "a.go")
	h := start(t, w, 0, toolScript(c))
	res, rec := h.turn(t, "read a.go")
	checkCompleted(t, res, "done: "+echoed("a.go"))
	if got := h.ran(); len(got) != 1 || got[0] != "echo a.go" {
		t.Errorf("tools ran %q, want [echo a.go]", got)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) != 2 {
		t.Errorf("tools offered %q, want echo and fail", reqs[0].Tools)
	}
	checkToolRound(t, reqs[1], []Call{c}, []string{echoed("a.go")})
	if calls, results := rec.ofType(agent.EventToolCall), rec.ofType(agent.EventToolResult); len(calls) != 1 || len(results) != 1 || calls[0].ID != "call_1" {
		t.Errorf("tool_call %+v, tool_result %+v", calls, results)
	}
}

func twoToolCalls(t *testing.T, w Wire) {
	c1, c2 := call("call_1", "echo", "a.go"), call("call_2", "echo", "b.go")
	h := start(t, w, 0, toolScript(c1, c2))
	res, _ := h.turn(t, "read a.go and b.go")
	checkCompleted(t, res, "done: "+echoed("a.go")+"; "+echoed("b.go"))
	if got := strings.Join(h.ran(), ","); got != "echo a.go,echo b.go" {
		t.Errorf("tools ran %q, want a.go then b.go", got)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkToolRound(t, reqs[1], []Call{c1, c2}, []string{echoed("a.go"), echoed("b.go")})
}

func toolError(t *testing.T, w Wire) {
	c := call("call_1", "fail", "x.go")
	h := start(t, w, 0, toolScript(c))
	res, rec := h.turn(t, "break x.go")
	checkCompleted(t, res, "done: fail: x.go is broken")
	results := rec.ofType(agent.EventToolResult)
	if len(results) != 1 || results[0].IsError == nil || !*results[0].IsError {
		t.Errorf("tool_result events %+v, want one error", results)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkToolRound(t, reqs[1], []Call{c}, []string{"fail: x.go is broken"})
	if m := reqs[1].Last(); m.IsError != w.FlagsErrors() {
		t.Errorf("failed result sent with is_error %v, want %v", m.IsError, w.FlagsErrors())
	}
}

// usageSummed: the turn's usage is what the server reported, summed
// over the turn's calls, and the session's total agrees.
func usageSummed(t *testing.T, w Wire) {
	h := start(t, w, 0, toolScript(call("call_1", "echo", "a.go")))
	res, rec := h.turn(t, "read a.go")
	checkCompleted(t, res, "done: "+echoed("a.go"))
	billed := h.srv.Usage()
	tokens := 0
	for _, r := range h.srv.Requests() {
		tokens += r.Tokens
	}
	if res.Usage != billed || res.Usage.Input != tokens || res.Usage.Output <= 0 || h.sess.Usage() != billed {
		t.Errorf("turn usage %+v, session %+v; the server reported %+v for %d prompt tokens", res.Usage, h.sess.Usage(), billed, tokens)
	}
	if n := len(rec.ofType(agent.EventUsage)); n != 2 {
		t.Errorf("%d usage events, want one a call", n)
	}
	ends := rec.ofType(agent.EventTurnEnd)
	if len(ends) != 1 || ends[0].TurnUsage == nil || *ends[0].TurnUsage != billed {
		t.Errorf("turn_end %+v, want the turn's usage %+v", ends, billed)
	}
}

// compaction: the second turn is over the server's window; the "too
// long" answer teaches the window, the session summarises the first turn
// and the request goes again and succeeds.
func compaction(t *testing.T, w Wire) {
	const window = 3000 // tokens of three bytes
	bigAnswer := "The file is long. " + strings.Repeat("It goes on. ", 375)
	h := start(t, w, window, func(r Request) Reply {
		switch last := r.Last(); {
		case strings.Contains(r.System, "You compact a coding session"):
			return Reply{Parts: []string{"The user had a big file read; it is long."}}
		case last.Role == "tool":
			return Reply{Parts: []string{bigAnswer}}
		case last.Text == "read big":
			return Reply{Calls: []Call{{ID: "call_1", Name: "echo", Input: map[string]any{"path": "big", "size": 4500}}}}
		}
		return Reply{Parts: []string{"Compacted and done."}}
	})
	res, _ := h.turn(t, "read big")
	checkCompleted(t, res, bigAnswer)
	if n := h.srv.OverWindow(); n != 0 {
		t.Fatalf("%d requests of the first turn were over the window; the scenario needs them under it", n)
	}
	res, rec := h.turn(t, "and now?")
	checkCompleted(t, res, "Compacted and done.")
	if len(rec.ofType(agent.EventCompaction)) != 1 {
		t.Errorf("compaction events %+v, want one", rec.ofType(agent.EventCompaction))
	}
	if n := h.srv.OverWindow(); n != 1 {
		t.Errorf("%d requests over the window, want 1 (the one that teaches it)", n)
	}
	reqs := h.srv.Requests()
	var summary *Request
	for i := range reqs {
		if strings.Contains(reqs[i].System, "You compact a coding session") {
			summary = &reqs[i]
		}
	}
	if summary == nil || len(summary.Tools) != 0 {
		t.Fatalf("summary request %+v, want one without tools", summary)
	}
	final := reqs[len(reqs)-1]
	if final.Tokens > window || len(final.Messages) == 0 || !strings.HasPrefix(final.Messages[0].Text, "[Summary of the earlier conversation") ||
		final.Last().Text != "and now?" {
		t.Errorf("retried request (%d tokens) = %+v, want the summary then the prompt", final.Tokens, final.Messages)
	}
}

func rateLimited(t *testing.T, w Wire) {
	var n atomic.Int32
	h := start(t, w, 0, func(Request) Reply {
		if n.Add(1) == 1 {
			return Reply{Status: 429, Message: "rate limited", RetryAfter: "0"}
		}
		return Reply{Parts: []string{"ok"}}
	})
	res, rec := h.turn(t, "hi")
	checkCompleted(t, res, "ok")
	if got := len(h.srv.Requests()); got != 2 {
		t.Errorf("%d requests, want 2", got)
	}
	if errs := rec.ofType(agent.EventError); len(errs) != 0 {
		t.Errorf("error events %+v after a retried 429", errs)
	}
}

func authFailure(t *testing.T, w Wire) {
	h := start(t, w, 0, func(Request) Reply { return Reply{Status: 401, Message: "invalid api key"} })
	res, rec := h.turn(t, "hi")
	if res.Reason != agent.ReasonError || res.Err == nil {
		t.Fatalf("turn ended %s (%v), want an error", res.Reason, res.Err)
	}
	for _, part := range []string{"authentication failed (401)", w.KeyEnv(), "invalid api key"} {
		if !strings.Contains(res.Err.Error(), part) {
			t.Errorf("error %q does not say %q", res.Err, part)
		}
	}
	if got := len(h.srv.Requests()); got != 1 {
		t.Errorf("%d requests, want 1: a wrong key is not retried", got)
	}
	if errs := rec.ofType(agent.EventError); len(errs) != 1 || errs[0].Message != res.Err.Error() {
		t.Errorf("error events %+v", errs)
	}
}

func cancelMidStream(t *testing.T, w Wire) {
	release := make(chan struct{})
	h := start(t, w, 0, func(Request) Reply {
		return Reply{Parts: []string{"partial ", "never shown"}, BeforePart: func(i int) {
			if i == 1 {
				select {
				case <-release:
				case <-time.After(waitLimit):
				}
			}
		}}
	})
	t.Cleanup(func() { close(release) }) // before the server closes
	rec := &recorder{watch: make(chan agent.Event, 64)}
	turn, err := h.sess.Start(t.Context(), "hi", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(waitLimit)
	for seen := false; !seen; {
		select {
		case e := <-rec.watch:
			seen = e.Type == agent.EventTextDelta && e.Text == "partial "
		case <-deadline:
			t.Fatalf("no text_delta for the first part: %+v", rec.all())
		}
	}
	cancelled := time.Now()
	turn.Cancel()
	res := Wait(t, turn)
	if res.Reason != agent.ReasonCancelled {
		t.Errorf("turn ended %s (%v), want cancelled", res.Reason, res.Err)
	}
	if d := time.Since(cancelled); d > 2*time.Second {
		t.Errorf("the turn took %s to end after the cancel", d)
	}
	for _, d := range rec.ofType(agent.EventTextDelta) {
		if strings.Contains(d.Text, "never shown") {
			t.Errorf("text after the cancel reached the front-end: %+v", d)
		}
	}
	if got := len(h.srv.Requests()); got != 1 {
		t.Errorf("%d requests, want 1: a cancelled call is not retried", got)
	}
}

// tooLong: a model streaming without end (10 MB here) is cut off at the
// answer bound, with an error that says so, and not retried.
func tooLong(t *testing.T, w Wire) {
	part := strings.Repeat("all work and no play ", 3277) // ~64 KiB
	h := start(t, w, 0, func(Request) Reply {
		parts := make([]string, 160)
		for i := range parts {
			parts[i] = part
		}
		return Reply{Parts: parts}
	})
	res, rec := h.turn(t, "write a lot")
	if res.Reason != agent.ReasonError || res.Err == nil || !strings.Contains(res.Err.Error(), "passed 4194304 bytes, so agentls stopped reading it") {
		t.Fatalf("turn ended %s (%v), want the answer cut off at 4 MiB", res.Reason, res.Err)
	}
	shown := 0
	for _, d := range rec.ofType(agent.EventTextDelta) {
		shown += len(d.Text)
	}
	if shown > 4<<20+len(part) {
		t.Errorf("%d bytes of text were streamed, past the bound", shown)
	}
	if got := len(h.srv.Requests()); got != 1 {
		t.Errorf("%d requests, want 1: a cut-off answer is not retried", got)
	}
}
