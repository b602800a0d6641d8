// Package model turns a "provider:model" string into a Provider. It sits
// apart from package agent so that agent does not depend on every provider.
package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai"
	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/config"
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
	return "", "", fmt.Errorf("no model configured: set one with %s (e.g. openai:gpt-4.1, ollama:qwen3, replay:script.json)", strings.Join(names, ", "))
}

// known are the OpenAI-compatible providers that need no configuration
// beyond an API key.
func known(name string) (baseURL, keyEnv string, ok bool) {
	switch name {
	case "openai":
		return "https://api.openai.com/v1", "OPENAI_API_KEY", true
	case "openrouter":
		return "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", true
	case "ollama":
		return "http://localhost:11434/v1", "", true
	case "llamacpp":
		return "http://localhost:8080/v1", "", true
	case "vllm":
		return "http://localhost:8000/v1", "", true
	}
	return "", "", false
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

// New builds the provider for spec ("openai:gpt-4.1", "replay:demo.json").
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
	baseURL, keyEnv, isKnown := known(name)
	if p, ok := o.Providers[name]; ok {
		if p.BaseURL != "" {
			baseURL = p.BaseURL
		}
		if p.APIKeyEnv != "" {
			keyEnv = p.APIKeyEnv
		}
	} else if !isKnown {
		return nil, fmt.Errorf("unknown provider %q in model %q: use openai, openrouter, ollama, llamacpp, vllm or replay, or add providers.%s.base_url to the config file for another OpenAI-compatible server", name, spec, name)
	}
	if baseURL == "" {
		return nil, fmt.Errorf("provider %q has no base_url: set providers.%s.base_url in the config file", name, name)
	}
	key := ""
	if keyEnv != "" {
		// keyEnv is set for a built-in provider that needs a key, or
		// because the config names one (providers.<name>.api_key_env):
		// either way an unset variable would only fail later, as a 401.
		key = getenv(keyEnv)
		if key == "" {
			return nil, errors.New("no API key for " + name + ": set the " + keyEnv + " environment variable")
		}
	}
	return openai.New(openai.Config{BaseURL: baseURL, APIKey: key, Model: model, Name: spec})
}
