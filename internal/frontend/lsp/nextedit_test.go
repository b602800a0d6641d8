package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent/fim/fimtest"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
	"github.com/agentls/agentls/internal/langserver/overlay"
)

// addBody is a function whose parameter the tests rename.
const addBody = "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"

// isNextEdit tells a next-edit prompt from a fill-in-the-middle one.
func isNextEdit(r fimtest.Request) bool { return strings.Contains(r.Prompt, "Recent edits:") }

// renameModel answers fill in the middle with nothing and a next edit
// after the rename of a to x with the parameter's other use.
func renameModel(r fimtest.Request) fimtest.Reply {
	if !isNextEdit(r) {
		return fimtest.Reply{Parts: []string{""}}
	}
	if strings.Contains(r.Prompt, "-func Add(a, b int) int {\n+func Add(x, b int) int {\n") {
		return fimtest.Reply{Parts: []string{"\treturn a + b\n", "=======\n", "\treturn x + b\n"}}
	}
	return fimtest.Reply{Parts: []string{"NONE"}}
}

// nextEditRequests counts the model's next-edit requests.
func nextEditRequests(srv *fimtest.Server) (n int) {
	for _, r := range srv.Requests() {
		if isNextEdit(r) {
			n++
		}
	}
	return n
}

// heldRenameModel is renameModel whose next edits wait until hold is
// closed, with fill as every fill-in-the-middle answer.
func heldRenameModel(hold chan struct{}, fill string) func(fimtest.Request) fimtest.Reply {
	return func(r fimtest.Request) fimtest.Reply {
		if isNextEdit(r) {
			reply := renameModel(r)
			reply.Hold = hold
			return reply
		}
		return fimtest.Reply{Parts: []string{fill}}
	}
}

// waitNextEditAsked waits until the model has a next-edit request; why
// says what should have asked.
func waitNextEditAsked(ctx context.Context, t *testing.T, srv *fimtest.Server, why string) {
	t.Helper()
	for nextEditRequests(srv) == 0 {
		if ctx.Err() != nil {
			t.Fatal(why)
		}
		time.Sleep(time.Millisecond)
	}
}

// openAdd starts agentls with srv as the completion model and opens
// calc.go (addBody) in the editor, as the next-edit tests begin.
func openAdd(ctx context.Context, t *testing.T, srv *fimtest.Server) (*fake.Editor, string) {
	t.Helper()
	ed, root := setup(t, map[string]string{"calc.go": "package calc\n"}, nil, func(o *fake.Options) {
		o.InitOptions = completionSettings(srv, nil)
	})
	path := filepath.Join(root, "calc.go")
	if err := ed.Open(ctx, path, addBody); err != nil {
		t.Fatal(err)
	}
	return ed, path
}

// renameA renames Add's parameter a to x, as the person types it.
func renameA(ctx context.Context, t *testing.T, ed *fake.Editor, path string) {
	t.Helper()
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 3, StartChar: 9, EndLine: 3, EndChar: 10, Text: "x"}); err != nil {
		t.Fatal(err)
	}
}

// codeActionEdit is a code action as the tests read it.
type codeActionEdit struct {
	Title string `json:"title"`
	Kind  string `json:"kind"`
	Edit  *struct {
		Changes map[string][]struct {
			Range struct {
				Start, End struct{ Line, Character int }
			} `json:"range"`
			NewText string `json:"newText"`
		} `json:"changes"`
	} `json:"edit"`
	Command *struct {
		Command string `json:"command"`
	} `json:"command"`
}

// codeActions asks for the code actions at the start of a line, as the
// person does (no trigger kind: a client before LSP 3.17, or Invoked).
func codeActions(ctx context.Context, t *testing.T, ed *fake.Editor, path string, line int) []codeActionEdit {
	t.Helper()
	return codeActionsTriggered(ctx, t, ed, path, line, 0)
}

// codeActionsTriggered asks for the code actions at the start of a line
// with an LSP 3.17 trigger kind (2: Automatic, the editor on its own).
func codeActionsTriggered(ctx context.Context, t *testing.T, ed *fake.Editor, path string, line, trigger int) []codeActionEdit {
	t.Helper()
	at := map[string]int{"line": line, "character": 0}
	actx := map[string]any{"diagnostics": []any{}}
	if trigger != 0 {
		actx["triggerKind"] = trigger
	}
	var actions []codeActionEdit
	if _, err := ed.Conn().Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": overlay.PathToURI(path)},
		"range":        map[string]any{"start": at, "end": at},
		"context":      actx,
	}, &actions); err != nil {
		t.Fatal(err)
	}
	return actions
}

