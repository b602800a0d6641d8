package config

import (
	"fmt"
	"strings"
)

// Completion configures inline completion (textDocument/inlineCompletion):
// the model that fills in the middle while the person types. It is a
// setting of its own because the model that suits it — small, local,
// trained to fill in the middle — is rarely the agent's. Unset Model
// means no inline completion at all.
type Completion struct {
	// Model is "provider:model", resolved as the agent's model is
	// (providers.<name> give its base_url and key), e.g.
	// "ollama:qwen2.5-coder:1.5b".
	Model string `json:"model,omitempty"`
	// API is how the model is asked: CompletionAPICompletions (prompt and
	// suffix on /v1/completions), CompletionAPIInfill (llama.cpp's
	// /infill) or CompletionAPIChat (a chat model with a
	// fill-in-the-middle prompt). Empty picks by provider: infill for
	// llamacpp, chat for an Anthropic provider, completions otherwise.
	API string `json:"api,omitempty"`
	// Template, for the completions API, is a prompt with {prefix} and
	// {suffix} written in the model's own fill-in-the-middle tokens
	// (e.g. "<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"),
	// sent without a suffix field: for servers that reject one (vLLM).
	Template string `json:"template,omitempty"`
	// MaxTokens bounds one completion; 0 means 128.
	MaxTokens int `json:"max_tokens,omitempty"`
	// DebounceMS is how long an automatic request waits for the person to
	// stop typing before the model is asked; nil means 50, 0 none.
	DebounceMS *int `json:"debounce_ms,omitempty"`
}

// The APIs a completion model can be asked through (Completion.API).
const (
	CompletionAPICompletions = "completions"
	CompletionAPIInfill      = "infill"
	CompletionAPIChat        = "chat"
)

// IsZero reports whether nothing is set.
func (c Completion) IsZero() bool {
	return c.Model == "" && c.API == "" && c.Template == "" && c.MaxTokens == 0 && c.DebounceMS == nil
}

// validate names what is wrong with the section.
func (c Completion) validate() error {
	switch c.API {
	case "", CompletionAPICompletions, CompletionAPIInfill, CompletionAPIChat:
	default:
		return fmt.Errorf("completion.api %q: use %q, %q or %q", c.API, CompletionAPICompletions, CompletionAPIInfill, CompletionAPIChat)
	}
	if c.Model != "" {
		if name, m, ok := strings.Cut(c.Model, ":"); !ok || name == "" || m == "" {
			return fmt.Errorf("completion.model %q is not of the form provider:model (e.g. ollama:qwen2.5-coder:1.5b, llamacpp:default)", c.Model)
		}
	}
	if c.Template != "" && (!strings.Contains(c.Template, "{prefix}") || !strings.Contains(c.Template, "{suffix}")) {
		return fmt.Errorf("completion.template must contain {prefix} and {suffix}")
	}
	if c.Template != "" && c.API != "" && c.API != CompletionAPICompletions {
		return fmt.Errorf("completion.template applies to the %q API only, not %q", CompletionAPICompletions, c.API)
	}
	if c.MaxTokens < 0 || c.MaxTokens > 4096 {
		return fmt.Errorf("completion.max_tokens is %d: give 1 to 4096, or leave it out (128)", c.MaxTokens)
	}
	if d := c.DebounceMS; d != nil && (*d < 0 || *d > 2000) {
		return fmt.Errorf("completion.debounce_ms is %d: give 0 to 2000 milliseconds", *d)
	}
	return nil
}

// mergeCompletion applies over's set fields on top of base.
func mergeCompletion(base, over Completion) Completion {
	if over.Model != "" {
		base.Model = over.Model
	}
	if over.API != "" {
		base.API = over.API
	}
	if over.Template != "" {
		base.Template = over.Template
	}
	if over.MaxTokens != 0 {
		base.MaxTokens = over.MaxTokens
	}
	if over.DebounceMS != nil {
		base.DebounceMS = ptr(*over.DebounceMS)
	}
	return base
}
