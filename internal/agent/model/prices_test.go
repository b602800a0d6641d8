package model

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/served"
	"github.com/agentls/agentls/internal/config"
)

func TestKnownPrice(t *testing.T) {
	sonnet := agent.Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}
	opus := agent.Price{Input: 5, CachedInput: 0.5, CacheWrite: 6.25, Output: 25}
	gpt41 := agent.Price{Input: 2, CachedInput: 0.5, CacheWrite: 2, Output: 8}
	for _, c := range []struct {
		model string
		want  agent.Price
		known bool
	}{
		{"claude-sonnet-4-5", sonnet, true},
		{"claude-sonnet-4-5-20250929", sonnet, true},
		{"anthropic/claude-sonnet-4.5", sonnet, true},               // OpenRouter
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", sonnet, true}, // Bedrock
		{"claude-3-5-sonnet-latest", sonnet, true},
		{"claude-opus-4-6", opus, true},
		{"claude-opus-4-1", agent.Price{Input: 15, CachedInput: 1.5, CacheWrite: 18.75, Output: 75}, true},
		{"claude-haiku-4-5", agent.Price{Input: 1, CachedInput: 0.1, CacheWrite: 1.25, Output: 5}, true},
		{"claude-3-haiku-20240307", agent.Price{Input: 0.25, CachedInput: 0.03, CacheWrite: 0.30, Output: 1.25}, true},
		{"gpt-4.1", gpt41, true},
		{"GPT-4.1-2025-04-14", gpt41, true},
		{"openai/gpt-4.1", gpt41, true},
		{"gpt-4.1-mini", agent.Price{Input: 0.4, CachedInput: 0.1, CacheWrite: 0.4, Output: 1.6}, true},
		{"gpt-5", agent.Price{Input: 1.25, CachedInput: 0.125, CacheWrite: 1.25, Output: 10}, true},
		{"o3-2025-04-16", agent.Price{Input: 2, CachedInput: 0.5, CacheWrite: 2, Output: 8}, true},
		// Variants the table does not name have no price rather than
		// their family's: a wrong cost is worse than none.
		{"gpt-5-pro", agent.Price{}, false},
		{"gpt-4.1-mini-fast", agent.Price{}, false},
		{"claude-sonnet-4-5:free", agent.Price{}, false},
		{"claude-sonnet-9", agent.Price{}, false},
		{"qwen3:8b", agent.Price{}, false},
		{"llama3.1", agent.Price{}, false},
		{"", agent.Price{}, false},
	} {
		got, ok := KnownPrice(c.model)
		if ok != c.known || got != c.want {
			t.Errorf("KnownPrice(%q) = %+v, %v; want %+v, %v", c.model, got, ok, c.want, c.known)
		}
	}
}

// TestKnownModelsArePriced: every Claude and OpenAI family whose limits
// agentls knows has a price (the catch-alls "claude" and "claude-3" name
// no one model).
func TestKnownModelsArePriced(t *testing.T) {
	for _, k := range knownLimits {
		p := k.prefix
		vendor := strings.HasPrefix(p, "claude-") || strings.HasPrefix(p, "gpt-") || strings.HasPrefix(p, "o1") || strings.HasPrefix(p, "o3") || strings.HasPrefix(p, "o4")
		if !vendor || p == "claude-3" {
			continue
		}
		if _, ok := KnownPrice(p); !ok {
			t.Errorf("%s has limits but no price", p)
		}
	}
}

