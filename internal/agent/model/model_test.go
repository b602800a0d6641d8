package model_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/anthropic"
	"github.com/agentls/agentls/internal/agent/anthropic/anthropictest"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/config"
)

func TestResolve(t *testing.T) {
	src := func(name, v string) model.Source { return model.Source{Name: name, Value: v} }
	tests := []struct {
		name     string
		sources  []model.Source
		spec     string
		from     string
		errNames []string
	}{
		{
			name:    "flag wins",
			sources: []model.Source{src("--model", "openai:gpt-4.1"), src("editor", "ollama:qwen3"), src("env", "replay:x.json")},
			spec:    "openai:gpt-4.1", from: "--model",
		},
		{
			name:    "empty and blank are skipped",
			sources: []model.Source{src("--model", ""), src("editor", "  \t"), src("env", " ollama:qwen3 ")},
			spec:    "ollama:qwen3", from: "env",
		},
		{
			name:    "last source",
			sources: []model.Source{src("--model", ""), src("editor", ""), src("env", ""), src("file", "vllm:m")},
			spec:    "vllm:m", from: "file",
		},
		{
			name:     "none",
			sources:  []model.Source{src("--model", ""), src("initializationOptions.model", " "), src("AGENTLS_MODEL", ""), src(`"model" in config.json`, "")},
			errNames: []string{"--model", "initializationOptions.model", "AGENTLS_MODEL", `"model" in config.json`, "openai:gpt-4.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, from, err := model.Resolve(tt.sources...)
			if tt.errNames != nil {
				if err == nil {
					t.Fatalf("Resolve = %q from %q, want an error", spec, from)
				}
				for _, n := range tt.errNames {
					if !strings.Contains(err.Error(), n) {
						t.Errorf("error %q does not name %q", err, n)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if spec != tt.spec || from != tt.from {
				t.Errorf("Resolve = %q from %q, want %q from %q", spec, from, tt.spec, tt.from)
			}
		})
	}
}

// env is an Options.Getenv over a map, so tests never read the real
// environment (a developer's OPENAI_API_KEY must not change results).
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name      string
		spec      string
		providers map[string]config.Provider
		env       map[string]string
		errParts  []string
	}{
		{name: "no colon", spec: "gpt-4.1", errParts: []string{`"gpt-4.1"`, "provider:model"}},
		{name: "no provider", spec: ":gpt-4.1", errParts: []string{"provider:model"}},
		{name: "no model", spec: "openai:", errParts: []string{"provider:model"}},
		{name: "empty", spec: "", errParts: []string{"provider:model"}},
		{name: "unknown provider", spec: "acme:big", errParts: []string{`"acme"`, "providers.acme.base_url", "openai", "ollama", "replay"}},
		{name: "openai without key", spec: "openai:gpt-4.1", errParts: []string{"OPENAI_API_KEY"}},
		{name: "openrouter without key", spec: "openrouter:x/y", env: map[string]string{"OPENAI_API_KEY": "sk"}, errParts: []string{"OPENROUTER_API_KEY"}},
		{
			name: "openai with another key variable unset", spec: "openai:gpt-4.1",
			providers: map[string]config.Provider{"openai": {APIKeyEnv: "WORK_OPENAI_KEY"}},
			env:       map[string]string{"OPENAI_API_KEY": "sk"},
			errParts:  []string{"WORK_OPENAI_KEY"},
		},
		{
			name: "custom provider without base_url", spec: "mine:m",
			providers: map[string]config.Provider{"mine": {APIKeyEnv: "MINE_KEY"}},
			env:       map[string]string{"MINE_KEY": "k"},
			errParts:  []string{"providers.mine.base_url"},
		},
		{
			name: "custom provider with its key variable unset", spec: "mine:m",
			providers: map[string]config.Provider{"mine": {BaseURL: "http://gpu-box:8000/v1", APIKeyEnv: "MINE_KEY"}},
			errParts:  []string{"MINE_KEY"},
		},
		{
			name: "custom provider with a bad base_url", spec: "mine:m",
			providers: map[string]config.Provider{"mine": {BaseURL: "gpu-box:8000"}},
			errParts:  []string{"gpu-box:8000"},
		},
		{name: "missing replay script", spec: "replay:nope.json", errParts: []string{"nope.json"}},
		{name: "anthropic without key", spec: "anthropic:claude-sonnet-4-5", env: map[string]string{"OPENAI_API_KEY": "sk"}, errParts: []string{"no API key for anthropic", "ANTHROPIC_API_KEY"}},
		{
			name: "anthropic type without its key variable", spec: "gw:claude-sonnet-4-5",
			providers: map[string]config.Provider{"gw": {Type: "anthropic", BaseURL: "http://gw:4000", APIKeyEnv: "GW_KEY"}},
			errParts:  []string{"GW_KEY"},
		},
		{
			name: "built-in given another type", spec: "openai:gpt-4.1",
			providers: map[string]config.Provider{"openai": {Type: "anthropic"}},
			env:       map[string]string{"OPENAI_API_KEY": "sk"},
			errParts:  []string{"providers.openai.type", "built-in openai provider", "another name"},
		},
		{
			name: "thinking on an OpenAI-compatible provider", spec: "vllm:qwen",
			providers: map[string]config.Provider{"vllm": {Thinking: 4096}},
			errParts:  []string{"providers.vllm.thinking", "OpenAI-compatible", `"anthropic"`},
		},
		{
			name: "thinking budget over the model's longest answer", spec: "anthropic:claude-3-5-haiku-latest",
			providers: map[string]config.Provider{"anthropic": {Thinking: 9000}},
			env:       map[string]string{"ANTHROPIC_API_KEY": "k"},
			errParts:  []string{"thinking budget 9000", "max_tokens 8192"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := model.New(tt.spec, model.Options{Providers: tt.providers, Dir: t.TempDir(), Getenv: env(tt.env)})
			if err == nil {
				t.Fatalf("New(%q) = %s, want an error", tt.spec, p.Name())
			}
			for _, part := range tt.errParts {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("New(%q) error %q does not contain %q", tt.spec, err, part)
				}
			}
		})
	}
}

