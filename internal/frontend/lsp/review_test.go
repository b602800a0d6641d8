package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// reviewFile has two places far apart for a two-hunk edit.
const reviewFile = "package a\n\nfunc A() int { return 1 }\n\n// spacer 1\n// spacer 2\n// spacer 3\n// spacer 4\n// spacer 5\n\nfunc B() int { return 2 }\n"

// twoHunks is a replay turn editing both functions in one call.
const twoHunks = `{"tool_calls":[{"name":"multiedit","input":{"file_path":"a.go","edits":[
	{"old_string":"return 1","new_string":"return 10"},{"old_string":"return 2","new_string":"return 20"}]}}]}`

// reviewTurn opens a.go in the editor, runs the script's turns and returns
// the turn's events.
func reviewTurn(t *testing.T, turns string, mod func(*fake.Options)) (*fake.Editor, string, []agent.Event) {
	t.Helper()
	ctx := ctxT(t)
	prov := script(t, `{"turns":[{"tool_calls":[{"name":"view","input":{"file_path":"a.go"}}]},`+turns+`,{"text":"done"}]}`)
	ed, root := setup(t, map[string]string{"a.go": reviewFile}, prov, mod)
	path := filepath.Join(root, "a.go")
	if err := ed.Open(ctx, path, reviewFile); err != nil {
		t.Fatal(err)
	}
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "change the numbers"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	return ed, path, evs
}

func lastResult(evs []agent.Event, name string) string {
	out := ""
	for _, e := range evs {
		if e.Type == agent.EventToolResult && e.Name == name && e.Content != nil {
			out = *e.Content
		}
	}
	return out
}

// A two-hunk edit reviewed with one hunk accepted lands only that hunk in
// the buffer; the model is told which hunk was rejected, with its diff;
// the turn goes on.
func TestReviewAcceptsOneHunkOfTwo(t *testing.T) {
	ed, path, evs := reviewTurn(t, twoHunks, func(o *fake.Options) {
		o.Review = func(fake.Review) any { return map[string]any{"accept": []int{1}} }
	})
	rs := ed.Reviews()
	if len(rs) != 1 {
		t.Fatalf("reviews = %+v, want one", rs)
	}
	r := rs[0]
	if r.Path != "a.go" || !r.Exists || r.Original != reviewFile || !strings.Contains(r.Proposed, "return 10") || len(r.Hunks) != 2 ||
		r.Hunks[0].OldStart != 3 || r.Hunks[1].OldStart != 11 || !strings.Contains(r.Hunks[1].Diff, "+func B() int { return 20 }") ||
		!strings.HasPrefix(r.Message, "agentls wants to edit a.go (+2 −2)") {
		t.Errorf("review params = %+v", r)
	}
	if len(r.Choices) != 1 || r.Choices[0].Answer != "allow_session" {
		t.Errorf("grant choices = %+v, want the session grant", r.Choices)
	}
	if len(ed.Asks()) != 0 {
		t.Errorf("a plain ask was sent too: %+v", ed.Asks())
	}
	want := strings.Replace(reviewFile, "return 1 }", "return 10 }", 1)
	if buf, _ := ed.Buffer(path); buf != want {
		t.Errorf("buffer:\n%s\nwant only hunk 1 applied:\n%s", buf, want)
	}
	got := lastResult(evs, "multiedit")
	if !strings.Contains(got, "applied only hunk(s) 1 of 2") || !strings.Contains(got, "Hunk 2:") || !strings.Contains(got, "+func B() int { return 20 }") ||
		!strings.Contains(got, "(+1 −1)") {
		t.Errorf("tool result:\n%s", got)
	}
	if r := evs[len(evs)-1].Reason; r != agent.ReasonCompleted {
		t.Errorf("turn ended %s, want completed (a partial review is not a deny)", r)
	}
	if dones := ed.AskDones(); len(dones) != 1 || dones[0].Reason != "closed" {
		t.Errorf("askDone = %+v", dones)
	}
}

// The person edits the proposal: exactly their text lands, and the model
// is told how it differs from what it proposed.
func TestReviewWithEditedText(t *testing.T) {
	mine := strings.Replace(reviewFile, "return 1 }", "return 11 }", 1)
	ed, path, evs := reviewTurn(t, twoHunks, func(o *fake.Options) {
		o.Review = func(fake.Review) any { return map[string]any{"text": mine} }
	})
	if buf, _ := ed.Buffer(path); buf != mine {
		t.Errorf("buffer:\n%s\nwant the person's text", buf)
	}
	got := lastResult(evs, "multiedit")
	if !strings.Contains(got, "The person edited your change") || !strings.Contains(got, "+func A() int { return 11 }") {
		t.Errorf("tool result:\n%s", got)
	}
}