func TestPriceOf(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	providers := map[string]config.Provider{
		"anthropic": {Models: map[string]config.ModelLimits{"claude-sonnet-4-5": {Price: &config.Price{Input: f(2), Output: f(10)}}}},
		"ollama":    {Price: &config.Price{Input: f(0), Output: f(0)}},
		"gw": {Price: &config.Price{Input: f(1), CachedInput: f(0.1), Output: f(4)},
			Models: map[string]config.ModelLimits{"big": {Price: &config.Price{Input: f(9), CacheWrite: f(12), Output: f(30)}}}},
		"replay": {Price: &config.Price{Input: f(3), Output: f(15)}},
	}
	for _, c := range []struct {
		spec  string
		want  agent.Price
		known bool
	}{
		// The model's own price; cached input and cache writes default to input.
		{"anthropic:claude-sonnet-4-5", agent.Price{Input: 2, CachedInput: 2, CacheWrite: 2, Output: 10}, true},
		// No configured price for this model: the table's.
		{"anthropic:claude-haiku-4-5", agent.Price{Input: 1, CachedInput: 0.1, CacheWrite: 1.25, Output: 5}, true},
		{"openai:gpt-4o", agent.Price{Input: 2.5, CachedInput: 1.25, CacheWrite: 2.5, Output: 10}, true},
		{"ollama:qwen3", agent.Price{}, true}, // said to be free: a known 0
		{"gw:small", agent.Price{Input: 1, CachedInput: 0.1, CacheWrite: 1, Output: 4}, true},
		{"gw:big", agent.Price{Input: 9, CachedInput: 9, CacheWrite: 12, Output: 30}, true},
		{"replay:script.json", agent.Price{Input: 3, CachedInput: 3, CacheWrite: 3, Output: 15}, true},
		{"vllm:Qwen/Qwen3-8B", agent.Price{}, false},
		{"nocolon", agent.Price{}, false},
	} {
		got, ok := PriceOf(c.spec, providers)
		if ok != c.known || got != c.want {
			t.Errorf("PriceOf(%q) = %+v, %v; want %+v, %v", c.spec, got, ok, c.want, c.known)
		}
	}
	if _, ok := PriceOf("replay:gpt-4o", nil); ok {
		t.Error("a replay script got a price without one configured")
	}
}

func TestLocalServer(t *testing.T) {
	providers := map[string]config.Provider{
		"ollama":   {BaseURL: "http://gpu-box:11434/v1"},
		"lan":      {BaseURL: "http://192.168.1.20:8000/v1"},
		"box":      {BaseURL: "http://localhost:1234/v1"},
		"cloud":    {BaseURL: "https://api.together.xyz/v1"},
		"gateway":  {Type: config.ProviderAnthropic, BaseURL: "http://127.0.0.1:4000"},
		"together": {Type: config.ProviderOpenAI, BaseURL: "https://8.8.8.8/v1"},
	}
	for _, c := range []struct {
		spec string
		want served.Server
		ok   bool
	}{
		{"ollama:qwen3", served.Server{BaseURL: "http://gpu-box:11434/v1", Kind: served.Ollama}, true}, // named: wherever it points
		{"llamacpp:m", served.Server{BaseURL: "http://localhost:8080/v1", Kind: served.LlamaCpp}, true},
		{"vllm:Qwen/Qwen3-8B", served.Server{BaseURL: "http://localhost:8000/v1", Kind: served.VLLM}, true},
		{"lan:m", served.Server{BaseURL: "http://192.168.1.20:8000/v1"}, true},
		{"box:m", served.Server{BaseURL: "http://localhost:1234/v1"}, true},
		{"cloud:m", served.Server{}, false},
		{"together:m", served.Server{}, false},
		{"gateway:claude-sonnet-4-5", served.Server{}, false}, // the Messages API has no such question
		{"openai:gpt-4.1", served.Server{}, false},
		{"anthropic:claude-sonnet-4-5", served.Server{}, false},
		{"replay:s.json", served.Server{}, false},
		{"nobody:m", served.Server{}, false},
		{"ollama", served.Server{}, false},
	} {
		got, ok := LocalServer(c.spec, providers)
		if ok != c.ok || got != c.want {
			t.Errorf("LocalServer(%q) = %+v, %v; want %+v, %v", c.spec, got, ok, c.want, c.ok)
		}
	}
}