func TestNewByType(t *testing.T) {
	tests := []struct {
		name      string
		spec      string
		providers map[string]config.Provider
		env       map[string]string
	}{
		{name: "openai with key", spec: "openai:gpt-4.1", env: map[string]string{"OPENAI_API_KEY": "sk-test"}},
		{name: "openrouter with key", spec: "openrouter:meta/llama", env: map[string]string{"OPENROUTER_API_KEY": "k"}},
		{name: "ollama without key", spec: "ollama:qwen3"},
		{name: "llamacpp without key", spec: "llamacpp:any"},
		{name: "vllm without key", spec: "vllm:org/model"},
		{name: "model with colons", spec: "ollama:qwen3:8b"},
		{
			name: "custom provider from config", spec: "mine:big-model",
			providers: map[string]config.Provider{"mine": {BaseURL: "http://gpu-box:8000/v1"}},
		},
		{
			name: "custom provider with key", spec: "mine:big-model",
			providers: map[string]config.Provider{"mine": {BaseURL: "https://gpu-box/v1", APIKeyEnv: "MINE_KEY"}},
			env:       map[string]string{"MINE_KEY": "k"},
		},
		{
			name: "built-in with another base_url", spec: "ollama:qwen3",
			providers: map[string]config.Provider{"ollama": {BaseURL: "http://gpu-box:11434/v1"}},
		},
		{name: "anthropic with key", spec: "anthropic:claude-sonnet-4-5", env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}},
		{
			name: "anthropic gateway without a key", spec: "gw:claude-haiku-4-5",
			providers: map[string]config.Provider{"gw": {Type: "anthropic", BaseURL: "http://gw:4000"}},
		},
		{
			name: "openai with its key in another variable", spec: "openai:gpt-4.1",
			providers: map[string]config.Provider{"openai": {APIKeyEnv: "WORK_OPENAI_KEY"}},
			env:       map[string]string{"WORK_OPENAI_KEY": "sk"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := model.New(tt.spec, model.Options{Providers: tt.providers, Getenv: env(tt.env)})
			if err != nil {
				t.Fatalf("New(%q): %v", tt.spec, err)
			}
			if p.Name() != tt.spec {
				t.Errorf("Name() = %q, want %q", p.Name(), tt.spec)
			}
			wantAnthropic := strings.HasPrefix(tt.spec, "anthropic:") || strings.HasPrefix(tt.spec, "gw:")
			if _, ok := p.(*anthropic.Provider); ok != wantAnthropic {
				t.Errorf("New(%q) = %T, want the Anthropic provider: %v", tt.spec, p, wantAnthropic)
			}
		})
	}
}

// TestAnthropicSettingsReachTheRequest: base_url, the key variable, the
// model's thinking setting over the provider's, and the known limits.
func TestAnthropicSettingsReachTheRequest(t *testing.T) {
	srv := anthropictest.New(func(anthropictest.Request) anthropictest.Reply { return anthropictest.Reply{Parts: []string{"ok"}} })
	defer srv.Close()
	srv.Key = "sk-work"
	providers := map[string]config.Provider{"anthropic": {BaseURL: srv.URL, APIKeyEnv: "WORK_ANTHROPIC_KEY", Thinking: 2048,
		Models: map[string]config.ModelLimits{"claude-opus-4-5": {Thinking: 16000}, "claude-haiku-4-5": {Thinking: config.ThinkingOff}}}}
	getenv := env(map[string]string{"WORK_ANTHROPIC_KEY": "sk-work", "ANTHROPIC_API_KEY": "sk-other"})
	for _, tc := range []struct {
		model            string
		budget, maxOut   int
		window, maxToken int
	}{
		{model: "claude-opus-4-5", budget: 16000, maxOut: 64000, window: 200000, maxToken: 32000},
		{model: "claude-sonnet-4-5", budget: 2048, maxOut: 64000, window: 200000, maxToken: 32000},
		{model: "claude-haiku-4-5", budget: 0, maxOut: 64000, window: 200000, maxToken: 32000},
		{model: "claude-3-5-haiku-latest", budget: 2048, maxOut: 8192, window: 200000, maxToken: 8192},
	} {
		p, err := model.New("anthropic:"+tc.model, model.Options{Providers: providers, Getenv: getenv})
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if w := p.(agent.Windowed); w.ContextWindow() != tc.window || w.MaxOutput() != tc.maxOut {
			t.Errorf("%s: window %d, max output %d", tc.model, w.ContextWindow(), w.MaxOutput())
		}
		if _, err := p.Complete(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}, agent.Stream{}); err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		reqs := srv.Requests()
		r := reqs[len(reqs)-1]
		budget := 0
		if r.Thinking != nil {
			budget = r.Thinking.BudgetTokens
		}
		if r.Model != tc.model || budget != tc.budget || r.MaxTokens != tc.maxToken {
			t.Errorf("%s: request for %q with thinking %d, max_tokens %d; want thinking %d, max_tokens %d", tc.model, r.Model, budget, r.MaxTokens, tc.budget, tc.maxToken)
		}
	}
}