// Rejecting every hunk, or dismissing the review, is a deny: nothing
// changes and the turn ends.
func TestReviewRejectAll(t *testing.T) {
	for name, answer := range map[string]any{"none accepted": map[string]any{"accept": []int{}}, "dismissed": nil,
		"deny": map[string]any{"answer": "deny"}} {
		t.Run(name, func(t *testing.T) {
			ed, path, evs := reviewTurn(t, twoHunks, func(o *fake.Options) { o.Review = func(fake.Review) any { return answer } })
			if buf, _ := ed.Buffer(path); buf != reviewFile {
				t.Errorf("buffer changed:\n%s", buf)
			}
			if r := evs[len(evs)-1].Reason; r != agent.ReasonDenied {
				t.Errorf("turn ended %s, want denied", r)
			}
		})
	}
}

// A grant chosen in the review covers the next change in that folder: it
// lands without another review.
func TestReviewGrant(t *testing.T) {
	second := `{"tool_calls":[{"name":"multiedit","input":{"file_path":"a.go","edits":[{"old_string":"spacer 1","new_string":"spacer one"}]}}]}`
	ed, path, evs := reviewTurn(t, twoHunks+","+second, func(o *fake.Options) {
		o.Review = func(fake.Review) any { return map[string]any{"accept": []int{1, 2}, "answer": "allow_session"} }
	})
	if n := len(ed.Reviews()); n != 1 {
		t.Errorf("%d reviews, want 1 (the grant covers the second edit)", n)
	}
	buf, _ := ed.Buffer(path)
	if !strings.Contains(buf, "return 10") || !strings.Contains(buf, "return 20") || !strings.Contains(buf, "spacer one") {
		t.Errorf("buffer:\n%s", buf)
	}
	var sources []string
	for _, e := range evs {
		if e.Type == agent.EventPermission && e.Tool != "view" {
			sources = append(sources, e.Source)
		}
	}
	if strings.Join(sources, " ") != "user session-grant" {
		t.Errorf("permission sources = %v", sources)
	}
}

// A plugin that takes asks out of band gets agentls/ask, answers with
// agentls.approve, and gets agentls/askDone; no showMessageRequest.
func TestAsyncAsk(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[{"tool_calls":[{"name":"bash","input":{"command":"touch made.txt"}}]},{"text":"done"}]}`)
	ed, root := setup(t, nil, prov, func(o *fake.Options) {
		o.AsyncAnswer = func(fake.AsyncAsk) string { return "allow" }
	})
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "make it"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ed.Asks()) != 0 {
		t.Errorf("showMessageRequest was used: %+v", ed.Asks())
	}
	as := ed.AsyncAsks()
	if len(as) != 1 || as[0].Tool != "bash" || as[0].Capability != "shell.exec" || !strings.Contains(as[0].Message, "touch made.txt") ||
		len(as[0].Choices) < 2 || as[0].Choices[0].Answer != "allow" || as[0].Choices[len(as[0].Choices)-1].Answer != "deny" {
		t.Errorf("agentls/ask = %+v", as)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if err := ed.WaitFor(ctx, "askDone", func(e *fake.Editor) bool { return len(e.AskDones()) == 1 }); err != nil {
		t.Fatal(err)
	}
	if d := ed.AskDones()[0]; d.ID != as[0].ID || d.Reason != "answered" || d.Answer != "allow" {
		t.Errorf("askDone = %+v", d)
	}
	if r := evs[len(evs)-1].Reason; r != agent.ReasonCompleted {
		t.Errorf("turn ended %s", r)
	}
}

// A prompt that never answers cannot hold the session: cancelling the turn
// ends it at once and closes the prompt.
func TestAsyncAskNeverAnsweredThenCancel(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[{"tool_calls":[{"name":"bash","input":{"command":"touch made.txt"}}]},{"text":"never"}]}`)
	ed, root := setup(t, nil, prov, func(o *fake.Options) {
		o.AsyncAnswer = func(fake.AsyncAsk) string { return "" }
	})
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "make it"})
	if err := ed.WaitFor(ctx, "agentls/ask", func(e *fake.Editor) bool { return len(e.AsyncAsks()) == 1 }); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandCancel, lsp.CancelArgs{}); err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if r := evs[len(evs)-1].Reason; r != agent.ReasonCancelled {
		t.Errorf("turn ended %s, want cancelled", r)
	}
	if err := ed.WaitFor(ctx, "askDone", func(e *fake.Editor) bool { return len(e.AskDones()) == 1 }); err != nil {
		t.Fatal(err)
	}
	if d := ed.AskDones()[0]; d.Reason != "closed" {
		t.Errorf("askDone = %+v", d)
	}
	t.Logf("cancel to turn end: %v", time.Since(start))
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err == nil {
		t.Error("the unanswered command ran")
	}
}
