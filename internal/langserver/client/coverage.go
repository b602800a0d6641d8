package client

import (
	"context"
	"sort"

	"github.com/agentls/agentls/internal/proc"
)

// LanguageServer is one language of the workspace's files and the server
// that would answer for it, as the configuration stands: what the model
// is told about where its lsp_* tools work.
type LanguageServer struct {
	// Language is the LSP language identifier ("go", "python").
	Language string
	// Server is the configured server that would answer: the first (in
	// configuration order) whose program is found, else the first that
	// handles the language; "" when none does.
	Server string
	// Program is that server's program as configured.
	Program string
	// Installed: the program is found on PATH, as a start looks it up.
	Installed bool
	// TrustedOnly: the server starts only in a trusted folder (agentls
	// knows no safe form of it and its entry does not say run_untrusted).
	TrustedOnly bool
	// Works: the server would start for every workspace folder — it is
	// installed, and it needs no trust or every folder is trusted
	// (Config.Trusted) — so the lsp_* tools work for the language.
	Works bool
}

// Coverage lists the languages of the workspace's files (the folders
// walked as Discover walks them, once per set of folders) with the server
// that would answer for each, in language order. It starts nothing and
// runs nothing: a program is only looked up on PATH. The languages are
// those of source code (not a README's markdown) and any the user's own
// entry names among its file types.
func (s *Servers) Coverage(ctx context.Context, walk Walk) []LanguageServer {
	cfg := s.config()
	entries := resolveServers(*cfg)
	allTrusted := cfg.Trusted != nil
	for _, r := range s.ws.Roots() {
		allTrusted = allTrusted && cfg.Trusted(r)
	}
	byLang := map[string]LanguageServer{}
	for _, path := range s.samples(ctx, walk) {
		lang := languageID(path)
		if _, done := byLang[lang]; done || lang == "" {
			continue
		}
		var first, found *serverEntry
		userEntry := false
		for i, e := range entries {
			if !handles(e.cfg.Filetypes, path) {
				continue
			}
			userEntry = userEntry || e.user && len(e.cfg.Filetypes) > 0
			if first == nil {
				first = &entries[i]
			}
			if found == nil {
				if _, err := s.lookPath(proc.ExpandHome(e.cfg.Command[0])); err == nil {
					found = &entries[i]
				}
			}
		}
		if !sourceLanguage(lang) && !userEntry {
			continue
		}
		ls := LanguageServer{Language: lang}
		pick := found
		if pick == nil {
			pick = first
		}
		if pick != nil {
			ls.Server, ls.Program, ls.Installed = pick.cfg.Name, pick.cfg.Command[0], found != nil
			ls.TrustedOnly = !pick.builtin && !pick.cfg.RunUntrusted
			ls.Works = ls.Installed && (!ls.TrustedOnly || allTrusted)
		}
		byLang[lang] = ls
	}
	out := make([]LanguageServer, 0, len(byLang))
	for _, ls := range byLang {
		out = append(out, ls)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Language < out[j].Language })
	return out
}

// sourceLanguage reports whether a language identifier (languageID's) is
// one of source code, which a workspace is worked on through.
func sourceLanguage(lang string) bool {
	switch lang {
	case "go", "python", "typescript", "typescriptreact", "javascript", "javascriptreact", "c", "cpp",
		"objective-c", "objective-cpp", "rust", "java", "ruby", "lua", "zig", "shellscript":
		return true
	}
	return false
}
