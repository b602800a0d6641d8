package model

import (
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
)

// KnownPrice is agentls's estimate of what a model costs, by name (the
// part after "provider:"; a "vendor/" prefix, a date or "-latest" suffix
// and, for Claude, dots for dashes are ignored: "openai/gpt-4o-2024-08-06",
// "anthropic/claude-sonnet-4.5"). Only exact families are priced: a
// variant this table does not name ("gpt-5-pro", "…:free") has no price,
// because a wrong cost is worse than none.
//
// The figures are the providers' public list prices for standard
// (non-batch) requests, USD per million tokens, as of 2026: Anthropic's
// pricing page (platform.claude.com/docs/en/about-claude/pricing; cache
// writes at the 5-minute rate) and OpenAI's (openai.com/api/pricing).
// They are estimates: long-context surcharges, batch and priority tiers,
// regional endpoints and negotiated rates are not modelled. A price in
// the config (providers.<name>.price, providers.<name>.models.<model>.price)
// overrides them.
func KnownPrice(model string) (agent.Price, bool) {
	m := priceName(model)
	// Anthropic: cache reads are a tenth of the input price, 5-minute
	// cache writes 1.25 times it.
	claude := func(in, out float64) (agent.Price, bool) {
		return agent.Price{Input: in, CachedInput: in / 10, CacheWrite: in * 1.25, Output: out}, true
	}
	// OpenAI: cached input at the model's discount, cache writes free.
	openai := func(in, cached, out float64) (agent.Price, bool) {
		return agent.Price{Input: in, CachedInput: cached, CacheWrite: in, Output: out}, true
	}
	switch m {
	case "claude-opus-4-6", "claude-opus-4-5":
		return claude(5, 25)
	case "claude-opus-4-1", "claude-opus-4", "claude-opus-4-0", "claude-3-opus":
		return claude(15, 75)
	case "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-sonnet-4", "claude-sonnet-4-0", "claude-3-7-sonnet", "claude-3-5-sonnet", "claude-3-sonnet":
		return claude(3, 15)
	case "claude-haiku-4-5":
		return claude(1, 5)
	case "claude-3-5-haiku":
		return claude(0.8, 4)
	case "claude-3-haiku":
		return agent.Price{Input: 0.25, CachedInput: 0.03, CacheWrite: 0.30, Output: 1.25}, true

	case "gpt-5", "gpt-5.1", "gpt-5-codex", "gpt-5.1-codex", "gpt-5-chat":
		return openai(1.25, 0.125, 10)
	case "gpt-5.2", "gpt-5.2-codex":
		return openai(1.75, 0.175, 14)
	case "gpt-5-mini", "gpt-5.1-codex-mini":
		return openai(0.25, 0.025, 2)
	case "gpt-5-nano":
		return openai(0.05, 0.005, 0.40)
	case "gpt-4.1":
		return openai(2, 0.50, 8)
	case "gpt-4.1-mini":
		return openai(0.40, 0.10, 1.60)
	case "gpt-4.1-nano":
		return openai(0.10, 0.025, 0.40)
	case "gpt-4o":
		return openai(2.50, 1.25, 10)
	case "gpt-4o-mini":
		return openai(0.15, 0.075, 0.60)
	case "o4-mini":
		return openai(1.10, 0.275, 4.40)
	case "o3":
		return openai(2, 0.50, 8)
	case "o3-mini", "o1-mini":
		return openai(1.10, 0.55, 4.40)
	case "o1":
		return openai(15, 7.50, 60)
	case "gpt-4-turbo":
		return openai(10, 10, 30)
	case "gpt-4":
		return openai(30, 30, 60)
	case "gpt-3.5-turbo":
		return openai(0.50, 0.50, 1.50)
	}
	return agent.Price{}, false
}

// priceName is the family a model name is priced under.
func priceName(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimPrefix(m, "anthropic.") // Bedrock-style names
	m = undated(m)
	if strings.HasPrefix(m, "claude-") {
		m = strings.ReplaceAll(m, ".", "-") // OpenRouter's claude-sonnet-4.5
	}
	return m
}

// undated drops the snapshot suffix of a model name: -latest,
// -20250929, -2024-08-06, and Bedrock's -v1:0 after any of them.
func undated(m string) string {
	digits := func(s string) bool {
		for _, r := range s {
			if r < '0' || r > '9' {
				return false
			}
		}
		return s != ""
	}
	if i := strings.LastIndex(m, "-v"); i >= 0 {
		if major, minor, ok := strings.Cut(m[i+2:], ":"); ok && digits(major) && digits(minor) {
			m = m[:i]
		}
	}
	if s, ok := strings.CutSuffix(m, "-latest"); ok {
		return s
	}
	if i := strings.LastIndexByte(m, '-'); i >= 0 && len(m)-i-1 == 8 && digits(m[i+1:]) {
		return m[:i]
	}
	if n := len(m); n > 11 && m[n-11] == '-' && m[n-6] == '-' && m[n-3] == '-' &&
		digits(m[n-10:n-6]) && digits(m[n-5:n-3]) && digits(m[n-2:]) {
		return m[:n-11]
	}
	return m
}

// PriceOf is the price of spec's model: the config's for the model
// (providers.<name>.models.<model>.price), else the provider's
// (providers.<name>.price), else KnownPrice. A replay model and a model
// nobody priced have none.
func PriceOf(spec string, providers map[string]config.Provider) (agent.Price, bool) {
	name, m, ok := strings.Cut(spec, ":")
	if !ok {
		return agent.Price{}, false
	}
	if p, ok := providers[name]; ok {
		if pr := p.Models[m].Price; pr != nil {
			return fromConfig(pr), true
		}
		if p.Price != nil {
			return fromConfig(p.Price), true
		}
	}
	if name == "replay" {
		return agent.Price{}, false
	}
	return KnownPrice(m)
}

// fromConfig fills a configured price's defaults: cached input and cache
// writes cost what input does unless said.
func fromConfig(p *config.Price) agent.Price {
	val := func(v *float64, def float64) float64 {
		if v == nil {
			return def
		}
		return *v
	}
	in := val(p.Input, 0)
	return agent.Price{Input: in, CachedInput: val(p.CachedInput, in), CacheWrite: val(p.CacheWrite, in), Output: val(p.Output, 0)}
}
