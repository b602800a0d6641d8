package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The `lsp` and `auto_lsp` keys configure the language servers behind the
// lsp_* tools (see docs/lsp-tools.md): per server its command, file
// types, root markers, initialization options, settings, environment and
// whether it is disabled; auto_lsp (default true) adds the built-in
// servers whose program is on PATH. A language server is a program
// agentls runs, so an untrusted workspace file cannot set either key.

// mergeLSP applies over's server entries on top of base's (MergeServer),
// without sharing maps with either.
func mergeLSP(base, over map[string]ServerConfig) map[string]ServerConfig {
	merged := make(map[string]ServerConfig, len(base)+len(over))
	maps.Copy(merged, base)
	for name, o := range over {
		if b, ok := merged[name]; ok {
			o = MergeServer(b, o)
		}
		merged[name] = o
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
		var sc ServerConfig
		if err := json.Unmarshal(entries[name], &sc); err != nil {
			errs = append(errs, fmt.Errorf("lsp.%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// validateLSP checks the decoded `lsp` entries: a server agentls does not
// know needs a command.
func validateLSP(c Config) error {
	builtins := BuiltinServers()
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
