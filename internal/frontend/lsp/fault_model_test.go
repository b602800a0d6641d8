package lsp_test

// The fault suite's model faults (docs/faults.md), through the editor,
// with the real OpenAI-compatible provider against a loopback server
// that misbehaves as told.

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/agent/remote"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// badModel connects a fake editor to the openai provider on a loopback
// server; answer scripts the server's reply to its n-th request
// (counting from 1). The workspace holds a.go (tabbed).
func badModel(t *testing.T, answer func(n int) openaitest.Reply, mod func(*openai.Config)) (*fake.Editor, string, *openaitest.Server) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		return answer(k)
	})
	t.Cleanup(srv.Close)
	cfg := openai.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "test-model",
		Policy: remote.Policy{Timeout: 20 * time.Second, RetryBaseDelay: time.Millisecond, MaxRetries: 1}}}
	if mod != nil {
		mod(&cfg)
	}
	prov, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ed, root := setup(t, map[string]string{"a.go": tabbed}, prov, nil)
	return ed, root, srv
}

// stillHere is the server's answer once the fault is over.
var stillHere = openaitest.Reply{Parts: []string{"still here"}}

// turnFailed checks the turn ended in an error the person is shown
// (showMessage, type error) that says want.
func turnFailed(t *testing.T, ed *fake.Editor, evs []agent.Event, want string) {
	t.Helper()
	if last := evs[len(evs)-1]; last.Type != agent.EventTurnEnd || last.Reason != agent.ReasonError {
		t.Fatalf("turn ended %+v, want an error", last)
	}
	shows := ed.Shows()
	if m := shows[len(shows)-1]; m.Type != 1 || !strings.Contains(m.Message, "turn failed") || !strings.Contains(m.Message, want) {
		t.Errorf("the person was shown %+v, want an error saying %q", m, want)
	}
}

// noToolRan checks the turn ran no tool and asked nothing.
func noToolRan(t *testing.T, ed *fake.Editor, evs []agent.Event) {
	t.Helper()
	for _, e := range evs {
		if e.Type == agent.EventToolCall || e.Type == agent.EventToolResult {
			t.Errorf("a tool ran: %+v", e)
		}
	}
	if len(ed.Asks()) > 0 {
		t.Errorf("the person was asked: %+v", ed.Asks())
	}
}

// lastToolMessage is the content of the last tool message the model was
// sent: what it was told of its call.
func lastToolMessage(srv *openaitest.Server) string {
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	return ""
}

// TestFaultModelStreamBreaksMidToolCall: the stream breaks in the middle
// of a tool call's arguments, on the first try and the retry. No tool
// runs on half an argument, the person is told, no half call enters the
// conversation, and the next turn is answered.
func TestFaultModelStreamBreaksMidToolCall(t *testing.T) {
	ctx := ctxT(t)
	ed, root, srv := badModel(t, func(n int) openaitest.Reply {
		if n <= 2 {
			c := openaitest.Call("c1", "edit", nil)
			c.Function.Arguments = `{"file_path":"a.go","old_string":"println(\"ol`
			return openaitest.Reply{ToolCalls: []openaitest.ToolCall{c}, Break: true}
		}
		return stillHere
	}, nil)
	evs := askTurn(t, ctx, ed, "say new")
	turnFailed(t, ed, evs, "broke before any output after 2 attempts")
	noToolRan(t, ed, evs)
	disk(t, root+"/a.go", tabbed)
	stillServes(t, ctx, ed)
	reqs := srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "assistant" || m.Role == "tool" {
			t.Errorf("the broken answer entered the conversation: %+v", m)
		}
	}
}