// TestNextEditOneAskForACodeActionAndAnInlineRequest: a code action the
// person asked for, waiting for the model, and an inline request for the
// same text share one model request; the ghost text does not wait for it
// and the code action gets its answer.
func TestNextEditOneAskForACodeActionAndAnInlineRequest(t *testing.T) {
	ctx := ctxT(t)
	hold := make(chan struct{})
	srv := fimtest.New(heldRenameModel(hold, "// sum"))
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	renameA(ctx, t, ed, path)
	actions := make(chan []codeActionEdit, 1)
	go func() { actions <- codeActions(ctx, t, ed, path, 0) }()
	waitNextEditAsked(ctx, t, srv, "the code action did not ask for the next edit")
	got, err := ed.InlineCompletion(ctx, path, 5, 1, fake.InlineInvoked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) == 0 || got.Items[0].InsertText != "// sum" {
		t.Fatalf("items = %+v, want the fill at once", got)
	}
	close(hold)
	if a := <-actions; len(a) == 0 || a[0].Kind != "refactor.rewrite" {
		t.Fatalf("actions = %+v, want the next edit first", a)
	}
	if n := nextEditRequests(srv); n != 1 {
		t.Errorf("next-edit requests %d, want 1: the inline request shares the code action's", n)
	}
}

// TestNextEditNotAskedForTyping: after plain typing (text added, none
// changed) neither kind of code action request asks the model for a next
// edit.
func TestNextEditNotAskedForTyping(t *testing.T) {
	ctx := ctxT(t)
	srv := fimtest.New(renameModel)
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 4, StartChar: 13, EndLine: 4, EndChar: 13, Text: " + 0"}); err != nil {
		t.Fatal(err)
	}
	for _, trigger := range []int{0, 1, 2} {
		for _, a := range codeActionsTriggered(ctx, t, ed, path, 4, trigger) {
			if a.Kind == "refactor.rewrite" {
				t.Fatalf("a next edit after typing: %+v", a)
			}
		}
	}
	time.Sleep(50 * time.Millisecond) // an ask in the background would be made by now
	if n := nextEditRequests(srv); n != 0 {
		t.Errorf("next-edit requests %d after typing, want 0", n)
	}
}

// TestNextEditAutomaticCodeActionNeverWaits: code actions the editor asks
// for on its own (VS Code's lightbulb; under --wrap, merged with the
// server's) come at once while the model is still finding the next edit,
// which is asked for once and comes with a later request.
func TestNextEditAutomaticCodeActionNeverWaits(t *testing.T) {
	ctx := ctxT(t)
	hold := make(chan struct{})
	srv := fimtest.New(heldRenameModel(hold, ""))
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	renameA(ctx, t, ed, path)
	// The model holds its answer until the test lets it go: a request
	// that waited for it would never return.
	for _, a := range codeActionsTriggered(ctx, t, ed, path, 0, 2) {
		if a.Kind == "refactor.rewrite" {
			t.Fatalf("a next edit before the model answered: %+v", a)
		}
	}
	waitNextEditAsked(ctx, t, srv, "the automatic request did not have the next edit asked for")
	codeActionsTriggered(ctx, t, ed, path, 0, 2) // the ask under way: no second one
	close(hold)
	for {
		a := codeActionsTriggered(ctx, t, ed, path, 0, 2)
		if len(a) > 0 && a[0].Kind == "refactor.rewrite" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("actions = %+v, never the next edit after the model answered", a)
		}
		time.Sleep(time.Millisecond)
	}
	if n := nextEditRequests(srv); n != 1 {
		t.Errorf("next-edit requests %d, want 1", n)
	}
}

