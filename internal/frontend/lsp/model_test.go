package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// TestModelCommand: agentls.model says which model the next prompt goes to
// — the editor's setting over the config file — or, with none anywhere,
// that there is none, naming the editor's own setting, before any prompt;
// a model named that cannot run (no key, no such provider) comes with why.
func TestModelCommand(t *testing.T) {
	cases := []struct {
		name       string
		client     string
		init       any
		want       string
		wantReason string
	}{
		{"the editor's setting", "Visual Studio Code", map[string]any{"model": "local:qwen3",
			"providers": map[string]any{"local": map[string]string{"base_url": "http://127.0.0.1:1/v1"}}}, "local:qwen3", ""},
		// Named but it cannot run: the problem says why before any prompt
		// (VS Code announced it as applied, issue 27).
		{"no key", "Visual Studio Code", map[string]string{"model": "openai:gpt-4.1"}, "openai:gpt-4.1", "set the OPENAI_API_KEY environment variable"},
		{"no provider", "Visual Studio Code", map[string]string{"model": "local:qwen3"}, "local:qwen3", "unknown provider \"local\""},
		{"none anywhere, VS Code", "Visual Studio Code", nil, "", "the agentls.model setting"},
		{"none anywhere, Neovim", "Neovim", nil, "", "require('agentls').setup"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := ctxT(t)
			ed, _ := setup(t, nil, nil, func(o *fake.Options) {
				o.ClientName = c.client
				o.InitOptions = c.init
			})
			raw, err := ed.ExecuteCommand(ctx, lsp.CommandModel, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got lsp.ModelStatus
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got.Model != c.want || (c.wantReason == "") != (got.Problem == "") || !strings.Contains(got.Problem, c.wantReason) {
				t.Errorf("agentls.model = %s, want model %q and a problem naming %q", raw, c.want, c.wantReason)
			}
		})
	}
}

// setModel runs agentls.setModel and decodes its reply.
func setModel(ctx context.Context, t *testing.T, ed *fake.Editor, spec string) (lsp.ModelStatus, error) {
	t.Helper()
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandSetModel, lsp.SetModelArgs{Model: spec})
	if err != nil {
		return lsp.ModelStatus{}, err
	}
	var st lsp.ModelStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st, nil
}

