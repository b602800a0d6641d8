// Package config loads agentls settings from the user's config file and
// merges them with the editor's settings, CLI flags and the workspace file
// .agentls.json. Higher sources win: flags, then editor, then environment,
// then the user file; a workspace file may only tighten permissions unless
// the user file trusts its root (Resolve).
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// Config is the user's settings. Every key is documented in
// docs/configuration.md.
type Config struct {
	// Model is "provider:model", e.g. "openai:gpt-4.1".
	Model     string              `json:"model,omitempty"`
	Providers map[string]Provider `json:"providers,omitempty"`
	// SubagentTools names tools a subagent gets besides the read-only set
	// (e.g. ["bash"]); its calls still pass the gate within its parent's
	// scope.
	SubagentTools []string    `json:"subagent_tools,omitempty"`
	Permissions   Permissions `json:"permissions,omitempty"`
	// MaxSteps bounds model calls per turn.
	MaxSteps int `json:"max_steps,omitempty"`
	// TrustedWorkspaces are the folders the person trusts: an absolute
	// folder, or "DIR/**" for DIR and every folder below it (package
	// trust). A trusted folder's .agentls.json may loosen permissions, run
	// hooks and name language servers, and the built-in servers start in
	// their full form there. Only the user file's list counts.
	TrustedWorkspaces []string `json:"trusted_workspaces,omitempty"`
	// Hooks are lifecycle hooks (agent/hooks). Resolve does not merge them:
	// each source's list is collected with its trust (hooks.Collect), so a
	// cloned repository's file cannot run code.
	Hooks json.RawMessage `json:"hooks,omitempty"`
	// MaxStopContinuations bounds how often Stop hooks may send the model
	// back to work in one turn (default 8).
	MaxStopContinuations int `json:"max_stop_continuations,omitempty"`
	// LSP configures the language servers of the lsp_* tools, by name
	// (config/lsp.go). Only the user file, the editor and trusted
	// workspace files may set it: a server is a program agentls runs.
	LSP map[string]ServerConfig `json:"lsp,omitempty"`
	// AutoLSP adds the built-in servers whose program is on PATH; nil
	// means true.
	AutoLSP *bool `json:"auto_lsp,omitempty"`
	// MCP names the MCP servers whose tools the agent gets (config/mcp.go).
	// Only the user file, the editor and trusted workspace files (and
	// their .mcp.json) may set it: a server is a program agentls runs.
	MCP MCPServers `json:"mcp,omitempty"`
	// Sandbox configures the kernel sandbox of every program agentls
	// starts (config/sandbox.go). Only the user file's counts.
	Sandbox Sandbox `json:"sandbox,omitzero"`
	// Checkpoints bounds the checkpoints taken before the agent's steps
	// (config/checkpoints.go). Only the user file's counts.
	Checkpoints Checkpoints `json:"checkpoints,omitzero"`
	// Completion configures inline completion (config/completion.go).
	// An untrusted workspace file may not set it: its model is where the
	// person's code is sent.
	Completion Completion `json:"completion,omitzero"`
}

