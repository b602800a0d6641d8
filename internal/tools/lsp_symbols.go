package tools

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_symbols.md
var lspSymbolsDescription string

type lspSymbolsInput struct {
	FilePath string `json:"file_path,omitempty" jsonschema:"File whose outline to list: relative to the first workspace folder, or absolute."`
	Query    string `json:"query,omitempty" jsonschema:"Without file_path: symbols of the whole workspace matching this name. With file_path: keep only names containing it."`
}

var lspSymbolsSchema = schemaFor[lspSymbolsInput]()

const (
	lspOutlineLimit   = 400
	lspWorkspaceLimit = 100
)

// LSPSymbolsTool lists a file's outline or searches the workspace's
// symbols.
type LSPSymbolsTool struct{ env *LSPEnv }

// NewLSPSymbolsTool returns lsp_symbols over env.
func NewLSPSymbolsTool(env *LSPEnv) *LSPSymbolsTool { return &LSPSymbolsTool{env: env} }

// Spec describes lsp_symbols: capability lsp.symbols, read-only.
func (t *LSPSymbolsTool) Spec() Spec {
	return readSpec("lsp_symbols", lspSymbolsDescription, lspSymbolsSchema(), "lsp.symbols")
}

func (t *LSPSymbolsTool) parse(call Call) (lspSymbolsInput, string, error) {
	var in lspSymbolsInput
	if err := lspSymbolsSchema().decode(call, "lsp_symbols", &in); err != nil {
		return in, "", err
	}
	if in.FilePath == "" && strings.TrimSpace(in.Query) == "" {
		return in, "", fmt.Errorf("lsp_symbols: give file_path (a file's outline) or query (search the workspace)")
	}
	abs, err := t.env.pathArg(in.FilePath)
	return in, abs, errWith("lsp_symbols", err)
}

// Describe validates the input and names the file (or the first root).
func (t *LSPSymbolsTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	summary := "agentls wants to list the symbols of " + in.FilePath
	if in.FilePath == "" {
		summary = fmt.Sprintf("agentls wants to search the workspace for symbols named %q", in.Query)
	}
	return readRequest(t.Spec(), t.env.ws, abs, summary), nil
}

// Run lists the outline or the workspace matches.
func (t *LSPSymbolsTool) Run(ctx context.Context, call Call) (Result, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if in.FilePath == "" {
		return t.search(ctx, in.Query)
	}
	if !t.env.ws.Inside(abs) {
		return Errorf("%s", outsideMessage(t.env.ws, abs)), nil
	}
	c, err := t.env.clientFor(ctx, abs)
	if err != nil {
		return Errorf("lsp_symbols: %v", err), nil
	}
	syms, err := c.DocumentSymbols(ctx, abs)
	if err != nil {
		return Errorf("lsp_symbols: %v", err), nil
	}
	var b strings.Builder
	n := 0
	var write func(syms []client.Symbol, depth int)
	write = func(syms []client.Symbol, depth int) {
		syms = slices.Clone(syms)
		slices.SortStableFunc(syms, func(a, b client.Symbol) int {
			if a.SelectionRange.Line != b.SelectionRange.Line {
				return a.SelectionRange.Line - b.SelectionRange.Line
			}
			return a.SelectionRange.Column - b.SelectionRange.Column
		})
		for _, s := range syms {
			keep := in.Query == "" || strings.Contains(strings.ToLower(s.Name), strings.ToLower(in.Query))
			if keep {
				if n++; n <= lspOutlineLimit {
					b.WriteString(outlineLine(s, depth))
				}
			}
			d := depth
			if keep {
				d++
			}
			write(s.Children, d)
		}
	}
	write(syms, 0)
	shown := display(t.env.ws, abs)
	switch {
	case n == 0 && in.Query != "":
		return Result{Content: fmt.Sprintf("No symbol in %s has a name containing %q.", shown, in.Query)}, nil
	case n == 0:
		return Result{Content: fmt.Sprintf("%s reports no symbols in %s.", c.Name(), shown)}, nil
	}
	out := fmt.Sprintf("%s in %s (line:column of the name, then the lines it spans):\n%s", countOf(n, "symbol", "symbols"), shown, b.String())
	if n > lspOutlineLimit {
		out += fmt.Sprintf("… %d more not shown: narrow with query.\n", n-lspOutlineLimit)
	}
	return Result{Content: strings.TrimRight(out, "\n")}, nil
}

func outlineLine(s client.Symbol, depth int) string {
	l := s.SelectionRange
	line := fmt.Sprintf("%s%d:%d %s %s", strings.Repeat("  ", depth), l.Line, l.Column, s.Kind, s.Name)
	if d := strings.TrimSpace(strings.ReplaceAll(s.Detail, "\n", " ")); d != "" && len(d) <= 80 {
		line += " " + d
	}
	if r := s.Range; r.EndLine > r.Line {
		line += fmt.Sprintf(" (lines %d-%d)", r.Line, r.EndLine)
	}
	return line + "\n"
}

// search queries every server of the workspace.
func (t *LSPSymbolsTool) search(ctx context.Context, query string) (Result, error) {
	syms, names, err := t.env.workspaceSymbols(ctx, query)
	if err != nil {
		return Errorf("lsp_symbols: %v", err), nil
	}
	if len(syms) == 0 {
		return Result{Content: fmt.Sprintf("No symbol matching %q in the workspace folders (asked %s).", query, strings.Join(names, ", "))}, nil
	}
	// Exact names first, then names starting with the query, then the
	// server's order.
	rank := func(s client.Symbol) int {
		n := strings.ToLower(s.Name)
		q := strings.ToLower(query)
		switch {
		case s.Name == query:
			return 0
		case n == q:
			return 1
		case strings.HasPrefix(n, q):
			return 2
		}
		return 3
	}
	sort.SliceStable(syms, func(i, j int) bool { return rank(syms[i]) < rank(syms[j]) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s matching %q (%s):\n", countOf(len(syms), "symbol", "symbols"), query, strings.Join(names, ", "))
	for i, s := range syms {
		if i == lspWorkspaceLimit {
			fmt.Fprintf(&b, "… %d more not shown: use a longer query.\n", len(syms)-i)
			break
		}
		l := s.Range
		fmt.Fprintf(&b, "%s:%d:%d %s %s", display(t.env.ws, l.Path), l.Line, l.Column, s.Kind, s.Name)
		if s.Container != "" {
			fmt.Fprintf(&b, " (in %s)", s.Container)
		}
		b.WriteByte('\n')
	}
	return Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}