// modelStatus runs agentls.model and decodes its reply.
func modelStatus(ctx context.Context, t *testing.T, ed *fake.Editor) lsp.ModelStatus {
	t.Helper()
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st lsp.ModelStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSetModelKeepsTheConversation: agentls.setModel switches the
// conversation between turns — the new model's first request holds the
// earlier turns, the editor gets a model event and agentls.model names the
// new model — and holds when the settings change something else; a later
// change of the settings' model is the newer choice. A model without its
// provider is refused, naming it, and the conversation keeps its model.
func TestSetModelKeepsTheConversation(t *testing.T) {
	ctx := ctxT(t)
	rig := newSettingsRig(t, "replay:first")
	first := rig.turn(ctx, t, "one")
	st, err := setModel(ctx, t, rig.ed, "replay:second")
	if err != nil || st.Model != "replay:second" {
		t.Fatalf("setModel = %+v, %v", st, err)
	}
	if err := rig.ed.WaitFor(ctx, "the model event", func(e *fake.Editor) bool {
		for _, ev := range e.Events() {
			if ev.Type == agent.EventModel && ev.Model == "replay:second" && ev.SessionID == first.SessionID {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	second := rig.turn(ctx, t, "two")
	if got := modelStatus(ctx, t, rig.ed); got.Model != "replay:second" || got.Models[0].Model != "replay:second" {
		t.Errorf("agentls.model after the switch = %+v", got)
	}

	rig.change(ctx, t, "replay:first") // the settings change, not their model
	rig.turn(ctx, t, "three")
	rig.change(ctx, t, "replay:fourth") // the settings' model changes: the newer choice
	fourth := rig.turn(ctx, t, "four")

	if _, err := setModel(ctx, t, rig.ed, "gpt-4o"); err == nil || !strings.Contains(err.Error(), "stays on replay:fourth") ||
		!strings.Contains(err.Error(), "gpt-4o") {
		t.Errorf("setModel to a model without a provider: %v", err)
	}
	rig.turn(ctx, t, "five")
	want := []string{"replay:first saw 1 messages", "replay:second saw 3 messages", "replay:second saw 5 messages",
		"replay:fourth saw 7 messages", "replay:fourth saw 9 messages"}
	if seen := rig.requests(); strings.Join(seen, "; ") != strings.Join(want, "; ") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if second.SessionID != first.SessionID || fourth.SessionID != first.SessionID {
		t.Errorf("sessions %s, %s, %s: want one conversation", first.SessionID, second.SessionID, fourth.SessionID)
	}
}

// TestSetModelBeforeTheFirstPrompt: a model chosen before there is a
// conversation is the one it starts with; one that cannot run is refused
// at once; agentls.model offers the settings' model and says which the
// next prompt goes to.
func TestSetModelBeforeTheFirstPrompt(t *testing.T) {
	ctx := ctxT(t)
	rig := newSettingsRig(t, "replay:first")
	if st := modelStatus(ctx, t, rig.ed); st.Model != "replay:first" || len(st.Models) == 0 || st.Models[0].Model != "replay:first" {
		t.Errorf("agentls.model before anything = %+v", st)
	}
	if _, err := setModel(ctx, t, rig.ed, "nope:x"); err == nil || !strings.Contains(err.Error(), "nope:x") {
		t.Errorf("setModel(nope:x) = %v, want refused naming it", err)
	}
	if _, err := setModel(ctx, t, rig.ed, "replay:chosen"); err != nil {
		t.Fatal(err)
	}
	st := modelStatus(ctx, t, rig.ed)
	var offered []string
	for _, c := range st.Models {
		offered = append(offered, c.Model)
	}
	if st.Model != "replay:chosen" || strings.Join(offered, " ") != "replay:chosen replay:first" {
		t.Errorf("agentls.model after the choice = %+v", st)
	}
	rig.turn(ctx, t, "one")
	if seen := rig.requests(); len(seen) != 1 || seen[0] != "replay:chosen saw 1 messages" {
		t.Errorf("requests %q, want the chosen model's", seen)
	}
}

// TestSetModelWhileATurnRuns: the switch waits for no turn — it is
// refused, saying so, and the running turn keeps its model.
func TestSetModelWhileATurnRuns(t *testing.T) {
	ctx := ctxT(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	ed, _ := setup(t, nil, nil, func(o *fake.Options) {
		o.InitOptions = map[string]string{"model": "replay:slow"}
		o.Server.NewProvider = func(spec, _ string) (agent.Provider, error) {
			return providerFunc(func(agent.Request) agent.Response {
				started <- struct{}{}
				<-release
				return agent.Response{Text: "done"}
			}), nil
		}
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	_, err = setModel(ctx, t, ed, "replay:other")
	close(release)
	if err == nil || !strings.Contains(err.Error(), "a turn is already running") {
		t.Errorf("setModel during a turn = %v", err)
	}
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	if st := modelStatus(ctx, t, ed); st.Model != "replay:slow" {
		t.Errorf("after the refused switch the model is %q", st.Model)
	}
}

// TestModelOfAStoredSession: after a restart, agentls.model asked about
// the stored session a chat shows names the model chosen in it (not the
// settings'), and the prompt that continues it goes there.
func TestModelOfAStoredSession(t *testing.T) {
	ctx := ctxT(t)
	dataDir := t.TempDir()
	var mu sync.Mutex
	var seen []string
	editor := func() *fake.Editor {
		ed, _ := setup(t, nil, nil, func(o *fake.Options) {
			o.Server.DataDir = dataDir
			o.InitOptions = map[string]string{"model": "replay:first"}
			o.Server.NewProvider = func(spec, _ string) (agent.Provider, error) {
				return providerFunc(func(req agent.Request) agent.Response {
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, fmt.Sprintf("%s saw %d messages", spec, len(req.Messages)))
					return agent.Response{Text: "ok"}
				}), nil
			}
		})
		return ed
	}
	first := editor()
	res, err := first.Ask(ctx, lsp.AskArgs{Prompt: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	if _, err := setModel(ctx, t, first, "replay:second"); err != nil {
		t.Fatal(err)
	}

	second := editor() // another server: a restart
	status := func(args any) string {
		raw, err := second.ExecuteCommand(ctx, lsp.CommandModel, args)
		if err != nil {
			t.Fatal(err)
		}
		var st lsp.ModelStatus
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		return st.Model
	}
	if got := status(lsp.ModelArgs{SessionID: res.SessionID}); got != "replay:second" {
		t.Errorf("agentls.model for the stored session = %q, want the model chosen in it", got)
	}
	if got := status(nil); got != "replay:first" {
		t.Errorf("agentls.model for a new conversation = %q, want the settings'", got)
	}
	again, err := second.Ask(ctx, lsp.AskArgs{Prompt: "two", SessionID: res.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := second.WaitTurnEnd(ctx, again.TurnID); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(seen, "; "); got != "replay:first saw 1 messages; replay:second saw 3 messages" {
		t.Errorf("requests: %s", got)
	}
}
