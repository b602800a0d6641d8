package lsp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// toolsSeen wraps a provider and records the tool names of each request.
type toolsSeen struct {
	agent.Provider
	mu    sync.Mutex
	names [][]string
}

func (p *toolsSeen) Complete(ctx context.Context, req agent.Request, st agent.Stream) (agent.Response, error) {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	p.mu.Lock()
	p.names = append(p.names, names)
	p.mu.Unlock()
	return p.Provider.Complete(ctx, req, st)
}

func (p *toolsSeen) first() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.names) == 0 {
		return nil
	}
	return p.names[0]
}

// toolResults are the contents of a turn's tool results, in order.
func toolResults(evs []agent.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == agent.EventToolResult && e.Content != nil {
			out = append(out, *e.Content)
		}
	}
	return out
}

// A plain editor gets the question as window/showMessageRequest with the
// options as actions; the choice is the tool's result. A question without
// options cannot be answered there: no prompt, "no answer".
func TestQuestionThroughShowMessageRequest(t *testing.T) {
	ctx := ctxT(t)
	prov := &toolsSeen{Provider: script(t, `{"turns":[
		{"tool_calls":[{"name":"question","input":{"question":"Which store?","options":["sqlite","postgres"]}}]},
		{"tool_calls":[{"name":"question","input":{"question":"What should the table be called?"}}]},
		{"text":"done"}]}`)}
	ed, _ := setup(t, nil, prov, func(o *fake.Options) {
		o.Answer = func(msg string, actions []string) string {
			if strings.HasPrefix(msg, "agentls asks: ") {
				return "postgres"
			}
			return "Deny"
		}
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "add storage"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(prov.first(), "question") {
		t.Errorf("an editor session was not offered question: %v", prov.first())
	}
	asks := ed.Asks()
	if len(asks) != 1 || asks[0].Message != "agentls asks: Which store?" || strings.Join(asks[0].Actions, "|") != "sqlite|postgres" {
		t.Fatalf("asks = %+v, want the one question with its options as actions", asks)
	}
	got := toolResults(evs)
	if len(got) != 2 || got[0] != "The person chose: postgres" || !strings.HasPrefix(got[1], "No answer: the question could not be shown (this editor can only offer choices") {
		t.Errorf("tool results = %q", got)
	}
	if r := evs[len(evs)-1].Reason; r != agent.ReasonCompleted {
		t.Errorf("turn ended %s", r)
	}
}

// An editor with the agentls plugin takes free text through
// agentls/question; no showMessageRequest is sent.
func TestQuestionThroughPlugin(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"question","input":{"question":"What should the table be called?"}}]},
		{"tool_calls":[{"name":"question","input":{"question":"Which checks?","options":["vet","lint","race"],"multi":true}}]},
		{"tool_calls":[{"name":"question","input":{"question":"Anything else?"}}]},
		{"text":"done"}]}`)
	ed, _ := setup(t, nil, prov, func(o *fake.Options) {
		o.Plugin = true
		o.AnswerQuestion = func(q fake.Question) (string, []string) {
			switch q.Question {
			case "What should the table be called?":
				return "call it kv", nil
			case "Which checks?":
				return "", []string{"vet", "race"}
			}
			return "", nil
		}
	})
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "add storage"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ed.Asks()) != 0 {
		t.Errorf("showMessageRequest was used: %+v", ed.Asks())
	}
	qs := ed.Questions()
	if len(qs) != 3 || !qs[1].Multi || strings.Join(qs[1].Options, ",") != "vet,lint,race" {
		t.Errorf("questions = %+v", qs)
	}
	want := []string{"The person answered: call it kv", "The person chose: vet; race", "No answer: the person dismissed the question"}
	got := toolResults(evs)
	for i := range want {
		if i >= len(got) || !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("tool results = %q, want %q", got, want)
			break
		}
	}
}

// fetch is asked by default: the person sees the URL and may allow the
// host for the session, which covers the next fetch from it. The host is
// a name no resolver looks up (a label may not end in "-"), so the test
// needs no network: both fetches fail to resolve.
func TestFetchAskedByDefault(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"fetch","input":{"url":"http://docs-.example/v1.2"}}]},
		{"tool_calls":[{"name":"fetch","input":{"url":"http://docs-.example/v1.3"}}]},
		{"text":"done"}]}`)
	ed, _ := setup(t, nil, prov, func(o *fake.Options) { o.Answer = pickSession("Allow") })
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "what changed?"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	asks := ed.Asks()
	if len(asks) != 1 {
		t.Fatalf("asks = %+v, want one (the second fetch is covered by the host grant)", asks)
	}
	if !strings.Contains(asks[0].Message, "http://docs-.example/v1.2") || !slices.Contains(asks[0].Actions, "Allow fetch from docs-.example this session") {
		t.Errorf("ask = %+v", asks[0])
	}
	got := toolResults(evs)
	if len(got) != 2 || !strings.Contains(got[0], "fetch http://docs-.example/v1.2") || !strings.Contains(got[1], "fetch http://docs-.example/v1.3") {
		t.Errorf("tool results = %q, want both fetches run (and fail to resolve)", got)
	}
}

