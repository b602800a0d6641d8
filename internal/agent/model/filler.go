package model

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/agent/remote"
	"github.com/agentls/agentls/internal/config"
)

// NewFiller builds the inline-completion model of c (c.Model is
// "provider:model", its provider resolved as New resolves the agent's):
// the API c.API names, or by default llama.cpp's /infill for llamacpp, a
// chat prompt for the hosted chat APIs (openai, openrouter, an Anthropic
// provider) and /v1/completions otherwise (Ollama, vLLM, a server of
// one's own).
func NewFiller(c config.Completion, o Options) (fim.Filler, error) {
	name, m, ok := strings.Cut(c.Model, ":")
	if !ok || name == "" || m == "" {
		return nil, fmt.Errorf("completion.model %q is not of the form provider:model (e.g. ollama:qwen2.5-coder:1.5b, llamacpp:default)", c.Model)
	}
	if name == "replay" {
		return nil, fmt.Errorf("completion.model %q: a replay script cannot fill in the middle; name a model server", c.Model)
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	b, _, key, err := resolveProvider(c.Model, name, m, o.Providers, getenv)
	if err != nil {
		return nil, fmt.Errorf("completion.model: %w", err)
	}
	api := c.API
	if api == "" {
		switch {
		case b.typ == config.ProviderAnthropic || name == "openai" || name == "openrouter":
			api = config.CompletionAPIChat
		case name == "llamacpp" && c.Template == "":
			api = config.CompletionAPIInfill
		default:
			api = config.CompletionAPICompletions
		}
	}
	if api == config.CompletionAPIChat {
		p, err := New(c.Model, o)
		if err != nil {
			return nil, fmt.Errorf("completion.model: %w", err)
		}
		return fim.Chat(p), nil
	}
	if b.typ == config.ProviderAnthropic {
		return nil, fmt.Errorf("completion.api %q: %s speaks Anthropic's Messages API, which has no fill-in-the-middle endpoint; use \"chat\"", api, name)
	}
	return fim.New(fim.Config{Endpoint: remote.Endpoint{BaseURL: b.baseURL, APIKey: key, KeyEnv: b.keyEnv, Model: m, Name: c.Model},
		API: api, Template: c.Template})
}