// Provider overrides where a provider is reached and how.
type Provider struct {
	// Type is the API the provider speaks: ProviderOpenAI
	// (OpenAI-compatible chat completions, the default for a name agentls
	// does not know) or ProviderAnthropic (the Messages API).
	Type    string `json:"type,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// ContextWindow is the context window, in tokens, of this provider's
	// models (compaction keeps requests under it); 0 means known defaults.
	ContextWindow int `json:"context_window,omitempty"`
	// Thinking is extended thinking for the models of an Anthropic
	// provider: off or a budget in tokens; unset means off.
	Thinking Thinking `json:"thinking,omitempty"`
	// Price is what this provider's models cost, for those without their
	// own (Models) — over agentls's price table.
	Price *Price `json:"price,omitempty"`
	// Models sets limits per model name, over ContextWindow, Thinking and
	// Price.
	Models map[string]ModelLimits `json:"models,omitempty"`
}

// Price is a model's price in US dollars per million tokens, over
// agentls's own estimates (a new model, a negotiated rate, a local model
// that costs nothing). Input and Output are required; CachedInput and
// CacheWrite default to Input.
type Price struct {
	Input       *float64 `json:"input,omitempty"`
	CachedInput *float64 `json:"cached_input,omitempty"`
	CacheWrite  *float64 `json:"cache_write,omitempty"`
	Output      *float64 `json:"output,omitempty"`
}

// clone copies p, so a merged config shares nothing with its sources.
func (p *Price) clone() *Price {
	if p == nil {
		return nil
	}
	cp := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		return ptr(*v)
	}
	return &Price{Input: cp(p.Input), CachedInput: cp(p.CachedInput), CacheWrite: cp(p.CacheWrite), Output: cp(p.Output)}
}

// validate names what is wrong with the price at key.
func (p *Price) validate(key string) error {
	if p == nil {
		return nil
	}
	if p.Input == nil || p.Output == nil {
		return fmt.Errorf("%s needs input and output (US dollars per million tokens; 0 for a model that costs nothing)", key)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"input", p.Input}, {"cached_input", p.CachedInput}, {"cache_write", p.CacheWrite}, {"output", p.Output}} {
		if f.v != nil && !(*f.v >= 0 && *f.v < 1e6) {
			return fmt.Errorf("%s.%s is %v: give US dollars per million tokens, 0 or more", key, f.name, *f.v)
		}
	}
	return nil
}

// Provider types (Provider.Type).
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// ModelLimits are one model's settings under a provider.
type ModelLimits struct {
	ContextWindow int      `json:"context_window,omitempty"`
	Thinking      Thinking `json:"thinking,omitempty"`
	Price         *Price   `json:"price,omitempty"`
}

// Thinking is a thinking setting: 0 is unset, ThinkingOff turns thinking
// off (over a lower source's budget), a positive value is a budget in
// tokens. In JSON it is "off" or a whole number.
type Thinking int

// ThinkingOff is the setting "off".
const ThinkingOff Thinking = -1

// MinThinkingBudget is the smallest budget Anthropic accepts.
const MinThinkingBudget = 1024

// Budget is the budget in tokens, 0 when off or unset.
func (t Thinking) Budget() int { return max(int(t), 0) }

// UnmarshalJSON reads "off" or a whole number of tokens.
func (t *Thinking) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s != "off" {
			return fmt.Errorf("thinking %q: use \"off\" or a budget in tokens such as 8000", s)
		}
		*t = ThinkingOff
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil || n < 0 {
		return fmt.Errorf("thinking %s: use \"off\" or a budget in tokens such as 8000", b)
	}
	*t = Thinking(n)
	return nil
}

// MarshalJSON writes "off" or the budget.
func (t Thinking) MarshalJSON() ([]byte, error) {
	if t < 0 {
		return []byte(`"off"`), nil
	}
	return json.Marshal(int(t))
}

// Dirs are the per-user folders agentls uses.
type Dirs struct {
	Config, State, Data string
}

// UserDirs follows the XDG base directory spec: an absolute XDG_*_HOME
// wins, otherwise the folder lies below HOME. HOME is only needed for the
// folders whose XDG variable is unset or relative.
func UserDirs() (Dirs, error) {
	var homeErr error
	get := func(env, def string) string {
		if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, "agentls")
		}
		home, err := os.UserHomeDir()
		if err != nil {
			homeErr = err
			return ""
		}
		return filepath.Join(home, def, "agentls")
	}
	d := Dirs{
		Config: get("XDG_CONFIG_HOME", ".config"),
		State:  get("XDG_STATE_HOME", filepath.Join(".local", "state")),
		Data:   get("XDG_DATA_HOME", filepath.Join(".local", "share")),
	}
	if homeErr != nil {
		return Dirs{}, fmt.Errorf("find home directory: %w; set HOME or the XDG_*_HOME variables", homeErr)
	}
	return d, nil
}

// File is the user config file's path.
func (d Dirs) File() string { return filepath.Join(d.Config, "config.json") }

// Load reads the user config file. A missing file is an empty config.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read config %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse decodes and validates config JSON; unknown keys and invalid
// permission entries are errors so typos surface.
func Parse(name string, data []byte) (Config, error) {
	if err := checkLSPShape(data); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	// Decode stops after the first value: anything after it would be
	// silently ignored, which hides the same mistakes as an unknown key.
	if _, err := dec.Token(); err != io.EOF {
		return Config{}, fmt.Errorf("config %s: unexpected data after the top-level JSON object", name)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	if err := validateLSP(c); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	c.MCP.fromSource(name, "")
	return c, nil
}

// Merge returns base with every non-empty field of over applied on top.
// Provider entries and permission rules merge key by key, inspectors field
// by field, and lists add up. Neither argument is modified. Merge knows no
// trust: use Resolve for workspace files.
func Merge(base, over Config) Config {
	if over.Model != "" {
		base.Model = over.Model
	}
	base.Permissions = mergePermissions(base.Permissions, over.Permissions)
	if len(over.TrustedWorkspaces) > 0 {
		base.TrustedWorkspaces = union(base.TrustedWorkspaces, over.TrustedWorkspaces)
	}
	if over.MaxSteps != 0 {
		base.MaxSteps = over.MaxSteps
	}
	if len(over.SubagentTools) > 0 {
		base.SubagentTools = slices.Clone(over.SubagentTools)
	}
	if over.MaxStopContinuations != 0 {
		base.MaxStopContinuations = over.MaxStopContinuations
	}
	if len(over.LSP) > 0 {
		base.LSP = mergeLSP(base.LSP, over.LSP)
	}
	if over.AutoLSP != nil {
		base.AutoLSP = ptr(*over.AutoLSP)
	}
	if len(over.MCP) > 0 {
		base.MCP = mergeMCP(base.MCP, over.MCP)
	}
	base.Completion = mergeCompletion(base.Completion, over.Completion)
	if len(over.Providers) > 0 {
		// A fresh map: writing into base.Providers would change the
		// caller's base config, whose map this copy shares.
		merged := make(map[string]Provider, len(base.Providers)+len(over.Providers))
		maps.Copy(merged, base.Providers)
		for k, v := range over.Providers {
			p := merged[k]
			if v.Type != "" {
				p.Type = v.Type
			}
			if v.Thinking != 0 {
				p.Thinking = v.Thinking
			}
			if v.BaseURL != "" {
				p.BaseURL = v.BaseURL
			}
			if v.APIKeyEnv != "" {
				p.APIKeyEnv = v.APIKeyEnv
			}
			if v.ContextWindow != 0 {
				p.ContextWindow = v.ContextWindow
			}
			if v.Price != nil {
				p.Price = v.Price.clone()
			}
			if len(v.Models) > 0 {
				models := maps.Clone(p.Models)
				if models == nil {
					models = map[string]ModelLimits{}
				}
				for name, m := range v.Models {
					m.Price = m.Price.clone()
					models[name] = m
				}
				p.Models = models
			}
			merged[k] = p
		}
		base.Providers = merged
	}
	return base
}

// mergePermissions applies over on top of base without sharing maps or
// slices with either.
func mergePermissions(base, over Permissions) Permissions {
	if over.Mode != "" {
		base.Mode = over.Mode
	}
	if len(over.Rules) > 0 {
		rules := make(map[string]string, len(base.Rules)+len(over.Rules))
		maps.Copy(rules, base.Rules)
		maps.Copy(rules, over.Rules)
		base.Rules = rules
	}
	if len(over.AskAlways) > 0 {
		base.AskAlways = union(base.AskAlways, over.AskAlways)
	}
	if len(over.AllowedTools) > 0 {
		base.AllowedTools = union(base.AllowedTools, over.AllowedTools)
	}
	if !over.Inspectors.isZero() {
		// Fresh pointers: the result must not alias either argument.
		in := base.Inspectors
		if v := over.Inspectors.Security; v != nil {
			in.Security = ptr(*v)
		}
		if v := over.Inspectors.Egress; v != nil {
			in.Egress = ptr(*v)
		}
		if v := over.Inspectors.Repetition; v != nil {
			in.Repetition = ptr(*v)
		}
		if v := over.Inspectors.Adversary; v != nil {
			in.Adversary = ptr(*v)
		}
		base.Inspectors = in
	}
	if over.AskTimeout != "" {
		base.AskTimeout = over.AskTimeout
	}
	return base
}

// union returns a fresh list of a's items then b's new ones.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, s := range append(append([]string(nil), a...), b...) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