// TestNextEditRenameParameter: after the person renames a parameter on
// one line, the model is asked with that edit and the unsaved buffer, and
// its suggestion — the parameter's other use — comes as an inline
// completion item whose range is that use, and as a code action with the
// edit; the second asks the model no more.
func TestNextEditRenameParameter(t *testing.T) {
	ctx := ctxT(t)
	srv := fimtest.New(renameModel)
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	got, err := ed.InlineCompletion(ctx, path, 3, 10, fake.InlineAutomatic)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 0 || nextEditRequests(srv) != 0 {
		t.Fatalf("before any edit: items %+v, %d next-edit requests; want none", got, nextEditRequests(srv))
	}
	renameA(ctx, t, ed, path)
	got, err = ed.InlineCompletion(ctx, path, 3, 10, fake.InlineAutomatic)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 {
		t.Fatalf("items = %+v, want the next edit", got)
	}
	it := got.Items[0]
	if r := it.Range; it.InsertText != "x" || r == nil || r.Start.Line != 4 || r.Start.Character != 8 || r.End.Line != 4 || r.End.Character != 9 {
		t.Errorf("item = %q at %+v, want x replacing a at 4:8-4:9", it.InsertText, r)
	}
	var prompt string
	for _, r := range srv.Requests() {
		if isNextEdit(r) {
			prompt = r.Prompt
		}
	}
	for _, want := range []string{"File: calc.go", "@@ line 4 @@\n-func Add(a, b int) int {\n+func Add(x, b int) int {\n", "// Add returns the sum of a and b.\nfunc Add(x, b int) int {\n\treturn a + b\n}\n"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the next-edit prompt lacks %q:\n%s", want, prompt)
		}
	}

	actions := codeActions(ctx, t, ed, path, 0)
	if len(actions) == 0 || actions[0].Kind != "refactor.rewrite" || actions[0].Edit == nil {
		t.Fatalf("code actions = %+v, want the next edit first", actions)
	}
	a := actions[0]
	if a.Title != "agentls: next edit: line 5: return a + b → return x + b" {
		t.Errorf("title %q", a.Title)
	}
	edits := a.Edit.Changes[overlay.PathToURI(path)]
	if len(edits) != 1 || edits[0].NewText != "x" || edits[0].Range.Start.Line != 4 || edits[0].Range.Start.Character != 8 || edits[0].Range.End.Character != 9 {
		t.Errorf("the action's edit = %+v, want x at 4:8-4:9", edits)
	}
	if a.Command == nil || a.Command.Command != lsp.CommandInlineAccepted {
		t.Errorf("the action's command = %+v, want %s", a.Command, lsp.CommandInlineAccepted)
	}
	if n := nextEditRequests(srv); n != 1 {
		t.Errorf("the model was asked for a next edit %d times, want once (the code action reuses it)", n)
	}

	// The person accepts it: the edit is theirs now, and nothing more
	// follows (the model answers NONE).
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 4, StartChar: 8, EndLine: 4, EndChar: 9, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if got := codeActions(ctx, t, ed, path, 0); len(got) > 0 && got[0].Kind == "refactor.rewrite" {
		t.Errorf("after accepting: %+v, want no next edit", got[0])
	}
	if n := nextEditRequests(srv); n != 2 {
		t.Errorf("next-edit requests %d, want 2", n)
	}
}

// TestNextEditNeverDelaysTheGhostText: a next-edit model slower than
// the fill answers the text at the cursor at once; the next edit, still
// asked for the document, comes with a later request for the same text,
// without a second model request.
func TestNextEditNeverDelaysTheGhostText(t *testing.T) {
	ctx := ctxT(t)
	hold := make(chan struct{})
	srv := fimtest.New(heldRenameModel(hold, "// sum"))
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	renameA(ctx, t, ed, path)
	got, err := ed.InlineCompletion(ctx, path, 5, 1, fake.InlineInvoked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].InsertText != "// sum" {
		t.Fatalf("items = %+v, want the fill alone while the next edit is asked", got)
	}
	waitNextEditAsked(ctx, t, srv, "the next edit was never asked for")
	close(hold)
	// Once the model has answered, a request for the same text has both.
	for len(got.Items) < 2 {
		if ctx.Err() != nil {
			t.Fatalf("items = %+v, never the fill and the next edit", got)
		}
		time.Sleep(time.Millisecond)
		if got, err = ed.InlineCompletion(ctx, path, 5, 1, fake.InlineInvoked); err != nil {
			t.Fatal(err)
		}
	}
	if got.Items[1].InsertText != "x" {
		t.Errorf("items = %+v, want the fill and the next edit (x)", got)
	}
	if n := nextEditRequests(srv); n != 1 {
		t.Errorf("next-edit requests %d, want 1: the second request waits for the first ask", n)
	}
}

// TestNextEditSurvivesARequestForTheSameText: a request for the same text
// (the cursor moved, nothing typed) supersedes the one that started the
// document's next-edit ask; the ask goes on for the newer request, which
// gets its answer, and the model is asked once.
func TestNextEditSurvivesARequestForTheSameText(t *testing.T) {
	ctx := ctxT(t)
	hold := make(chan struct{})
	aborted := make(chan struct{}, 4)
	srv := fimtest.New(heldRenameModel(hold, ""))
	srv.OnAbort = func(r fimtest.Request, _ time.Time) {
		if isNextEdit(r) {
			aborted <- struct{}{}
		}
	}
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	renameA(ctx, t, ed, path)
	go func() { _, _ = ed.InlineCompletion(ctx, path, 3, 10, fake.InlineInvoked) }()
	waitNextEditAsked(ctx, t, srv, "no next-edit request")
	type result struct {
		items int
		err   error
	}
	second := make(chan result, 1)
	go func() {
		got, err := ed.InlineCompletion(ctx, path, 4, 1, fake.InlineInvoked)
		second <- result{len(got.Items), err}
	}()
	select {
	case <-aborted:
		t.Fatal("the next-edit model request was ended by a request for the same text")
	case <-time.After(300 * time.Millisecond):
	}
	close(hold)
	if r := <-second; r.err != nil || r.items != 1 {
		t.Errorf("the second request: %d items (%v), want the next edit", r.items, r.err)
	}
	if n := nextEditRequests(srv); n != 1 {
		t.Errorf("next-edit requests %d, want 1", n)
	}
}

