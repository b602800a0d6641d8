// Package config loads agentls settings from the user's config file and
// merges them with the editor's initializationOptions and CLI flags.
// Higher sources win: flags, then editor, then environment, then the file.
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
)

// Config is the user's settings. Every key is documented in
// docs/configuration.md.
type Config struct {
	// Model is "provider:model", e.g. "openai:gpt-4.1".
	Model       string              `json:"model,omitempty"`
	Providers   map[string]Provider `json:"providers,omitempty"`
	Permissions Permissions         `json:"permissions,omitempty"`
	// MaxSteps bounds model calls per turn.
	MaxSteps int `json:"max_steps,omitempty"`
}

// Provider overrides where a provider is reached.
type Provider struct {
	BaseURL string `json:"base_url,omitempty"`
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string `json:"api_key_env,omitempty"`
}

// Permissions is the permission gate's section.
type Permissions struct {
	Mode string `json:"mode,omitempty"`
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

// Parse decodes config JSON; unknown keys are an error so typos surface.
func Parse(name string, data []byte) (Config, error) {
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
	return c, nil
}

// Merge returns base with every non-empty field of over applied on top.
// Provider entries merge field by field. Neither argument is modified.
func Merge(base, over Config) Config {
	if over.Model != "" {
		base.Model = over.Model
	}
	if over.Permissions.Mode != "" {
		base.Permissions.Mode = over.Permissions.Mode
	}
	if over.MaxSteps != 0 {
		base.MaxSteps = over.MaxSteps
	}
	if len(over.Providers) > 0 {
		// A fresh map: writing into base.Providers would change the
		// caller's base config, whose map this copy shares.
		merged := make(map[string]Provider, len(base.Providers)+len(over.Providers))
		maps.Copy(merged, base.Providers)
		for k, v := range over.Providers {
			p := merged[k]
			if v.BaseURL != "" {
				p.BaseURL = v.BaseURL
			}
			if v.APIKeyEnv != "" {
				p.APIKeyEnv = v.APIKeyEnv
			}
			merged[k] = p
		}
		base.Providers = merged
	}
	return base
}
