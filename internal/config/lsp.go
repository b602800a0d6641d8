package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/lsp/client"
)

// The `lsp` and `auto_lsp` keys configure the language servers behind the
// lsp_* tools (see docs/lsp-tools.md): per server its command, file
// types, root markers, initialization options, settings, environment and
// whether it is disabled; auto_lsp (default true) adds the built-in
// servers whose program is on PATH. A language server is a program
// agentls runs, so an untrusted workspace file cannot set either key.

// LSPConfig is the language-server configuration of c, for
// client.NewManager. Timeouts are left at their defaults.
func (c Config) LSPConfig() client.Config {
	servers := make(map[string]client.ServerConfig, len(c.LSP))
	for name, sc := range c.LSP {
		sc.Name = name
		servers[name] = sc
	}
	out := client.Config{Servers: servers, Trusted: c.Trusted}
	if c.AutoLSP != nil {
		out.AutoLSP = ptr(*c.AutoLSP)
	}
	return out
}

// mergeLSP applies over's server entries on top of base's, field by
// field (a set field replaces, an unset one keeps base's), without
// sharing maps with either.
func mergeLSP(base, over map[string]client.ServerConfig) map[string]client.ServerConfig {
	merged := make(map[string]client.ServerConfig, len(base)+len(over))
	maps.Copy(merged, base)
	for name, o := range over {
		b, ok := merged[name]
		if !ok {
			merged[name] = o
			continue
		}
		if len(o.Command) > 0 {
			b.Command = o.Command
		}
		if len(o.Filetypes) > 0 {
			b.Filetypes = o.Filetypes
		}
		if len(o.RootMarkers) > 0 {
			b.RootMarkers = o.RootMarkers
		}
		if o.InitOptions != nil {
			b.InitOptions = o.InitOptions
		}
		if o.Settings != nil {
			b.Settings = o.Settings
		}
		if o.Env != nil {
			env := maps.Clone(b.Env)
			if env == nil {
				env = map[string]string{}
			}
			maps.Copy(env, o.Env)
			b.Env = env
		}
		if o.Disabled {
			b.Disabled = true
		}
		if o.RunUntrusted {
			b.RunUntrusted = true
		}
		merged[name] = b
	}
	return merged
}

// checkLSPShape checks the raw `lsp` section of a config file before it
// is decoded, for errors that name the entry: every entry is an object,
// its keys are known (the entries decode leniently, so a typo such as
// "filetype" would otherwise be dropped silently) and its command is a
// string or a list of strings.
func checkLSPShape(data []byte) error {
	var raw struct {
		LSP json.RawMessage `json:"lsp"`
	}
	if json.Unmarshal(data, &raw) != nil || len(raw.LSP) == 0 || string(raw.LSP) == "null" {
		return nil // the strict decode reports it
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw.LSP, &entries); err != nil {
		return fmt.Errorf("lsp: must be an object of servers by name, e.g. {\"zls\": {\"command\": [\"zls\"], \"filetypes\": [\"zig\"]}}")
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(entries[name], &keys); err != nil {
			errs = append(errs, fmt.Errorf("lsp.%s: must be an object such as {\"command\": [\"server\", \"--stdio\"], \"filetypes\": [\"ext\"]}", name))
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			switch k {
			case "command", "filetypes", "root_markers", "init_options", "settings", "env", "disabled", "run_untrusted":
			default:
				errs = append(errs, fmt.Errorf("lsp.%s: unknown key %q; the keys are command, filetypes, root_markers, init_options, settings, env, disabled and run_untrusted", name, k))
			}
		}
		var sc client.ServerConfig
		if err := json.Unmarshal(entries[name], &sc); err != nil {
			errs = append(errs, fmt.Errorf("lsp.%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// validateLSP checks the decoded `lsp` entries: a server agentls does not
// know needs a command.
func validateLSP(c Config) error {
	builtins := client.Builtins()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(c.LSP)) {
		sc := c.LSP[name]
		if strings.TrimSpace(name) == "" {
			errs = append(errs, errors.New("lsp: a server needs a non-empty name"))
		}
		if _, known := builtins[name]; !known && len(sc.Command) == 0 && !sc.Disabled {
			errs = append(errs, fmt.Errorf("lsp.%s: \"command\" is required: %s is not a built-in server (built-in: %s)", name, name, strings.Join(slices.Sorted(maps.Keys(builtins)), ", ")))
		}
		if len(sc.Command) > 0 && sc.Command[0] == "" {
			errs = append(errs, fmt.Errorf("lsp.%s: the command's program is empty", name))
		}
	}
	return errors.Join(errs...)
}

// hasLSP reports whether a config sets the language-server keys.
func hasLSP(c Config) bool {
	return len(c.LSP) > 0 || c.AutoLSP != nil
}
