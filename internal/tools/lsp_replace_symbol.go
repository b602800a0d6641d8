package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_replace_symbol.md
var lspReplaceSymbolDescription string

type lspReplaceSymbolInput struct {
	FilePath string `json:"file_path" jsonschema:"File holding the symbol: relative to the first workspace folder, or absolute."`
	Symbol   string `json:"symbol" jsonschema:"The symbol's name as in the file's outline, e.g. Parse, Server.Start, Greeter.greet."`
	NewText  string `json:"new_text,omitempty" jsonschema:"The new declaration (replace) or the lines to add (insert_before, insert_after); ignored by delete."`
	Mode     string `json:"mode,omitempty" schema:"enum=replace|insert_before|insert_after|delete" jsonschema:"Default replace."`
}

var lspReplaceSymbolSchema = schemaFor[lspReplaceSymbolInput]()

// LSPReplaceSymbolTool replaces, deletes or adds next to a declaration
// found through the language server's outline of the file.
type LSPReplaceSymbolTool struct {
	env   *LSPEnv
	cache lspCache
}

// NewLSPReplaceSymbolTool returns lsp_replace_symbol over env.
func NewLSPReplaceSymbolTool(env *LSPEnv) *LSPReplaceSymbolTool {
	return &LSPReplaceSymbolTool{env: env}
}

// Spec describes lsp_replace_symbol: capability lsp.replace_symbol, action
// write.
func (t *LSPReplaceSymbolTool) Spec() Spec {
	return Spec{Name: "lsp_replace_symbol", Description: lspReplaceSymbolDescription, Schema: lspReplaceSymbolSchema().JSON,
		Capability: "lsp.replace_symbol", Action: permission.ActionWrite}
}

func (t *LSPReplaceSymbolTool) plan(ctx context.Context, call Call) (p plan, verb, blocked string, err error) {
	const tool = "lsp_replace_symbol"
	var in lspReplaceSymbolInput
	if err := lspReplaceSymbolSchema().decode(call, tool, &in); err != nil {
		return p, "", "", err
	}
	switch in.Mode {
	case "":
		in.Mode = "replace"
	case "replace", "insert_before", "insert_after", "delete":
	default:
		return p, "", "", fmt.Errorf("%s: mode %q: use replace, insert_before, insert_after or delete", tool, in.Mode)
	}
	if strings.TrimSpace(in.Symbol) == "" {
		return p, "", "", fmt.Errorf("%s: symbol is required: the name of the declaration, as lsp_symbols lists it", tool)
	}
	if in.Mode != "delete" && strings.TrimSpace(in.NewText) == "" {
		return p, "", "", fmt.Errorf("%s: new_text is required for mode %s (use mode delete to remove the declaration)", tool, in.Mode)
	}
	abs, blocked, err := t.env.ws.writeTarget(in.FilePath)
	if err != nil || blocked != "" {
		return plan{abs: abs}, "", blocked, errWith(tool, err)
	}
	cands, err := t.env.findInFile(ctx, abs, in.Symbol)
	if err != nil {
		return p, "", "", errWith(tool, err)
	}
	if len(cands) > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d symbols in %s match %q; nothing was changed. Use a qualified name (Type.Method) to pick one:\n", tool, len(cands), in.FilePath, in.Symbol)
		for _, c := range cands {
			l := c.sym.SelectionRange
			fmt.Fprintf(&b, "%d:%d %s %s (lines %d-%d)\n", l.Line, l.Column, c.sym.Kind, c.shown(), c.sym.Range.Line, c.sym.Range.EndLine)
		}
		return p, "", "", fmt.Errorf("%s", strings.TrimRight(b.String(), "\n"))
	}
	sym := cands[0]
	name := sym.shown()
	p, err = t.env.ws.planChange(call.SessionID, abs, false, func(text string, exists bool) (string, string, error) {
		if !exists {
			return "", "", fmt.Errorf("%s does not exist", in.FilePath)
		}
		// The range is the server's, for the text it was given.
		if served, ok := t.env.servers.Served(abs); !ok || served != text {
			return "", "", fmt.Errorf("%s changed while its outline was computed; nothing was changed: run %s again", in.FilePath, tool)
		}
		out, err := replaceSymbolText(text, sym.sym.Range, in.Mode, in.NewText, filepath.Ext(abs))
		return out, "", err
	})
	if err != nil {
		return p, "", "", errWith(tool, err)
	}
	switch in.Mode {
	case "replace":
		verb = "replace " + name + " in"
	case "insert_before":
		verb = "insert before " + name + " in"
	case "insert_after":
		verb = "insert after " + name + " in"
	case "delete":
		verb = "delete " + name + " from"
	}
	return p, verb, "", nil
}

// Describe computes the change so the ask shows it with its diff.
func (t *LSPReplaceSymbolTool) Describe(ctx context.Context, call Call) (permission.Request, error) {
	p, verb, blocked, err := t.plan(ctx, call)
	req, err := describeChange(p, blocked, err)("lsp_replace_symbol", "lsp.replace_symbol", verb)
	if err == nil && blocked == "" {
		t.cache.put(call, []plan{p}, verb)
	}
	return req, err
}

