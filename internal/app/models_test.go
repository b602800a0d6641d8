package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/anthropic/anthropictest"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// lastIsToolResult reports whether an Anthropic request ends with tool
// results (the model then answers in text).
func lastIsToolResult(r anthropictest.Request) bool {
	m := r.Messages[len(r.Messages)-1]
	return len(m.Content) > 0 && m.Content[0].Type == "tool_result"
}

// TestSwitchModelAcrossProviders: one conversation goes from Claude with
// extended thinking (signed blocks), to another Messages API server (which
// refuses a signature it did not issue), to an OpenAI-compatible server
// (whose tool ids Anthropic's API refuses), and back to the first — each
// model's first request holds the turns before it, and every server takes
// the conversation as it arrives. A model without its key is refused with
// the words of a session's start and the session keeps its model; the
// stored session then goes on with the model chosen last.
func TestSwitchModelAcrossProviders(t *testing.T) {
	claude := func(word string) *anthropictest.Server {
		return anthropictest.New(func(r anthropictest.Request) anthropictest.Reply {
			if lastIsToolResult(r) {
				return anthropictest.Reply{Parts: []string{"a.txt says " + word}}
			}
			return anthropictest.Reply{Thinking: []anthropictest.Thinking{{Text: "read a.txt first"}},
				ToolCalls: []anthropictest.ToolCall{{ID: "toolu_" + word, Name: "view", Input: map[string]string{"file_path": "a.txt"}}}}
		})
	}
	first, gateway := claude("first"), claude("gateway")
	defer first.Close()
	defer gateway.Close()
	oai := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return openaitest.Reply{Parts: []string{"a.txt says openai"}}
		}
		return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("functions.view:0", "view", map[string]string{"file_path": "a.txt"})}}
	})
	defer oai.Close()
	dataDir := t.TempDir()
	zero := 0.0
	a, root := newApp(t, oai.URL, func(o *app.Options) {
		o.DataDir = dataDir
		o.Config = config.Config{Model: "anthropic:claude-sonnet-4-5", Providers: map[string]config.Provider{
			"anthropic": {BaseURL: first.URL, APIKeyEnv: "TEST_KEY", Thinking: 2048},
			"gw":        {Type: config.ProviderAnthropic, BaseURL: gateway.URL, APIKeyEnv: "TEST_KEY", Thinking: 2048},
			"openai":    {BaseURL: oai.URL, APIKeyEnv: "TEST_KEY", Price: &config.Price{Input: &zero, Output: &zero}},
			"nokey":     {BaseURL: oai.URL, APIKeyEnv: "UNSET_KEY"},
		}}
	})
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	sess, err := env.NewSession(ctx, app.SessionOptions{Channel: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	var costs []float64 // each model call's cost in the last turn
	turn := func(prompt, want string) {
		t.Helper()
		costs = nil
		tr, err := sess.Start(ctx, prompt, func(e agent.Event) {
			if e.Type == agent.EventUsage && e.Usage != nil && e.Usage.Cost != nil {
				costs = append(costs, *e.Usage.Cost)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res := tr.Wait(); res.Reason != agent.ReasonCompleted || res.Text != want {
			t.Fatalf("%q on %s: %s %q (%v), want %q", prompt, sess.Model(), res.Reason, res.Text, res.Err, want)
		}
	}
	switchTo := func(spec string) {
		t.Helper()
		var events []agent.Event
		if err := sess.SwitchModel(ctx, spec, func(e agent.Event) { events = append(events, e) }); err != nil {
			t.Fatalf("switch to %s: %v", spec, err)
		}
		if len(events) != 1 || events[0].Model != spec {
			t.Errorf("switch to %s: events %+v", spec, events)
		}
	}
	turn("one", "a.txt says first")
	if len(costs) != 2 || costs[0] <= 0 {
		t.Errorf("Claude's calls cost %v, want two priced calls", costs)
	}

	if err := sess.SwitchModel(ctx, "nokey:m", nil); err == nil || !strings.Contains(err.Error(), "no API key for nokey: set the UNSET_KEY environment variable") {
		t.Errorf("switch to a model without its key: %v", err)
	}
	if err := sess.SwitchModel(ctx, "gpt-4.1", nil); err == nil || !strings.Contains(err.Error(), "provider:model") {
		t.Errorf("switch to a model without a provider: %v", err)
	}
	if sess.Model() != "anthropic:claude-sonnet-4-5" {
		t.Fatalf("after refused switches the session runs %s", sess.Model())
	}

	switchTo("gw:claude-sonnet-4-5")
	turn("two", "a.txt says gateway")
	switchTo("openai:test-model")
	turn("three", "a.txt says openai")
	// The switched-to model's price counts, not the first model's.
	if len(costs) != 2 || costs[0] != 0 || costs[1] != 0 {
		t.Errorf("after the switch to a free model the calls cost %v, want 0 and 0", costs)
	}
	switchTo("anthropic:claude-sonnet-4-5")
	turn("four", "a.txt says first")

	for _, c := range []struct {
		name string
		text string
		want []string
	}{
		{"the gateway's first request", gateway.Requests()[0].Text(), []string{"one", "a.txt says first", "two"}},
		{"openai's first request", oai.Requests()[0].Text(), []string{"one", "a.txt says first", "two", "a.txt says gateway", "three"}},
		{"the first server's last request", first.Requests()[len(first.Requests())-1].Text(), []string{"a.txt says gateway", "a.txt says openai", "four"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s lacks %q:\n%s", c.name, w, c.text)
			}
		}
	}
	id := sess.ID
	sess.CloseHooks()

	// The stored session goes on with the model chosen last; listed with it.
	resumed, err := env.NewSession(ctx, app.SessionOptions{Resume: id, Channel: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Model() != "anthropic:claude-sonnet-4-5" {
		t.Errorf("resumed on %s", resumed.Model())
	}
	st, err := env.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := st.Session(ctx, id); err != nil || info.Model != "anthropic:claude-sonnet-4-5" {
		t.Errorf("stored session %+v (%v)", info, err)
	}
}

// TestResumedSessionModel: which model a stored session goes on with —
// the front-end's (a picker, run's --model), then the model chosen in the
// session, then the defaults (--model of a long-running front-end, the
// config file) — and whether a change is journaled as chosen (kept at the
// next resume) or not (the defaults then apply again).
func TestResumedSessionModel(t *testing.T) {
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{"ok"}} })
	defer srv.Close()
	tests := []struct {
		name     string
		flag     string // --model of the process that resumes
		chose    string // a switch in the first run
		model    string // SessionOptions.Model when resuming
		byPerson bool   // SessionOptions.ModelChosen
		want     string
		thenNext string // a plain resume after that, same process
		later    string // a plain resume in a process whose defaults say openai:z
	}{
		{"the defaults", "", "", "", false, "openai:b", "openai:b", "openai:z"},
		{"the model chosen", "", "openai:c", "", false, "openai:c", "openai:c", "openai:c"},
		{"the model chosen over --model", "openai:e", "openai:c", "", false, "openai:c", "openai:c", "openai:c"},
		{"--model over the config", "openai:e", "", "", false, "openai:e", "openai:e", "openai:z"},
		{"a person's choice over the chosen one", "", "openai:c", "openai:d", true, "openai:d", "openai:d", "openai:d"},
		{"the settings' new model over the chosen one", "", "openai:c", "openai:d", false, "openai:d", "openai:b", "openai:z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dataDir := t.TempDir()
			cfg := func(m string) config.Config {
				return config.Config{Model: m, Providers: map[string]config.Provider{"openai": {BaseURL: srv.URL, APIKeyEnv: "TEST_KEY"}}}
			}
			a, root := newApp(t, srv.URL, func(o *app.Options) { o.DataDir = dataDir; o.Config = cfg("openai:a") })
			env, _ := a.Open(app.Frontend{Roots: []string{root}})
			sess, err := env.NewSession(ctx, app.SessionOptions{Channel: "headless"})
			if err != nil {
				t.Fatal(err)
			}
			tr, _ := sess.Start(ctx, "hello", func(agent.Event) {})
			tr.Wait()
			if tt.chose != "" {
				if err := sess.SwitchModel(ctx, tt.chose, nil); err != nil {
					t.Fatal(err)
				}
			}
			env.Close()

			b, _ := newApp(t, srv.URL, func(o *app.Options) { o.DataDir = dataDir; o.Config = cfg("openai:b"); o.ModelFlag = tt.flag })
			env2, _ := b.Open(app.Frontend{Roots: []string{root}})
			defer env2.Close()
			so := app.SessionOptions{Continue: true, Model: tt.model, ModelChosen: tt.byPerson, Channel: "headless"}
			if got, err := env2.SessionModel(ctx, so); err != nil || got != tt.want {
				t.Errorf("SessionModel = %q, %v; want %q", got, err, tt.want)
			}
			s2, err := env2.NewSession(ctx, so)
			if err != nil {
				t.Fatal(err)
			}
			if s2.Model() != tt.want {
				t.Errorf("resumed on %s, want %s", s2.Model(), tt.want)
			}
			s3, err := env2.NewSession(ctx, app.SessionOptions{Continue: true, Channel: "headless"})
			if err != nil {
				t.Fatal(err)
			}
			if s3.Model() != tt.thenNext {
				t.Errorf("then resumed on %s, want %s", s3.Model(), tt.thenNext)
			}
			c, _ := newApp(t, srv.URL, func(o *app.Options) { o.DataDir = dataDir; o.Config = cfg("openai:z") })
			env3, _ := c.Open(app.Frontend{Roots: []string{root}})
			defer env3.Close()
			s4, err := env3.NewSession(ctx, app.SessionOptions{Continue: true, Channel: "headless"})
			if err != nil {
				t.Fatal(err)
			}
			if s4.Model() != tt.later {
				t.Errorf("with the defaults now openai:z, resumed on %s, want %s", s4.Model(), tt.later)
			}
		})
	}
}

// TestNewSessionOnAChosenModel: a session started on a model chosen for it
// (run --model) keeps it when resumed; one started on the defaults'
// follows them.
func TestNewSessionOnAChosenModel(t *testing.T) {
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{"ok"}} })
	defer srv.Close()
	for _, chosen := range []bool{true, false} {
		ctx := context.Background()
		dataDir := t.TempDir()
		a, root := newApp(t, srv.URL, func(o *app.Options) { o.DataDir = dataDir })
		env, _ := a.Open(app.Frontend{Roots: []string{root}})
		sess, err := env.NewSession(ctx, app.SessionOptions{Model: "openai:picked", ModelChosen: chosen, Channel: "headless"})
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := sess.Start(ctx, "hello", func(agent.Event) {})
		tr.Wait()
		again, err := env.NewSession(ctx, app.SessionOptions{Continue: true, Channel: "headless"})
		env.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := "openai:test-model" // newApp's config file
		if chosen {
			want = "openai:picked"
		}
		if again.Model() != want {
			t.Errorf("chosen=%v: resumed on %s, want %s", chosen, again.Model(), want)
		}
	}
}

