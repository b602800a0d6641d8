package config

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agentls/agentls/internal/config/trust"
	"github.com/agentls/agentls/internal/permission"
)

// Permissions is the `permissions` section: how the permission gate decides
// (docs/configuration.md, docs/security.md).
type Permissions struct {
	// Mode is chat, approve, smart (default) or auto.
	Mode string `json:"mode,omitempty"`
	// Rules maps rule keys (fs.edit, mcp.github.*, shell.exec:go test,
	// fs.write:docs/**) to allow, ask or deny.
	Rules map[string]string `json:"rules,omitempty"`
	// AskAlways keys always ask, whatever allows them.
	AskAlways []string `json:"ask_always,omitempty"`
	// AllowedTools are "tool" or "tool:action" entries that run unasked.
	AllowedTools []string   `json:"allowed_tools,omitempty"`
	Inspectors   Inspectors `json:"inspectors,omitzero"`
	// AskTimeout is how long a prompt waits, as a Go duration ("10m").
	AskTimeout string `json:"ask_timeout,omitempty"`
}

// Inspectors switch the gate's inspectors. A nil field means "not set
// here", so sources merge field by field.
type Inspectors struct {
	Security *bool `json:"security,omitempty"`
	Egress   *bool `json:"egress,omitempty"`
	// Repetition is the repeat limit; 0 turns it off.
	Repetition *int  `json:"repetition,omitempty"`
	Adversary  *bool `json:"adversary,omitempty"`
}

func (i Inspectors) isZero() bool {
	return i.Security == nil && i.Egress == nil && i.Repetition == nil && i.Adversary == nil
}

// Validate reports every problem of the config, each naming its key, so a
// typo in a rule is an error instead of a silent allow.
func (c Config) Validate() error {
	var errs []error
	if err := c.Sandbox.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Checkpoints.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Completion.validate(); err != nil {
		errs = append(errs, err)
	}
	p := c.Permissions
	if p.Mode != "" {
		if _, err := permission.ParseMode(p.Mode); err != nil {
			errs = append(errs, fmt.Errorf("permissions.mode: %w", err))
		}
	}
	for _, k := range slices.Sorted(mapKeys(p.Rules)) {
		if _, err := permission.ParseRuleKey(k); err != nil {
			errs = append(errs, fmt.Errorf("permissions.rules: %w", err))
		}
		if _, err := permission.ParseKind(p.Rules[k]); err != nil {
			errs = append(errs, fmt.Errorf("permissions.rules[%q]: %w", k, err))
		}
	}
	for _, k := range p.AskAlways {
		if _, err := permission.ParseRuleKey(k); err != nil {
			errs = append(errs, fmt.Errorf("permissions.ask_always: %w", err))
		}
	}
	for _, s := range p.AllowedTools {
		if err := permission.ParseAllowedTool(s); err != nil {
			errs = append(errs, fmt.Errorf("permissions.allowed_tools: %w", err))
		}
	}
	if r := p.Inspectors.Repetition; r != nil && *r < 0 {
		errs = append(errs, fmt.Errorf("permissions.inspectors.repetition is %d: use 0 (off) or a positive count", *r))
	}
	if p.AskTimeout != "" {
		if _, err := parseTimeout(p.AskTimeout); err != nil {
			errs = append(errs, err)
		}
	}
	for _, w := range c.TrustedWorkspaces {
		if err := trust.Validate(w); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, validateMCP(c.MCP)...)
	for _, name := range slices.Sorted(mapKeys(c.Providers)) {
		p := c.Providers[name]
		if p.Type != "" && p.Type != ProviderOpenAI && p.Type != ProviderAnthropic {
			errs = append(errs, fmt.Errorf("providers.%s.type is %q: use %q (OpenAI-compatible, the default) or %q (the Messages API)", name, p.Type, ProviderOpenAI, ProviderAnthropic))
		}
		if b := p.Thinking; b > 0 && b < MinThinkingBudget {
			errs = append(errs, fmt.Errorf("providers.%s.thinking is %d: give at least %d tokens, or \"off\"", name, b, MinThinkingBudget))
		}
		if p.ContextWindow != 0 && p.ContextWindow < 1024 {
			errs = append(errs, fmt.Errorf("providers.%s.context_window is %d: give the model's window in tokens (at least 1024)", name, p.ContextWindow))
		}
		if err := p.Price.validate("providers." + name + ".price"); err != nil {
			errs = append(errs, err)
		}
		for _, m := range slices.Sorted(mapKeys(p.Models)) {
			if err := p.Models[m].Price.validate(fmt.Sprintf("providers.%s.models[%q].price", name, m)); err != nil {
				errs = append(errs, err)
			}
			if w := p.Models[m].ContextWindow; w != 0 && w < 1024 {
				errs = append(errs, fmt.Errorf("providers.%s.models[%q].context_window is %d: give the model's window in tokens (at least 1024)", name, m, w))
			}
			if b := p.Models[m].Thinking; b > 0 && b < MinThinkingBudget {
				errs = append(errs, fmt.Errorf("providers.%s.models[%q].thinking is %d: give at least %d tokens, or \"off\"", name, m, b, MinThinkingBudget))
			}
		}
	}
	return errors.Join(errs...)
}

func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("permissions.ask_timeout %q: use a positive duration such as \"10m\" or \"90s\"", s)
	}
	return d, nil
}

// Policy turns the section into the gate's policy, filling defaults for
// what is unset: smart mode, security and egress on, repetition 5,
// adversary off, a 10 minute ask timeout.
func (p Permissions) Policy() (permission.Policy, error) {
	if err := (Config{Permissions: p}).Validate(); err != nil {
		return permission.Policy{}, err
	}
	pol := permission.DefaultPolicy()
	pol.Mode, _ = permission.ParseMode(p.Mode)
	if len(p.Rules) > 0 {
		pol.Rules = make(map[string]permission.Kind, len(p.Rules))
		for k, v := range p.Rules {
			pol.Rules[k] = permission.Kind(v)
		}
	}
	pol.AskAlways = slices.Clone(p.AskAlways)
	pol.AllowedTools = slices.Clone(p.AllowedTools)
	if v := p.Inspectors.Security; v != nil {
		pol.Security = *v
	}
	if v := p.Inspectors.Egress; v != nil {
		pol.Egress = *v
	}
	if v := p.Inspectors.Repetition; v != nil {
		pol.Repetition = *v
	}
	if v := p.Inspectors.Adversary; v != nil {
		pol.Adversary = *v
	}
	if p.AskTimeout != "" {
		pol.AskTimeout, _ = parseTimeout(p.AskTimeout)
	}
	return pol, pol.Validate()
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
