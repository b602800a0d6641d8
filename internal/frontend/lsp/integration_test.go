package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// setup writes files into a temp workspace, connects a fake editor with
// the given provider and initializes it.
func setup(t *testing.T, files map[string]string, prov agent.Provider, mod func(*fake.Options)) (*fake.Editor, string) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts := fake.Options{Roots: []string{root}}
	if prov != nil {
		opts.Server.NewProvider = func(string, string) (agent.Provider, error) { return prov, nil }
		opts.Server.ModelFlag = prov.Name()
	}
	opts.Server.Getenv = func(string) string { return "" }
	if mod != nil {
		mod(&opts)
	}
	ed := fake.Connect(ctx, opts)
	if _, err := ed.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	return ed, root
}

func script(t *testing.T, js string) agent.Provider {
	t.Helper()
	p, err := replay.Parse("replay:test", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// The walking skeleton: the agent views a file the user changed without
// saving, and sees the buffer, with progress and a final message.
func TestAskSeesUnsavedBuffer(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"text":"Looking.","tool_calls":[{"name":"view","input":{"file_path":"main.go"}}]},
		{"text":"The file prints UNSAVED.\nDetails follow."}]}`)
	ed, root := setup(t, map[string]string{"main.go": "package main\n\nfunc main() { println(\"DISK\") }\n"}, prov, nil)
	path := filepath.Join(root, "main.go")
	if err := ed.Open(ctx, path, "package main\n\nfunc main() { println(\"DISK\") }\n"); err != nil {
		t.Fatal(err)
	}
	// Replace DISK with UNSAVED in the buffer only (line 2, UTF-16 cols 23-27).
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 2, StartChar: 23, EndLine: 2, EndChar: 27, Text: "UNSAVED"}); err != nil {
		t.Fatal(err)
	}
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "what does main print?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID == "" || res.TurnID == "" {
		t.Fatalf("ask result %+v lacks ids", res)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	var viewed string
	for _, e := range evs {
		types = append(types, string(e.Type))
		if e.Type == agent.EventToolResult && e.Name == "view" {
			viewed = *e.Content
		}
	}
	want := "turn_start text_delta text tool_call permission tool_result text_delta text turn_end"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	if !strings.Contains(viewed, `println("UNSAVED")`) || strings.Contains(viewed, "DISK") {
		t.Errorf("view result does not show the unsaved buffer:\n%s", viewed)
	}
	// Progress: created, begin, a report naming the tool, end.
	if c := ed.Created(); len(c) != 1 {
		t.Fatalf("progress tokens created: %v", c)
	}
	var kinds, reports []string
	for _, p := range ed.Progress() {
		if k := p.Kind(); len(kinds) == 0 || kinds[len(kinds)-1] != k {
			kinds = append(kinds, k)
		}
		if p.Kind() == "report" {
			reports = append(reports, string(p.Value))
		}
		if p.Token != ed.Created()[0] {
			t.Errorf("progress on token %q, created %q", p.Token, ed.Created()[0])
		}
	}
	if strings.Join(kinds, " ") != "begin report end" {
		t.Errorf("progress kinds = %v", kinds)
	}
	all := strings.Join(reports, "\n")
	if !strings.Contains(all, "view main.go") {
		t.Errorf("progress reports %s do not say what the agent does", all)
	}
	if !strings.Contains(all, "UNSAVED. Details follow.") {
		t.Errorf("progress reports %s do not show the answer's latest words as they stream", all)
	}
	shows := ed.Shows()
	if len(shows) != 1 || shows[0].Type != 3 || shows[0].Message != "agentls: The file prints UNSAVED." {
		t.Errorf("final showMessage = %+v, want Info with the answer's first line", shows)
	}
	logs := ed.Logs() // the transcript: every event but the streamed pieces
	if len(logs) < len(evs)-2 || !strings.Contains(logs[2].Message, "view") {
		t.Errorf("logMessage transcript = %+v", logs)
	}
}

// blockingProvider never answers until its context ends: a model call in
// flight.
type blockingProvider struct{ started chan struct{} }

func (p *blockingProvider) Name() string { return "test:block" }
func (p *blockingProvider) Complete(ctx context.Context, _ agent.Request, _ agent.Stream) (agent.Response, error) {
	select {
	case p.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return agent.Response{}, ctx.Err()
}

func TestBusyAndCancel(t *testing.T) {
	for _, how := range []string{"command", "progress"} {
		t.Run(how, func(t *testing.T) {
			ctx := ctxT(t)
			prov := &blockingProvider{started: make(chan struct{}, 1)}
			ed, _ := setup(t, nil, prov, nil)
			res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "think forever"})
			if err != nil {
				t.Fatal(err)
			}
			<-prov.started
			_, err = ed.Ask(ctx, lsp.AskArgs{Prompt: "second"})
			if err == nil || !strings.Contains(err.Error(), "already running") {
				t.Fatalf("second ask while running: err = %v", err)
			}
			switch how {
			case "command":
				raw, err := ed.ExecuteCommand(ctx, lsp.CommandCancel, lsp.CancelArgs{TurnID: res.TurnID})
				if err != nil || !strings.Contains(string(raw), `"cancelled":true`) {
					t.Fatalf("cancel: %s, %v", raw, err)
				}
			case "progress":
				if err := ed.WaitFor(ctx, "progress begin", func(e *fake.Editor) bool { return len(e.Progress()) > 0 }); err != nil {
					t.Fatal(err)
				}
				token := ed.Created()[0]
				if err := ed.Conn().Notify(ctx, "window/workDoneProgress/cancel", map[string]string{"token": token}); err != nil {
					t.Fatal(err)
				}
			}
			evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
			if err != nil {
				t.Fatal(err)
			}
			if last := evs[len(evs)-1]; last.Reason != agent.ReasonCancelled {
				t.Errorf("turn ended with %q, want cancelled", last.Reason)
			}
			// The session is free again.
			if _, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "again"}); err != nil {
				t.Errorf("ask after cancel: %v", err)
			}
		})
	}
}

// Without a model the error names where to set one, in the words of the
// person's editor (clientInfo.name), and not agentls's own flag.
func TestNoModelConfigured(t *testing.T) {
	ctx := ctxT(t)
	for client, want := range map[string]string{
		"fake":               "the editor's initializationOptions.model",
		"Neovim":             "require('agentls').setup{…}",
		"Visual Studio Code": "the agentls.model setting",
		"code-server":        "the agentls.model setting",
		"Eglot":              "eglot-server-programs",
		"helix":              "languages.toml",
	} {
		ed, _ := setup(t, nil, nil, func(o *fake.Options) { o.ClientName = client })
		_, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "hi"})
		if err == nil {
			t.Fatal("ask without a model succeeded")
		}
		for _, place := range []string{want, "AGENTLS_MODEL", "config"} {
			if !strings.Contains(err.Error(), place) {
				t.Errorf("%s: error %q does not name %s", client, err, place)
			}
		}
		if strings.Contains(err.Error(), "--model") {
			t.Errorf("%s: error %q names the server's flag, which the person does not type", client, err)
		}
	}
}

// The model comes from initializationOptions when no flag is given.
func TestModelFromInitializationOptions(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	scriptPath := filepath.Join(dir, "s.json")
	if err := os.WriteFile(scriptPath, []byte(`{"turns":[{"text":"from init options"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ed, _ := setup(t, nil, nil, func(o *fake.Options) {
		o.InitOptions = map[string]any{"model": "replay:" + scriptPath}
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	if s := ed.Shows(); s[0].Message != "agentls: from init options" {
		t.Errorf("showMessage = %+v", s)
	}
}

// recordingProvider answers with fixed text and keeps the requests.
type recordingProvider struct {
	mu   sync.Mutex
	reqs []agent.Request
	err  error
}

func (p *recordingProvider) Name() string { return "test:record" }
func (p *recordingProvider) Complete(_ context.Context, r agent.Request, _ agent.Stream) (agent.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, r)
	return agent.Response{Text: "ok"}, p.err
}

func TestAskWithSelectionContext(t *testing.T) {
	ctx := ctxT(t)
	prov := &recordingProvider{}
	ed, root := setup(t, map[string]string{"a.go": "line0\nlïne1 😀 x\nline2\n"}, prov, nil)
	res, err := ed.Ask(ctx, lsp.AskArgs{
		Prompt: "explain",
		URI:    "file://" + filepath.Join(root, "a.go"),
		Range:  rangeOf(1, 0, 1, 8),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	user := prov.reqs[0].Messages[0].Content
	for _, want := range []string{"explain", "a.go", "lines 2-2", "lïne1 😀"} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, " x") {
		t.Errorf("selection went past its UTF-16 end:\n%s", user)
	}
}

func TestProviderErrorEndsTurnWithShowMessageError(t *testing.T) {
	ctx := ctxT(t)
	prov := &recordingProvider{err: errString("authentication failed (401): check the API key")}
	ed, _ := setup(t, nil, prov, nil)
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if evs[len(evs)-2].Type != agent.EventError || evs[len(evs)-1].Reason != agent.ReasonError {
		t.Errorf("events %+v do not end with error, turn_end(error)", evs)
	}
	s := ed.Shows()
	if len(s) != 1 || s[0].Type != 1 || !strings.Contains(s[0].Message, "check the API key") {
		t.Errorf("showMessage = %+v, want an Error naming the fix", s)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// A client without work-done progress still gets the turn and its end.
func TestClientWithoutProgress(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[{"text":"hello"}]}`)
	ed, _ := setup(t, nil, prov, func(o *fake.Options) { o.Capabilities = map[string]any{} })
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	if len(ed.Created()) != 0 || len(ed.Progress()) != 0 {
		t.Errorf("progress sent to a client without the capability: %v %v", ed.Created(), ed.Progress())
	}
}

// writeTool is a non-read-only tool for exercising the ask path.
type writeTool struct{ ran chan string }

func (w writeTool) Spec() tools.Spec {
	return tools.Spec{Name: "touch", Description: "test", Schema: json.RawMessage(`{"type":"object"}`),
		Capability: "fs.write", Action: permission.ActionWrite}
}
func (w writeTool) Describe(_ context.Context, c tools.Call) (permission.Request, error) {
	return permission.Request{Tool: "touch", Capability: "fs.write", Action: permission.ActionWrite, Summary: "agentls wants to touch x"}, nil
}
func (w writeTool) Run(_ context.Context, c tools.Call) (tools.Result, error) {
	w.ran <- c.ID
	return tools.Result{Content: "touched"}, nil
}

func TestAskThroughShowMessageRequest(t *testing.T) {
	for _, answer := range []string{"Allow", "Deny", ""} {
		t.Run("answer="+answer, func(t *testing.T) {
			ctx := ctxT(t)
			prov := script(t, `{"turns":[{"tool_calls":[{"name":"touch","input":{}}]},{"text":"finished"}]}`)
			ran := make(chan string, 1)
			ed, _ := setup(t, nil, prov, func(o *fake.Options) {
				o.Server.Tools = func(*tools.Workspace) []tools.Tool { return []tools.Tool{writeTool{ran}} }
				o.Answer = func(string, []string) string { return answer }
			})
			res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "touch it"})
			if err != nil {
				t.Fatal(err)
			}
			evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
			if err != nil {
				t.Fatal(err)
			}
			asks := ed.Asks()
			if len(asks) != 1 || asks[0].Message != "agentls wants to touch x" || strings.Join(asks[0].Actions, ",") != "Allow,Deny" {
				t.Fatalf("asks = %+v", asks)
			}
			end := evs[len(evs)-1].Reason
			select {
			case <-ran:
				if answer != "Allow" {
					t.Errorf("tool ran after answer %q", answer)
				}
			default:
				if answer == "Allow" {
					t.Error("tool did not run after Allow")
				}
			}
			want := agent.ReasonCompleted
			if answer != "Allow" {
				want = agent.ReasonDenied
			}
			if end != want {
				t.Errorf("turn ended %q, want %q", end, want)
			}
		})
	}
}

func rangeOf(l1, c1, l2, c2 uint32) *protocol.Range {
	r := &protocol.Range{}
	r.Start.Line, r.Start.Character, r.End.Line, r.End.Character = l1, c1, l2, c2
	return r
}

// Through the editor: a command that is not read-only produces exactly one
// showMessageRequest naming the exact command; a read-only one none.
func TestBashAsksOnlyForNonReadOnly(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"bash","input":{"command":"ls -la"}}]},
		{"tool_calls":[{"name":"bash","input":{"command":"touch made-by-agent.txt && echo done"}}]},
		{"text":"ok"}]}`)
	ed, root := setup(t, map[string]string{"a.txt": "x"}, prov, func(o *fake.Options) {
		o.Server.StateDir = t.TempDir()
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "make a file"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	asks := ed.Asks()
	if len(asks) != 1 || !strings.Contains(asks[0].Message, "`touch made-by-agent.txt && echo done`") {
		t.Fatalf("asks = %+v, want one naming the touch command", asks)
	}
	if _, err := os.Stat(filepath.Join(root, "made-by-agent.txt")); err != nil {
		t.Errorf("allowed command did not run: %v", err)
	}
	var results []string
	for _, e := range evs {
		if e.Type == agent.EventToolResult {
			results = append(results, *e.Content)
		}
	}
	if len(results) != 2 || !strings.Contains(results[0], "a.txt") || !strings.Contains(results[1], "done") {
		t.Errorf("tool results = %q", results)
	}
}

func TestCodeActions(t *testing.T) {
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.go": "package a\n\nfunc f() { x }\n"}, nil, nil)
	uri := "file://" + filepath.Join(root, "a.go")
	params := map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        map[string]any{"start": map[string]int{"line": 2, "character": 0}, "end": map[string]int{"line": 2, "character": 14}},
		"context": map[string]any{"diagnostics": []any{map[string]any{
			"range":   map[string]any{"start": map[string]int{"line": 2, "character": 11}, "end": map[string]int{"line": 2, "character": 12}},
			"message": "undefined: x", "source": "compiler", "severity": 1,
		}}},
	}
	var actions []struct {
		Title   string `json:"title"`
		Kind    string `json:"kind"`
		Command struct {
			Command   string           `json:"command"`
			Arguments []map[string]any `json:"arguments"`
		} `json:"command"`
	}
	if _, err := ed.Conn().Call(ctx, "textDocument/codeAction", params, &actions); err != nil {
		t.Fatal(err)
	}
	if len(actions) != 2 {
		t.Fatalf("actions = %+v, want the fix then the question", actions)
	}
	fix, sel := actions[0], actions[1]
	if fix.Title != "Fix with agent: undefined: x" || fix.Kind != "quickfix" || fix.Command.Command != "agentls.ask" {
		t.Errorf("fix action = %+v", fix)
	}
	arg := fix.Command.Arguments[0]
	if arg["uri"] != uri || !strings.Contains(arg["prompt"].(string), "a.go at line 3: undefined: x") {
		t.Errorf("fix argument = %v", arg)
	}
	if sel.Title != "Ask agent about selection…" || sel.Command.Arguments[0]["range"] == nil || sel.Command.Arguments[0]["editPrompt"] != true {
		t.Errorf("selection action = %+v", sel)
	}
	// Without diagnostics (no other language server) and without a
	// selection: ask about the line, and a fix that checks it.
	params["range"] = map[string]any{"start": map[string]int{"line": 2, "character": 3}, "end": map[string]int{"line": 2, "character": 3}}
	params["context"] = map[string]any{"diagnostics": []any{}}
	if _, err := ed.Conn().Call(ctx, "textDocument/codeAction", params, &actions); err != nil || len(actions) != 2 {
		t.Fatalf("no diagnostics: %+v %v", actions, err)
	}
	if actions[0].Title != "Ask agent about this line…" || actions[1].Title != "Fix with agent: check this line" ||
		!strings.Contains(actions[1].Command.Arguments[0]["prompt"].(string), "a.go around line 3") {
		t.Errorf("no diagnostics: %+v", actions)
	}
	// The editor asking on its own (VS Code, for its lightbulb, on every
	// cursor move): nothing on a plain line, the fix where a problem is,
	// the question on a selection.
	automatic := func(rng map[string]any, diags []any) []string {
		t.Helper()
		params["range"] = rng
		params["context"] = map[string]any{"diagnostics": diags, "triggerKind": 2}
		actions = nil
		if _, err := ed.Conn().Call(ctx, "textDocument/codeAction", params, &actions); err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, a := range actions {
			titles = append(titles, a.Title)
		}
		return titles
	}
	cursor := map[string]any{"start": map[string]int{"line": 2, "character": 3}, "end": map[string]int{"line": 2, "character": 3}}
	if got := automatic(cursor, []any{}); len(got) != 0 {
		t.Errorf("automatic, plain line: %q, want no action (no lightbulb)", got)
	}
	problem := []any{map[string]any{
		"range":   map[string]any{"start": map[string]int{"line": 2, "character": 11}, "end": map[string]int{"line": 2, "character": 12}},
		"message": "undefined: x", "severity": 1,
	}}
	if got := automatic(cursor, problem); len(got) != 1 || got[0] != "Fix with agent: undefined: x" {
		t.Errorf("automatic, on a problem: %q, want the fix only", got)
	}
	selection := map[string]any{"start": map[string]int{"line": 2, "character": 0}, "end": map[string]int{"line": 2, "character": 14}}
	if got := automatic(selection, []any{}); len(got) != 1 || got[0] != "Ask agent about selection…" {
		t.Errorf("automatic, on a selection: %q, want the question about it", got)
	}
}

// TestSessionSurvivesARestart: the person asks, the editor restarts the
// server, and an ask with the old sessionId gives the model the earlier
// turns; agentls.sessions lists the session.
func TestSessionSurvivesARestart(t *testing.T) {
	ctx := ctxT(t)
	dataDir := t.TempDir()
	prov := &recordingProvider{}
	withStore := func(o *fake.Options) { o.Server.DataDir = dataDir }
	ed, root := setup(t, map[string]string{"a.go": "package a\n"}, prov, withStore)
	first, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "the password is PELICAN"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnEnd(ctx, first.TurnID); err != nil {
		t.Fatal(err)
	}
	if err := ed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	// A new server process, the same data directory and folder.
	prov2 := &recordingProvider{}
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := fake.Options{Roots: []string{root}}
	opts.Server.NewProvider = func(string, string) (agent.Provider, error) { return prov2, nil }
	opts.Server.ModelFlag = prov2.Name()
	opts.Server.Getenv = func(string) string { return "" }
	opts.Server.DataDir = dataDir
	ed2 := fake.Connect(ctx2, opts)
	if _, err := ed2.Initialize(ctx2); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	raw, err := ed2.ExecuteCommand(ctx2, lsp.CommandSessions, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0]["id"] != first.SessionID || !strings.Contains(fmt.Sprint(list[0]["title"]), "PELICAN") {
		t.Errorf("agentls.sessions = %v, want the first session", list)
	}
	again, err := ed2.Ask(ctx2, lsp.AskArgs{Prompt: "what is the password?", SessionID: first.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed2.WaitTurnEnd(ctx2, again.TurnID); err != nil {
		t.Fatal(err)
	}
	if again.SessionID != first.SessionID || again.TurnID == first.TurnID {
		t.Errorf("resumed ask = %+v, first %+v: want the same session, a new turn", again, first)
	}
	prov2.mu.Lock()
	defer prov2.mu.Unlock()
	if len(prov2.reqs) != 1 {
		t.Fatalf("model got %d requests", len(prov2.reqs))
	}
	var seen []string
	for _, m := range prov2.reqs[0].Messages {
		seen = append(seen, string(m.Role)+": "+m.Content)
	}
	if got := strings.Join(seen, " | "); !strings.Contains(got, "PELICAN") || !strings.Contains(got, "assistant: ok") {
		t.Errorf("after the restart the model saw %q, want the earlier turn", got)
	}
}