// fetch never reaches this machine: a fetch of a local server is refused
// before anyone is asked, the model is told what to do instead, and the
// server sees no request.
func TestFetchLocalRefused(t *testing.T) {
	ctx := ctxT(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "<html><body>local admin</body></html>")
	}))
	defer srv.Close()
	prov := script(t, fmt.Sprintf(`{"turns":[
		{"tool_calls":[{"name":"fetch","input":{"url":"%s/admin"}}]},
		{"text":"done"}]}`, srv.URL))
	ed, _ := setup(t, nil, prov, func(o *fake.Options) { o.Answer = pickSession("Allow") })
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "read the admin page"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if asks := ed.Asks(); len(asks) != 0 {
		t.Errorf("asks = %+v, want none: the fetch cannot succeed", asks)
	}
	got := toolResults(evs)
	if len(got) != 1 || !strings.Contains(got[0], "never reaches this machine") || !strings.Contains(got[0], "run a command") {
		t.Errorf("tool results = %q, want the refusal and what to do instead", got)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the local server saw %d requests", n)
	}
}

// The agent's plan reaches the editor as a todos event with the whole list
// and as a progress report naming the item in progress.
func TestTodosReachTheEditor(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"todos","input":{"todos":[
			{"content":"Read the parser","status":"completed"},
			{"content":"Write the fix","status":"in_progress","active_form":"Writing the fix"},
			{"content":"Run the tests","status":"pending"}]}}]},
		{"text":"done"}]}`)
	ed, _ := setup(t, nil, prov, nil)
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "fix it"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	var todos []agent.Event
	for _, e := range evs {
		if e.Type == agent.EventTodos {
			todos = append(todos, e)
		}
	}
	if len(todos) != 1 || len(todos[0].Todos) != 3 || todos[0].Todos[1].ActiveForm != "Writing the fix" || todos[0].Message != "1/3: Writing the fix" {
		t.Fatalf("todos events = %+v", todos)
	}
	if len(ed.Asks()) != 0 {
		t.Errorf("todos was asked about: %+v", ed.Asks())
	}
	found := false
	for _, p := range ed.Progress() {
		if p.Kind() == "report" && strings.Contains(string(p.Value), `"message":"1/3: Writing the fix"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no progress report shows the plan: %+v", ed.Progress())
	}
	logged := false
	for _, m := range ed.Logs() {
		if strings.Contains(m.Message, "[>] Write the fix") {
			logged = true
		}
	}
	if !logged {
		t.Error("the transcript (logMessage) does not show the plan")
	}
}

// A model changed in the editor's settings applies at the next ask
// without a restart, and the conversation goes on.
func TestSettingsChangeAppliesWithoutRestart(t *testing.T) {
	ctx := ctxT(t)
	rig := newSettingsRig(t, "replay:first")
	first := rig.turn(ctx, t, "one")
	rig.change(ctx, t, "replay:second")
	second := rig.turn(ctx, t, "two")
	if second.SessionID != first.SessionID {
		t.Errorf("session %s after the change, want %s (the same conversation)", second.SessionID, first.SessionID)
	}
	if seen := rig.requests(); len(seen) != 2 || seen[0] != "replay:first saw 1 messages" || seen[1] != "replay:second saw 3 messages" {
		t.Errorf("requests: %q, want the first model then the second, shown the earlier turn", seen)
	}
}

// settingsRig is an editor whose "agentls" settings name a model a test
// changes (workspace/didChangeConfiguration); a model other than
// replay:… has no provider. Each request is recorded as "<model> saw <n>
// messages".
type settingsRig struct {
	ed    *fake.Editor
	mu    sync.Mutex
	model string
	seen  []string
}