// Run applies the change that was shown (or computes it, without a
// Describe), refusing it when the file changed in between.
func (t *LSPReplaceSymbolTool) Run(ctx context.Context, call Call) (Result, error) {
	if c, ok := t.cache.take(call); ok {
		if err := t.env.ws.stillCurrent(c.plans, "lsp_replace_symbol"); err != nil {
			return Errorf("%v", err), nil
		}
		return t.env.ws.commit(ctx, call, "lsp_replace_symbol", c.plans[0])
	}
	p, _, blocked, err := t.plan(ctx, call)
	if blocked != "" {
		return Errorf("%s", blocked), nil
	}
	if err != nil {
		return Errorf("%v", err), nil
	}
	return t.env.ws.commit(ctx, call, "lsp_replace_symbol", p)
}

// replaceSymbolText applies a mode to the declaration at r in text.
func replaceSymbolText(text string, r client.Location, mode, newText, ext string) (string, error) {
	idx := client.NewLines(text)
	start, err := idx.Offset(r.Line, r.Column)
	if err != nil {
		return "", fmt.Errorf("the symbol's range: %w", err)
	}
	end, err := idx.Offset(r.EndLine, r.EndColumn)
	if err != nil {
		return "", fmt.Errorf("the symbol's range: %w", err)
	}
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
		newText = strings.ReplaceAll(strings.ReplaceAll(newText, "\r\n", "\n"), "\n", "\r\n")
	}
	first, last := r.Line, r.EndLine
	if r.EndColumn == 1 && last > first {
		last-- // the range ends at the start of the next line
		end = idx.Start(last) + len(idx.Line(last))
	}
	lineStart := idx.Start
	nextLine := func(n int) int {
		if n < idx.Count() {
			return idx.Start(n + 1)
		}
		return len(text)
	}
	blank := func(n int) bool { return n >= 1 && n <= idx.Count() && strings.TrimSpace(idx.Line(n)) == "" }
	// Some servers start a declaration's range after its keywords (gopls:
	// "type Greeter struct" at Greeter): it starts at the line's first
	// character when only words precede it.
	if pre := text[lineStart(first):start]; strings.TrimSpace(pre) != "" && leadingWords(pre) {
		start = lineStart(first) + len(pre) - len(strings.TrimLeft(pre, " \t"))
	}
	ownsLines := strings.TrimSpace(text[lineStart(first):start]) == "" && strings.TrimSpace(text[end:nextLine(last)]) == ""
	// The doc comment (and decorators) directly above.
	block := first
	if ownsLines {
		for block > 1 && isLeadingLine(idx.Line(block-1), ext) {
			block--
		}
	}
	body := strings.TrimRight(newText, "\r\n")
	switch mode {
	case "replace":
		from := start
		if trimmed := strings.TrimLeft(body, " \t"); block < first && isLeadingLine(firstLine(trimmed), ext) {
			l := idx.Line(block)
			from = lineStart(block) + len(l) - len(strings.TrimLeft(l, " \t"))
		}
		return text[:from] + strings.TrimLeft(body, " \t") + text[end:], nil
	case "insert_before":
		at := lineStart(block)
		if !ownsLines {
			at = start
			return text[:at] + body + " " + text[at:], nil
		}
		sep := ""
		if blank(block - 1) {
			sep = nl
		}
		return text[:at] + body + nl + sep + text[at:], nil
	case "insert_after":
		if !ownsLines {
			return text[:end] + " " + body + text[end:], nil
		}
		at := nextLine(last)
		prefix := ""
		if at == len(text) && !strings.HasSuffix(text, "\n") && !strings.HasSuffix(text, "\r") {
			prefix = nl
		}
		sep := ""
		if at == len(text) || blank(last+1) {
			sep = nl
		}
		return text[:at] + prefix + sep + body + nl + text[at:], nil
	case "delete":
		if !ownsLines {
			return text[:start] + text[end:], nil
		}
		from, to := lineStart(block), nextLine(last)
		// Keep one blank line between the neighbours, not two.
		if blank(last+1) && (block == 1 || blank(block-1)) {
			to = nextLine(last + 1)
		}
		return text[:from] + text[to:], nil
	}
	return "", fmt.Errorf("unknown mode %q", mode)
}

// leadingWords reports text made only of identifiers and blanks ending in
// a blank, like "type " or "export default ".
func leadingWords(s string) bool {
	if !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\t") {
		return false
	}
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// isLeadingLine reports a comment or decorator line that belongs to the
// declaration below it.
func isLeadingLine(line, ext string) bool {
	l := strings.TrimSpace(line)
	if l == "" {
		return false
	}
	switch strings.ToLower(ext) {
	case ".py", ".pyi", ".rb", ".sh":
		return strings.HasPrefix(l, "#") || strings.HasPrefix(l, "@")
	case ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".m", ".mm":
		return strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") || l == "*/" || strings.HasPrefix(l, "#[")
	}
	return strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") || strings.HasPrefix(l, "@")
}