// TestModelChoices: a picker offers the session's model, then the ones
// named where a model is set, the configured ones, and suggestions for
// the providers whose key is set — each once.
func TestModelChoices(t *testing.T) {
	a, root := newApp(t, "http://127.0.0.1:1/v1", func(o *app.Options) {
		o.Config = config.Config{Model: "openai:gpt-4.1", Providers: map[string]config.Provider{
			"local": {BaseURL: "http://127.0.0.1:1/v1", Models: map[string]config.ModelLimits{"qwen3": {}, "llama3": {}}},
		}}
		o.Getenv = func(k string) string {
			return map[string]string{"AGENTLS_MODEL": "ollama:qwen3", "ANTHROPIC_API_KEY": "k"}[k]
		}
	})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	set, err := env.Settings(config.Config{})
	if err != nil {
		t.Fatal(err)
	}
	got := env.ModelChoices("replay:s.json", set, model.Source{Name: "the agentls.model setting", Value: "openai:gpt-4.1"})
	var models []string
	for _, c := range got {
		models = append(models, c.Model+" ("+c.From+")")
	}
	want := []string{
		"replay:s.json (this session's model)",
		"openai:gpt-4.1 (the agentls.model setting)",
		"ollama:qwen3 (the AGENTLS_MODEL environment variable)",
		"local:llama3 (providers.local.models in the settings)",
		"local:qwen3 (providers.local.models in the settings)",
		"anthropic:claude-sonnet-4-5 (suggested by agentls (ANTHROPIC_API_KEY is set))",
		"anthropic:claude-opus-4-5 (suggested by agentls (ANTHROPIC_API_KEY is set))",
		"anthropic:claude-haiku-4-5 (suggested by agentls (ANTHROPIC_API_KEY is set))",
	}
	if strings.Join(models, "\n") != strings.Join(want, "\n") {
		t.Errorf("choices:\n%s\nwant:\n%s", strings.Join(models, "\n"), strings.Join(want, "\n"))
	}
}