// TestFaultModelBadToolCall: the model calls a tool with arguments that
// are not JSON, or a tool that does not exist. Nothing runs and nothing
// is asked; the model is told what was wrong (and what tools there are),
// and its turn goes on to its answer.
func TestFaultModelBadToolCall(t *testing.T) {
	bad := openaitest.Call("c1", "edit", nil)
	bad.Function.Arguments = `{"file_path": "a.go", "old_string": "x"`
	for _, tc := range []struct {
		name  string
		call  openaitest.ToolCall
		wants []string
	}{
		{"invalid JSON arguments", bad, []string{"edit: input: the arguments are not valid JSON", `old_string\": \"x\"`, "send one complete JSON object"}},
		{"unknown tool", openaitest.Call("c1", "delete_everything", map[string]string{"path": "."}), []string{`unknown tool "delete_everything"`, "available tools:", "edit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			ed, root, srv := badModel(t, func(n int) openaitest.Reply {
				switch n {
				case 1:
					return openaitest.Reply{ToolCalls: []openaitest.ToolCall{tc.call}}
				case 2:
					return openaitest.Reply{Parts: []string{"sorry, fixed"}}
				}
				return stillHere
			}, nil)
			evs := askTurn(t, ctx, ed, "say new")
			if last := evs[len(evs)-1]; last.Reason != agent.ReasonCompleted {
				t.Errorf("turn ended %q, want completed", last.Reason)
			}
			rs := resultsOf(evs, tc.call.Function.Name)
			if len(rs) != 1 || !*rs[0].IsError {
				t.Fatalf("results = %+v, want one error", rs)
			}
			told := lastToolMessage(srv)
			for _, w := range tc.wants {
				if !strings.Contains(told, w) {
					t.Errorf("the model was told %q, which does not say %q", told, w)
				}
			}
			if len(ed.Asks()) > 0 {
				t.Errorf("the person was asked about a call that cannot run: %+v", ed.Asks())
			}
			disk(t, root+"/a.go", tabbed)
			stillServes(t, ctx, ed)
		})
	}
}

// TestFaultModelHugeAnswer: the model streams a 10 MB answer. agentls
// stops reading it at its bound (4 MiB), the person is told why, the
// editor gets no more than the bound of text, the history keeps none of
// it, and the next turn is answered.
func TestFaultModelHugeAnswer(t *testing.T) {
	ctx := ctxT(t)
	part := strings.Repeat("all work and no play ", 3277) // ~64 KiB
	ed, _, srv := badModel(t, func(n int) openaitest.Reply {
		if n == 1 {
			parts := make([]string, 160) // ~10 MB
			for i := range parts {
				parts[i] = part
			}
			return openaitest.Reply{Parts: parts}
		}
		return stillHere
	}, nil)
	evs := askTurn(t, ctx, ed, "write a lot")
	turnFailed(t, ed, evs, "passed 4194304 bytes, so agentls stopped reading it")
	shown := 0
	for _, e := range evs {
		if e.Type == agent.EventTextDelta {
			shown += len(e.Text)
		}
	}
	if shown > remote.DefaultMaxAnswerBytes+len(part) {
		t.Errorf("the editor was sent %d bytes of text, over the %d-byte bound", shown, remote.DefaultMaxAnswerBytes)
	}
	stillServes(t, ctx, ed)
	reqs := srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if len(m.Content) > 1<<20 {
			t.Errorf("a %d-byte %s message entered the conversation", len(m.Content), m.Role)
		}
	}
}

// TestFaultModelStalls: the model stops sending mid-answer. With a
// timeout the turn fails after it, saying so; the person can also cancel
// at once. Either way the next turn is answered.
func TestFaultModelStalls(t *testing.T) {
	stall := func(n int) openaitest.Reply {
		if n == 1 {
			return openaitest.Reply{Parts: []string{"Let me think"}, Stall: true}
		}
		return stillHere
	}
	t.Run("timeout", func(t *testing.T) {
		ctx := ctxT(t)
		ed, _, _ := badModel(t, stall, func(c *openai.Config) { c.Timeout = time.Second })
		evs := askTurn(t, ctx, ed, "think")
		turnFailed(t, ed, evs, "no complete answer from")
		stillServes(t, ctx, ed)
	})
	t.Run("cancel", func(t *testing.T) {
		ctx := ctxT(t)
		ed, _, _ := badModel(t, stall, nil)
		res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "think"})
		if err != nil {
			t.Fatal(err)
		}
		if err := ed.WaitFor(ctx, "the first words", func(e *fake.Editor) bool {
			for _, ev := range e.Events() {
				if ev.Type == agent.EventTextDelta {
					return true
				}
			}
			return false
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := ed.ExecuteCommand(ctx, lsp.CommandCancel, lsp.CancelArgs{TurnID: res.TurnID}); err != nil {
			t.Fatal(err)
		}
		evs, err := ed.WaitTurnEnd(context.Background(), res.TurnID)
		if err != nil {
			t.Fatal(err)
		}
		if last := evs[len(evs)-1]; last.Reason != agent.ReasonCancelled {
			t.Errorf("turn ended %q, want cancelled", last.Reason)
		}
		stillServes(t, ctx, ed)
	})
}
