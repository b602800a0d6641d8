package client

import (
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/sandbox"
)

// Config is the `lsp` and `auto_lsp` configuration.
type Config struct {
	// Servers are the user's entries, by name. An entry named like a
	// built-in one overrides the fields it sets.
	Servers map[string]config.ServerConfig
	// AutoLSP adds the built-in servers whose program is on PATH; nil
	// means true.
	AutoLSP *bool
	// RequestTimeout bounds one request; zero means 10 s.
	RequestTimeout time.Duration
	// StartTimeout bounds starting and initializing a server; zero means
	// 30 s.
	StartTimeout time.Duration
	// IdleClose closes documents the agent opened once unused this long;
	// zero means 2 minutes. Documents open in the editor stay open.
	IdleClose time.Duration
	// Trusted reports whether a workspace folder is trusted (package
	// config/trust): there servers start as configured, in their full
	// form. Anywhere else a server starts in its safe form, which runs no
	// program from the folder (trust.go), or not at all. Nil trusts no
	// folder. It is asked at every start, so trusting a folder takes
	// effect at the next (re)start.
	Trusted func(folder string) bool `json:"-"`
	// AskTrust, when set, is told (in a goroutine of its own) each time a
	// server starts in its safe form, or cannot start, in an untrusted
	// folder where its full form would run code from the folder: the
	// editor asks the person once.
	AskTrust func(TrustRequest) `json:"-"`
	// Sandbox confines every server program (and the probes run to start
	// one); nil starts them unconfined, with the allow-listed environment.
	Sandbox *sandbox.Sandbox `json:"-"`
}

// TrustRequest says which server would run code from an untrusted
// workspace folder, and what that code is.
type TrustRequest struct {
	// Folder is the workspace folder to trust.
	Folder string
	// Server is the server's name ("typescript-language-server").
	Server string
	// Code says what the full form would run from the folder, as a
	// phrase: "this repository's TypeScript (node_modules/typescript)".
	Code string
	// Started reports whether the server runs meanwhile in its safe form;
	// false means it does not run until the folder is trusted.
	Started bool
	// Meanwhile says what happens until the folder is trusted, as a
	// sentence for the person.
	Meanwhile string
}

// installHint says how to install a well-known server program.
func installHint(program string) string {
	switch filepath.Base(program) {
	case "gopls":
		return "go install golang.org/x/tools/gopls@latest"
	case "pyright-langserver", "pyright":
		return "npm i -g pyright"
	case "typescript-language-server":
		return "npm i -g typescript-language-server typescript"
	case "clangd":
		return "apt-get install clangd"
	case "rust-analyzer":
		return "rustup component add rust-analyzer"
	}
	return ""
}

// resolveServers merges the user's entries over the built-ins and drops
// the disabled ones, in a fixed order: the user's own servers first (by
// name), then the built-ins (by name). user reports whether the entry came
// from the config (it is then used even when auto_lsp is off).
func resolveServers(cfg Config) []serverEntry {
	auto := cfg.AutoLSP == nil || *cfg.AutoLSP
	builtins := config.BuiltinServers()
	var out []serverEntry
	for name, sc := range cfg.Servers {
		sc.Name = name
		b, known := builtins[name]
		if known {
			sc = config.MergeServer(b, sc)
		}
		if sc.Disabled || len(sc.Command) == 0 {
			continue
		}
		out = append(out, serverEntry{cfg: sc, user: true, builtin: known})
	}
	if auto {
		for name, b := range builtins {
			if _, set := cfg.Servers[name]; set {
				continue
			}
			out = append(out, serverEntry{cfg: b, builtin: true})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].user != out[j].user {
			return out[i].user
		}
		return out[i].cfg.Name < out[j].cfg.Name
	})
	return out
}

// serverEntry is one usable server configuration.
type serverEntry struct {
	cfg     config.ServerConfig
	user    bool // from the user's config
	builtin bool // a known server (maybe with user overrides)
}

// handles reports whether a server with these filetypes serves path.
func handles(filetypes []string, path string) bool {
	if len(filetypes) == 0 {
		return true
	}
	base := strings.ToLower(filepath.Base(path))
	lang := languageID(path)
	for _, ft := range filetypes {
		ft = strings.ToLower(strings.TrimPrefix(ft, "."))
		if ft == "" {
			continue
		}
		if base == ft || strings.HasSuffix(base, "."+ft) || lang == ft {
			return true
		}
	}
	return false
}

// languageID is the LSP language identifier for a file, from its name.
func languageID(path string) string {
	base := strings.ToLower(filepath.Base(path))
	switch base {
	case "go.mod":
		return "go.mod"
	case "go.sum":
		return "go.sum"
	case "go.work":
		return "go.work"
	case "makefile", "gnumakefile":
		return "makefile"
	case "dockerfile":
		return "dockerfile"
	}
	ext := strings.TrimPrefix(filepath.Ext(base), ".")
	switch ext {
	case "go":
		return "go"
	case "py", "pyi":
		return "python"
	case "ts", "mts", "cts":
		return "typescript"
	case "tsx":
		return "typescriptreact"
	case "js", "mjs", "cjs":
		return "javascript"
	case "jsx":
		return "javascriptreact"
	case "c", "h":
		return "c"
	case "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++":
		return "cpp"
	case "m":
		return "objective-c"
	case "mm":
		return "objective-cpp"
	case "rs":
		return "rust"
	case "java":
		return "java"
	case "rb":
		return "ruby"
	case "sh", "bash":
		return "shellscript"
	case "md":
		return "markdown"
	case "yml", "yaml":
		return "yaml"
	case "json":
		return "json"
	case "lua":
		return "lua"
	case "zig":
		return "zig"
	}
	return ext
}
