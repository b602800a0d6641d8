// Package model turns a "provider:model" string into a Provider. It sits
// apart from package agent so that agent does not depend on every provider.
package model

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/anthropic"
	"github.com/agentls/agentls/internal/agent/openai"
	"github.com/agentls/agentls/internal/agent/remote"
	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/agent/served"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/netdest"
)

// Source is one place a model string may come from, highest first.
type Source struct {
	Name  string // "--model", "initializationOptions.model", …
	Value string
}

// Resolve picks the first non-empty source. With none it returns an error
// naming all the places a model can be set.
func Resolve(sources ...Source) (spec, from string, err error) {
	var names []string
	for _, s := range sources {
		if v := strings.TrimSpace(s.Value); v != "" {
			return v, s.Name, nil
		}
		names = append(names, s.Name)
	}
	return "", "", fmt.Errorf("no model configured: set one with %s (e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, ollama:qwen3, replay:script.json)", strings.Join(names, ", "))
}

// builtin is a provider agentls knows by name.
type builtin struct {
	baseURL, keyEnv string
	typ             string // config.ProviderOpenAI or config.ProviderAnthropic
}

// known are the providers that need no configuration beyond an API key.
func known(name string) (builtin, bool) {
	switch name {
	case "openai":
		return builtin{"https://api.openai.com/v1", "OPENAI_API_KEY", config.ProviderOpenAI}, true
	case "anthropic":
		return builtin{anthropic.DefaultBaseURL, anthropic.DefaultKeyEnv, config.ProviderAnthropic}, true
	case "openrouter":
		return builtin{"https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", config.ProviderOpenAI}, true
	case "ollama":
		return builtin{"http://localhost:11434/v1", "", config.ProviderOpenAI}, true
	case "llamacpp":
		return builtin{"http://localhost:8080/v1", "", config.ProviderOpenAI}, true
	case "vllm":
		return builtin{"http://localhost:8000/v1", "", config.ProviderOpenAI}, true
	}
	return builtin{}, false
}

// KeyedProvider is a provider agentls knows by name whose key comes from
// an environment variable.
type KeyedProvider struct {
	Name, Title, KeyEnv string
}

// KeyedProviders are the known providers that need an API key, in the
// order a person meets them (ACP offers each as an authentication method).
func KeyedProviders() []KeyedProvider {
	var out []KeyedProvider
	for _, p := range []struct{ name, title string }{{"openai", "OpenAI"}, {"anthropic", "Anthropic"}, {"openrouter", "OpenRouter"}} {
		b, _ := known(p.name)
		out = append(out, KeyedProvider{Name: p.name, Title: p.title, KeyEnv: b.keyEnv})
	}
	return out
}

