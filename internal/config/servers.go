package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
)

// ServerConfig describes one language server: how to run it and which
// files it serves. It is the value of one entry under the `lsp` config key;
// the language-server client (internal/langserver/client) runs it.
type ServerConfig struct {
	// Name is the server's key under `lsp`; NewManager fills it in.
	Name string `json:"-"`
	// Command is the program and its arguments. The config file may give
	// a single string for a program without arguments.
	Command []string `json:"command,omitempty"`
	// Filetypes are file extensions ("go", ".py"), file names ("go.mod")
	// or LSP language IDs ("typescriptreact"); empty means every file.
	Filetypes []string `json:"filetypes,omitempty"`
	// RootMarkers name files or folders that mark a project root, most
	// important first ("go.work" before "go.mod"); the nearest folder
	// holding the first marker found becomes the server's root.
	RootMarkers []string `json:"root_markers,omitempty"`
	// InitOptions is sent as initializationOptions.
	InitOptions any `json:"init_options,omitempty"`
	// Settings answers workspace/configuration, by section path.
	Settings any `json:"settings,omitempty"`
	// Env is added to agentls's environment for the server process.
	Env map[string]string `json:"env,omitempty"`
	// Disabled turns the server off (also a built-in one).
	Disabled bool `json:"disabled,omitempty"`
	// RunUntrusted lets a server agentls has no safe form for (one that
	// is not built in) start, as configured, in folders the person has not
	// trusted: the user vouches that it runs no code from the project.
	RunUntrusted bool `json:"run_untrusted,omitempty"`
}

// UnmarshalJSON accepts "command" as a string or a list of strings.
func (s *ServerConfig) UnmarshalJSON(data []byte) error {
	type plain ServerConfig
	var aux struct {
		plain
		Command json.RawMessage `json:"command,omitempty"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*s = ServerConfig(aux.plain)
	if len(aux.Command) == 0 || string(aux.Command) == "null" {
		return nil
	}
	var one string
	if json.Unmarshal(aux.Command, &one) == nil {
		s.Command = strings.Fields(one)
		return nil
	}
	if err := json.Unmarshal(aux.Command, &s.Command); err != nil {
		return fmt.Errorf(`"command" must be a string or a list of strings, e.g. ["gopls", "serve"]: %w`, err)
	}
	return nil
}

// BuiltinServers returns the servers agentls knows, used when auto_lsp is
// on and their program is on PATH; an `lsp` entry of the same name
// overrides the fields it sets (MergeServer).
func BuiltinServers() map[string]ServerConfig {
	return map[string]ServerConfig{
		"gopls": {
			Name:        "gopls",
			Command:     []string{"gopls"},
			Filetypes:   []string{"go", "go.mod", "go.sum", "go.work"},
			RootMarkers: []string{"go.work", "go.mod", ".git"},
		},
		"pyright": {
			Name:        "pyright",
			Command:     []string{"pyright-langserver", "--stdio"},
			Filetypes:   []string{"py", "pyi"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git"},
		},
		"typescript-language-server": {
			Name:        "typescript-language-server",
			Command:     []string{"typescript-language-server", "--stdio"},
			Filetypes:   []string{"ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json", ".git"},
		},
		"clangd": {
			Name:        "clangd",
			Command:     []string{"clangd"},
			Filetypes:   []string{"c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "m", "mm"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", ".git"},
		},
		"rust-analyzer": {
			Name:        "rust-analyzer",
			Command:     []string{"rust-analyzer"},
			Filetypes:   []string{"rs"},
			RootMarkers: []string{"Cargo.toml", "rust-project.json", ".git"},
		},
	}
}

// MergeServer is base with the fields over sets replacing it (a set field
// replaces, an unset one keeps base's; env adds and replaces variables by
// name; disabled and run_untrusted, once true, stay true). It is the one
// merge of server entries: of a later config file over an earlier one, and
// of the user's entry over a built-in server.
func MergeServer(base, over ServerConfig) ServerConfig {
	out := base
	if over.Name != "" {
		out.Name = over.Name
	}
	if len(over.Command) > 0 {
		out.Command = over.Command
	}
	if len(over.Filetypes) > 0 {
		out.Filetypes = over.Filetypes
	}
	if len(over.RootMarkers) > 0 {
		out.RootMarkers = over.RootMarkers
	}
	if over.InitOptions != nil {
		out.InitOptions = over.InitOptions
	}
	if over.Settings != nil {
		out.Settings = over.Settings
	}
	if over.Env != nil {
		env := maps.Clone(base.Env)
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, over.Env)
		out.Env = env
	}
	out.Disabled = base.Disabled || over.Disabled
	out.RunUntrusted = base.RunUntrusted || over.RunUntrusted
	return out
}
