package model

// suggested are models of the built-in providers that need a key, offered
// by model pickers (ACP's model option, the editors' lists) once the key
// is set, so a person can switch without configuring each one. A short
// list of current models, best first; any other model works when named.
var suggested = []struct{ provider, model string }{
	{"anthropic", "claude-sonnet-4-5"},
	{"anthropic", "claude-opus-4-5"},
	{"anthropic", "claude-haiku-4-5"},
	{"openai", "gpt-5"},
	{"openai", "gpt-5-mini"},
	{"openai", "gpt-4.1"},
}

// Suggestion is a suggested model and the key that makes it offered.
type Suggestion struct {
	Model, KeyEnv string
}

// Suggested returns the suggested models ("provider:model") whose
// provider's API key is set in the environment getenv reads.
func Suggested(getenv func(string) string) []Suggestion {
	var out []Suggestion
	for _, s := range suggested {
		b, _ := known(s.provider)
		if b.keyEnv != "" && getenv(b.keyEnv) != "" {
			out = append(out, Suggestion{Model: s.provider + ":" + s.model, KeyEnv: b.keyEnv})
		}
	}
	return out
}