func newSettingsRig(t *testing.T, model string) *settingsRig {
	rig := &settingsRig{model: model}
	rig.ed, _ = setup(t, nil, nil, func(o *fake.Options) {
		o.Server.DataDir = t.TempDir()
		o.Server.NewProvider = func(spec, _ string) (agent.Provider, error) {
			if !strings.HasPrefix(spec, "replay:") {
				return nil, fmt.Errorf("unknown provider in %q", spec)
			}
			return providerFunc(func(req agent.Request) agent.Response {
				rig.mu.Lock()
				defer rig.mu.Unlock()
				rig.seen = append(rig.seen, fmt.Sprintf("%s saw %d messages", spec, len(req.Messages)))
				return agent.Response{Text: "answer from " + spec}
			}), nil
		}
		o.Settings = func() any {
			rig.mu.Lock()
			defer rig.mu.Unlock()
			return map[string]any{"model": rig.model}
		}
	})
	return rig
}

// change sets the model and tells the server its settings changed.
func (r *settingsRig) change(ctx context.Context, t *testing.T, model string) {
	t.Helper()
	r.mu.Lock()
	r.model = model
	r.mu.Unlock()
	if err := r.ed.Conn().Notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": nil}); err != nil {
		t.Fatal(err)
	}
}

// turn asks prompt and waits for the turn's end.
func (r *settingsRig) turn(ctx context.Context, t *testing.T, prompt string) lsp.AskResult {
	t.Helper()
	res, err := r.ed.Ask(ctx, lsp.AskArgs{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	return res
}

func (r *settingsRig) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// providerFunc is a provider answering with a function.
type providerFunc func(agent.Request) agent.Response

func (providerFunc) Name() string { return "test:func" }
func (f providerFunc) Complete(_ context.Context, req agent.Request, _ agent.Stream) (agent.Response, error) {
	return f(req), nil
}

// A changed setting that does not make a session (a model without its
// provider) refuses the next prompt, saying why, before any model runs —
// rather than answering it with the previous model as if the change
// applied; once the setting is fixed the conversation goes on.
func TestBadSettingsChangeRefusesThePrompt(t *testing.T) {
	ctx := ctxT(t)
	rig := newSettingsRig(t, "replay:first")
	first := rig.turn(ctx, t, "one")
	rig.change(ctx, t, "gpt-4o")
	if _, err := rig.ed.Ask(ctx, lsp.AskArgs{Prompt: "two"}); err == nil || !strings.Contains(err.Error(), "the prompt was not sent") ||
		!strings.Contains(err.Error(), "gpt-4o") {
		t.Errorf("ask after the model became gpt-4o (no provider) = %v, want refused naming it", err)
	}
	rig.change(ctx, t, "replay:second")
	third := rig.turn(ctx, t, "three")
	if seen := rig.requests(); strings.Join(seen, ",") != "replay:first saw 1 messages,replay:second saw 3 messages" || third.SessionID != first.SessionID {
		t.Errorf("requests %q in session %s; want replay:first, then (after the fix) replay:second shown the first turn, in %s", seen, third.SessionID, first.SessionID)
	}
}

// A model set in config.json and changed there while agentls runs applies
// at the next prompt, with the conversation kept — no restart (VS Code
// users edit the file while the server runs).
func TestConfigFileChangeAppliesWithoutRestart(t *testing.T) {
	ctx := ctxT(t)
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	write := func(model string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(`{"model": "`+model+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("replay:first")
	var mu sync.Mutex
	var seen []string
	ed, _ := setup(t, nil, nil, func(o *fake.Options) {
		o.Server.DataDir = t.TempDir()
		o.Server.ConfigPath = cfgPath
		o.Server.Config = config.Config{Model: "replay:first"}
		o.Server.NewProvider = func(spec, _ string) (agent.Provider, error) {
			return providerFunc(func(req agent.Request) agent.Response {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, fmt.Sprintf("%s saw %d messages", spec, len(req.Messages)))
				return agent.Response{Text: "answer from " + spec}
			}), nil
		}
	})
	turn := func(prompt string) {
		t.Helper()
		res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
			t.Fatal(err)
		}
	}
	turn("one")
	write("replay:second-model") // another size: a change however coarse the file times
	turn("two")
	mu.Lock()
	defer mu.Unlock()
	want := []string{"replay:first saw 1 messages", "replay:second-model saw 3 messages"}
	if strings.Join(seen, "; ") != strings.Join(want, "; ") {
		t.Errorf("requests = %q, want %q", seen, want)
	}
}