// Options are what New needs besides the spec.
type Options struct {
	// Providers are the user's overrides from the config file.
	Providers map[string]config.Provider
	// Dir resolves a relative replay path; empty means the process's
	// working directory.
	Dir string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// New builds the provider for spec ("openai:gpt-4.1",
// "anthropic:claude-sonnet-4-5", "replay:demo.json"). A provider's type
// (config.Provider.Type) picks the API: built-in names have their own, a
// configured name is OpenAI-compatible unless it says "anthropic".
func New(spec string, o Options) (agent.Provider, error) {
	name, model, ok := strings.Cut(spec, ":")
	if !ok || name == "" || model == "" {
		return nil, fmt.Errorf("model %q is not of the form provider:model (e.g. openai:gpt-4.1, ollama:qwen3, replay:path.json)", spec)
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if name == "replay" {
		path := model
		if !filepath.IsAbs(path) && o.Dir != "" {
			path = filepath.Join(o.Dir, path)
		}
		return replay.Load(path)
	}
	b, thinking, key, err := resolveProvider(spec, name, model, o.Providers, getenv)
	if err != nil {
		return nil, err
	}
	if b.typ == config.ProviderAnthropic {
		limits, _ := KnownLimits(model)
		return anthropic.New(anthropic.Config{Endpoint: remote.Endpoint{BaseURL: b.baseURL, APIKey: key, KeyEnv: b.keyEnv, Model: model, Name: spec,
			ContextWindow: limits.Window, MaxOutput: limits.MaxOutput}, ThinkingBudget: thinking.Budget()})
	}
	return openai.New(openai.Config{Endpoint: remote.Endpoint{BaseURL: b.baseURL, APIKey: key, KeyEnv: b.keyEnv, Model: model, Name: spec}})
}

// resolveProvider finds where the provider name of spec is reached, its
// API, its thinking setting for model and its key (read with getenv).
func resolveProvider(spec, name, model string, providers map[string]config.Provider, getenv func(string) string) (b builtin, thinking config.Thinking, key string, err error) {
	b, isKnown := known(name)
	p, configured := providers[name]
	if !configured && !isKnown {
		return builtin{}, 0, "", fmt.Errorf("unknown provider %q in model %q: use openai, anthropic, openrouter, ollama, llamacpp, vllm or replay, or add providers.%s.base_url to the config file for another server (with \"type\": \"anthropic\" for one that speaks the Messages API)", name, spec, name)
	}
	if p.BaseURL != "" {
		b.baseURL = p.BaseURL
	}
	if p.APIKeyEnv != "" {
		b.keyEnv = p.APIKeyEnv
	}
	switch {
	case isKnown && p.Type != "" && p.Type != b.typ:
		return builtin{}, 0, "", fmt.Errorf("providers.%s.type is %q, but %s is a built-in %s provider: give your %s server another name", name, p.Type, name, b.typ, p.Type)
	case !isKnown:
		b.typ = cmp.Or(p.Type, config.ProviderOpenAI)
	}
	if b.baseURL == "" {
		return builtin{}, 0, "", fmt.Errorf("provider %q has no base_url: set providers.%s.base_url in the config file", name, name)
	}
	thinking = p.Thinking
	if t := p.Models[model].Thinking; t != 0 {
		thinking = t
	}
	if thinking.Budget() > 0 && b.typ != config.ProviderAnthropic {
		return builtin{}, 0, "", fmt.Errorf("providers.%s.thinking is set, but %s is an OpenAI-compatible provider: thinking budgets apply to Anthropic models (type \"anthropic\")", name, name)
	}
	if b.keyEnv != "" {
		// keyEnv is set for a built-in provider that needs a key, or
		// because the config names one (providers.<name>.api_key_env):
		// either way an unset variable would only fail later, as a 401.
		key = getenv(b.keyEnv)
		if key == "" {
			return builtin{}, 0, "", errors.New("no API key for " + name + ": set the " + b.keyEnv + " environment variable")
		}
	}
	return b, thinking, key, nil
}

// LocalServer is the server of spec's model when agentls can ask it what
// context window it serves (package served): a built-in local provider
// (ollama, llamacpp, vllm, wherever its base_url points), or another
// OpenAI-compatible provider whose base_url is on this machine or a
// private network (any kind, asked each way). Remote APIs and Anthropic's
// are never asked.
func LocalServer(spec string, providers map[string]config.Provider) (served.Server, bool) {
	name, m, ok := strings.Cut(spec, ":")
	if !ok || m == "" || name == "replay" {
		return served.Server{}, false
	}
	b, isKnown := known(name)
	p, configured := providers[name]
	if !isKnown && !configured {
		return served.Server{}, false
	}
	if p.BaseURL != "" {
		b.baseURL = p.BaseURL
	}
	if !isKnown {
		b.typ = cmp.Or(p.Type, config.ProviderOpenAI)
	}
	if b.typ != config.ProviderOpenAI || b.baseURL == "" {
		return served.Server{}, false
	}
	switch kind := served.Kind(name); kind {
	case served.Ollama, served.LlamaCpp, served.VLLM:
		return served.Server{BaseURL: b.baseURL, Kind: kind}, true
	}
	u, err := url.Parse(b.baseURL)
	if err != nil || !netdest.Local(u.Hostname()) {
		return served.Server{}, false
	}
	return served.Server{BaseURL: b.baseURL}, true
}