// TestNextEditAfterAccept: agentls.inlineAccepted (an accepted item's
// command) asks for the next edit at once, so the next request has it
// without asking the model again; a change while it is asked ends the
// model's request.
func TestNextEditAfterAccept(t *testing.T) {
	ctx := ctxT(t)
	hold := make(chan struct{})
	defer close(hold)
	aborted := make(chan string, 4)
	srv := fimtest.New(func(r fimtest.Request) fimtest.Reply {
		if isNextEdit(r) && strings.Contains(r.Prompt, "ab, b int") {
			return fimtest.Reply{Hold: hold, Parts: []string{"STALE"}}
		}
		return renameModel(r)
	})
	srv.OnAbort = func(r fimtest.Request, _ time.Time) { aborted <- r.Prompt }
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	renameA(ctx, t, ed, path)
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandInlineAccepted, lsp.InlineAcceptedArgs{URI: overlay.PathToURI(path)}); err != nil {
		t.Fatal(err)
	}
	waitNextEditAsked(ctx, t, srv, "agentls.inlineAccepted asked the model for nothing")
	if a := codeActions(ctx, t, ed, path, 0); len(a) == 0 || a[0].Kind != "refactor.rewrite" {
		t.Errorf("code actions = %+v, want the next edit", a)
	}
	if n := nextEditRequests(srv); n != 1 {
		t.Errorf("next-edit requests %d, want 1 (the request used what was asked on accept)", n)
	}

	// Another accepted edit, whose next edit the model is slow to find;
	// the person types on, which ends that request.
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 3, StartChar: 9, EndLine: 3, EndChar: 10, Text: "ab"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandInlineAccepted, lsp.InlineAcceptedArgs{URI: overlay.PathToURI(path)}); err != nil {
		t.Fatal(err)
	}
	for nextEditRequests(srv) < 2 {
		if ctx.Err() != nil {
			t.Fatal("the second accept asked the model for nothing")
		}
		time.Sleep(time.Millisecond)
	}
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 3, StartChar: 11, EndLine: 3, EndChar: 11, Text: "c"}); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-aborted:
		if !strings.Contains(p, "ab, b int") {
			t.Errorf("an unexpected request ended: %q", p)
		}
	case <-ctx.Done():
		t.Fatal("the stale next-edit request never ended after the person typed")
	}
}

// TestNextEditCancelled: $/cancelRequest for an inline completion ends
// its next-edit model request at once, and no late suggestion is shown:
// the cancelled request answers nothing, and the next request asks anew.
func TestNextEditCancelled(t *testing.T) {
	ctx := ctxT(t)
	hold := make(chan struct{})
	defer close(hold)
	aborted := make(chan time.Time, 4)
	var first atomic.Bool
	first.Store(true)
	srv := fimtest.New(func(r fimtest.Request) fimtest.Reply {
		if isNextEdit(r) && first.CompareAndSwap(true, false) {
			return fimtest.Reply{Hold: hold, Parts: []string{"\treturn a + b\n=======\n\treturn LATE + b\n"}}
		}
		return renameModel(r)
	})
	srv.OnAbort = func(r fimtest.Request, at time.Time) {
		if isNextEdit(r) {
			aborted <- at
		}
	}
	defer srv.Close()
	ed, path := openAdd(ctx, t, srv)
	renameA(ctx, t, ed, path)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := ed.InlineCompletion(rctx, path, 3, 10, fake.InlineInvoked)
		done <- err
	}()
	waitNextEditAsked(ctx, t, srv, "no next-edit request")
	cancelled := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("InlineCompletion = %v, want cancelled", err)
	}
	select {
	case at := <-aborted:
		t.Logf("the model's next-edit request ended %v after $/cancelRequest", at.Sub(cancelled))
	case <-ctx.Done():
		t.Fatal("the next-edit request never ended after $/cancelRequest")
	}
	got, err := ed.InlineCompletion(ctx, path, 3, 10, fake.InlineInvoked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].InsertText != "x" {
		t.Errorf("the next request got %+v, want the model's new answer (x), never the cancelled one's", got)
	}
}