// TestAnthropicMissingKeyMakesNoRequest: an unset ANTHROPIC_API_KEY fails
// in New, before anything is sent.
func TestAnthropicMissingKeyMakesNoRequest(t *testing.T) {
	srv := anthropictest.New(func(anthropictest.Request) anthropictest.Reply { return anthropictest.Reply{Parts: []string{"ok"}} })
	defer srv.Close()
	_, err := model.New("anthropic:claude-sonnet-4-5", model.Options{
		Providers: map[string]config.Provider{"anthropic": {BaseURL: srv.URL}}, Getenv: env(nil)})
	if err == nil || !strings.Contains(err.Error(), "set the ANTHROPIC_API_KEY environment variable") {
		t.Fatalf("err = %v, want one naming ANTHROPIC_API_KEY", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the server, want none", n)
	}
}

func TestKnownLimits(t *testing.T) {
	for name, want := range map[string]model.Limits{
		"claude-opus-4-5-20251101":         {200000, 64000},
		"claude-opus-4-1-20250805":         {200000, 32000},
		"claude-opus-4-20250514":           {200000, 32000},
		"claude-opus-4-6":                  {200000, 128000},
		"claude-sonnet-4-5-20250929":       {200000, 64000},
		"claude-sonnet-4-20250514":         {200000, 64000},
		"claude-haiku-4-5":                 {200000, 64000},
		"claude-3-7-sonnet-latest":         {200000, 64000},
		"claude-3-5-sonnet-20241022":       {200000, 8192},
		"claude-3-5-haiku-latest":          {200000, 8192},
		"claude-3-opus-20240229":           {200000, 4096},
		"anthropic/claude-sonnet-4.5":      {200000, 64000},
		"anthropic.claude-sonnet-4-5-v1:0": {200000, 64000},
		"claude-sonnet-5":                  {200000, 8192},
		"gpt-4.1-mini":                     {1047576, 32768},
	} {
		got, ok := model.KnownLimits(name)
		if !ok || got != want {
			t.Errorf("KnownLimits(%q) = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	if _, ok := model.KnownLimits("mystery-7b"); ok {
		t.Error("KnownLimits knows a made-up model")
	}
}

const script = `{"turns":[{"text":"hello from replay"}]}`

func TestNewReplay(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "s.json")
	other := t.TempDir() // a Dir where s.json does not exist

	tests := []struct {
		name     string
		spec     string
		dir      string
		wantName string
	}{
		{name: "relative path resolved against Dir", spec: "replay:s.json", dir: dir, wantName: "replay:" + abs},
		{name: "absolute path ignores Dir", spec: "replay:" + abs, dir: other, wantName: "replay:" + abs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := model.New(tt.spec, model.Options{Dir: tt.dir, Getenv: env(nil)})
			if err != nil {
				t.Fatalf("New(%q): %v", tt.spec, err)
			}
			if p.Name() != tt.wantName {
				t.Errorf("Name() = %q, want %q", p.Name(), tt.wantName)
			}
			resp, err := p.Complete(context.Background(), agent.Request{}, agent.Stream{})
			if err != nil || resp.Text != "hello from replay" {
				t.Errorf("Complete = %+v, %v", resp, err)
			}
		})
	}

	// A relative path is not found in another Dir: Dir is really used.
	if _, err := model.New("replay:s.json", model.Options{Dir: other}); err == nil || !strings.Contains(err.Error(), filepath.Join(other, "s.json")) {
		t.Errorf("New with the script missing from Dir: error %v, want one naming %s", err, filepath.Join(other, "s.json"))
	}
}

// TestNewReplayWorkingDir: with no Dir a relative replay path is relative
// to the process's working directory.
func TestNewReplayWorkingDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wd.json"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	p, err := model.New("replay:wd.json", model.Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if p.Name() != "replay:wd.json" {
		t.Errorf("Name() = %q, want replay:wd.json", p.Name())
	}
}
