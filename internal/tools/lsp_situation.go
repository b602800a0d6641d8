package tools

import (
	"context"
	"strings"
)

// What the lsp_* tools' descriptions say of this workspace (Situated):
// the languages of its files they work for, with the server of each, from
// the coverage the environment block reads too (LSPEnv.Coverage), so the
// two never disagree. Nothing starts to find it out.

// situation is the paragraph an lsp_* tool's description ends with: ""
// when the workspace holds no source file (the tools are described as
// they are), else the languages they work for, or that they work for
// none.
func (e *LSPEnv) situation(ctx context.Context) string {
	cov := e.Coverage(ctx)
	if len(cov) == 0 {
		return ""
	}
	var works, not []string
	for _, c := range cov {
		if c.Works {
			works = append(works, languageName(c.Language)+" ("+c.Server+")")
		} else {
			not = append(not, languageName(c.Language))
		}
	}
	switch {
	case len(works) == 0:
		return "Does not work here: no language server answers for this workspace's languages (" + strings.Join(not, ", ") + "). Use grep, glob and view instead."
	case len(not) == 0:
		return "Works here for: " + strings.Join(works, ", ") + ". Other files: no language server."
	}
	return "Works here for: " + strings.Join(works, ", ") + ". Other files, " + strings.Join(not, ", ") + " among them: no language server here."
}

// languageName is a language identifier as people write the language.
func languageName(id string) string {
	if n, ok := languageNames[id]; ok {
		return n
	}
	return id
}

var languageNames = map[string]string{
	"go": "Go", "python": "Python", "typescript": "TypeScript", "typescriptreact": "TypeScript (TSX)",
	"javascript": "JavaScript", "javascriptreact": "JavaScript (JSX)", "c": "C", "cpp": "C++",
	"objective-c": "Objective-C", "objective-cpp": "Objective-C++", "rust": "Rust", "java": "Java",
	"ruby": "Ruby", "lua": "Lua", "zig": "Zig", "shellscript": "shell scripts",
}

// Situation names the languages lsp_diagnostics works for here.
func (t *LSPDiagnosticsTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }

// Situation names the languages lsp_references works for here.
func (t *LSPReferencesTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }

// Situation names the languages lsp_definition works for here.
func (t *LSPDefinitionTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }

// Situation names the languages lsp_symbols works for here.
func (t *LSPSymbolsTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }

// Situation names the languages lsp_call_hierarchy works for here.
func (t *LSPCallHierarchyTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }

// Situation names the languages lsp_rename works for here.
func (t *LSPRenameTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }

// Situation names the languages lsp_replace_symbol works for here.
func (t *LSPReplaceSymbolTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }

// Situation names the languages lsp_restart works for here.
func (t *LSPRestartTool) Situation(ctx context.Context) string { return t.env.situation(ctx) }