// TestNextEditExcludedFile: edits to a secret (.env) or an ignored file
// send nothing — no next-edit request, no inline item, no code action —
// while the same edit to an ordinary file is sent.
func TestNextEditExcludedFile(t *testing.T) {
	const secret = "sk-live-0123456789"
	srv := fimtest.New(func(r fimtest.Request) fimtest.Reply {
		return fimtest.Reply{Parts: []string{"API_KEY=x\n=======\nAPI_KEY=y\n"}}
	})
	defer srv.Close()
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{".gitignore": "local/\n", "main.go": "package main\n"}, nil,
		func(o *fake.Options) { o.InitOptions = completionSettings(srv, nil) })
	for _, tt := range []struct {
		rel  string
		want bool
	}{{".env", false}, {"local/keys.go", false}, {"main.go", true}} {
		t.Run(tt.rel, func(t *testing.T) {
			path := filepath.Join(root, filepath.FromSlash(tt.rel))
			if err := ed.Open(ctx, path, "API_KEY="+secret+"\nAPI_KEY=x\n"); err != nil {
				t.Fatal(err)
			}
			if err := ed.Change(ctx, path, fake.Edit{StartLine: 0, StartChar: 8, EndLine: 0, EndChar: 8, Text: "new-"}); err != nil {
				t.Fatal(err)
			}
			before := len(srv.Requests())
			got, err := ed.InlineCompletion(ctx, path, 0, 12, fake.InlineInvoked)
			if err != nil {
				t.Fatal(err)
			}
			actions := codeActions(ctx, t, ed, path, 1)
			offered := len(actions) > 0 && actions[0].Kind == "refactor.rewrite"
			asked := len(srv.Requests()) > before
			if asked != tt.want || offered != tt.want || (len(got.Items) > 0) != tt.want {
				t.Errorf("model asked %v, code action %v, items %+v; want all %v", asked, offered, got, tt.want)
			}
		})
	}
	n := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.Prompt, secret) {
			if !strings.Contains(r.Prompt, "main.go") && isNextEdit(r) {
				t.Errorf("an excluded file reached the model:\n%s", r.Prompt)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("main.go was not sent: the test would pass without looking")
	}
}

// TestWrapNextEdit: with `agentls serve --wrap gopls`, the editor's
// whole-text change reaches gopls (its diagnostic: undefined: a) and is
// diffed into agentls's recent edits, and the code action answer, merged
// with gopls's, holds the next edit.
func TestWrapNextEdit(t *testing.T) {
	requireGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := fimtest.New(renameModel)
	defer srv.Close()
	files := map[string]string{"go.mod": wrapFiles["go.mod"], "calc.go": addBody}
	e, _ := startWrapped(t, writeWorkspace(t, files), nil)
	e.initialize(ctx, map[string]any{"agentls": completionSettings(srv, nil)})
	e.open(ctx, "calc.go")
	e.change(ctx, "calc.go", 2, strings.Replace(addBody, "Add(a, b", "Add(x, b", 1))
	// gopls reports the undefined a; its diagnostics come with the version.
	diags := e.diagnosticsAt(ctx, "calc.go", 2, true)
	var p struct {
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(diags), &p); err != nil {
		t.Fatal(err)
	}
	raw := e.call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": e.uri("calc.go")}, "range": map[string]any{"start": pos(4, 8), "end": pos(4, 8)},
		"context": map[string]any{"diagnostics": p.Diagnostics}})
	var actions []codeActionEdit
	if err := json.Unmarshal([]byte(raw), &actions); err != nil {
		t.Fatal(err)
	}
	var titles []string
	next := -1
	for i, a := range actions {
		titles = append(titles, a.Title)
		if a.Kind == "refactor.rewrite" && strings.HasPrefix(a.Title, "agentls: next edit: line 5") {
			next = i
		}
	}
	if next < 0 {
		t.Fatalf("code actions %q: want agentls's next edit among them", titles)
	}
	if edits := actions[next].Edit.Changes[e.norm(e.uri("calc.go"))]; len(edits) != 1 || edits[0].NewText != "x" || edits[0].Range.Start.Line != 4 || edits[0].Range.Start.Character != 8 {
		t.Errorf("the next edit's edit = %+v, want x at 4:8 (%s)", edits, raw)
	}
	if !strings.Contains(diags, "undefined: a") {
		t.Errorf("gopls's diagnostics %s: want undefined: a (gopls got the change too)", diags)
	}
}
