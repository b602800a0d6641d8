package model

import "strings"

// Limits are a model's context window and longest answer, in tokens.
type Limits struct {
	Window, MaxOutput int
}

// knownLimits are the published limits of common models, longest prefix
// first wins (checked in order). Unknown models get none: the session
// then assumes a small window and learns the real one from the provider's
// "too long" answer, or from a context_window setting.
var knownLimits = []struct {
	prefix string
	limits Limits
}{
	// Claude: every current model has a 200k window (Sonnet 4 and 4.5
	// reach 1M only with a beta header agentls does not send). Newer
	// versions of a family come before the family's prefix.
	{"claude-opus-4-6", Limits{200000, 128000}},
	{"claude-opus-4-5", Limits{200000, 64000}},
	{"claude-opus-4-1", Limits{200000, 32000}},
	{"claude-opus-4", Limits{200000, 32000}},
	{"claude-sonnet-4-6", Limits{200000, 64000}},
	{"claude-sonnet-4-5", Limits{200000, 64000}},
	{"claude-sonnet-4", Limits{200000, 64000}},
	{"claude-haiku-4-5", Limits{200000, 64000}},
	{"claude-3-7-sonnet", Limits{200000, 64000}},
	{"claude-3-5-haiku", Limits{200000, 8192}},
	{"claude-3-5-sonnet", Limits{200000, 8192}},
	{"claude-3", Limits{200000, 4096}},
	{"claude", Limits{200000, 8192}}, // a Claude model newer than this list
	{"gpt-5", Limits{400000, 128000}},
	{"gpt-4.1", Limits{1047576, 32768}},
	{"gpt-4o", Limits{128000, 16384}},
	{"gpt-4-turbo", Limits{128000, 4096}},
	{"gpt-4", Limits{8192, 4096}},
	{"gpt-3.5-turbo", Limits{16385, 4096}},
	{"o4-mini", Limits{200000, 100000}},
	{"o3", Limits{200000, 100000}},
	{"o1", Limits{200000, 100000}},
	{"gemini-2.5", Limits{1048576, 65536}},
	{"gemini-2.0", Limits{1048576, 8192}},
	{"deepseek-chat", Limits{128000, 8192}},
	{"deepseek-reasoner", Limits{128000, 65536}},
	{"qwen3-coder", Limits{262144, 65536}},
	{"qwen3", Limits{40960, 32768}},
	{"llama3.1", Limits{131072, 4096}},
	{"llama3", Limits{8192, 4096}},
}

// KnownLimits returns the published limits of a model by name (the part
// after "provider:"), with any "vendor/" prefix and ":tag" suffix
// ignored ("openai/gpt-4.1", "qwen3:8b").
func KnownLimits(model string) (Limits, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimPrefix(m, "anthropic.") // Bedrock-style names
	for _, k := range knownLimits {
		if strings.HasPrefix(m, k.prefix) {
			return k.limits, true
		}
	}
	return Limits{}, false
}
