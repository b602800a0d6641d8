package tools

// Symbol search for the lsp_* tools: a name looked up in a file's outline
// or in every server's workspace symbols, exact matches first, then
// ignoring case; several candidates are listed, never guessed.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/langserver/client"
)

// symCandidate is a symbol with its enclosing symbols' names.
type symCandidate struct {
	sym     client.Symbol
	parents []string
}

// shown is the candidate as the server names it: "Greet (in Greeter)" for
// a workspace symbol, "Greeter.Greet" for one from a file's outline.
func (c symCandidate) shown() string {
	if c.sym.Container != "" {
		return c.sym.Name + " (in " + c.sym.Container + ")"
	}
	return strings.Join(append(slices.Clip(c.parents), c.sym.Name), ".")
}

// segments are the container names then the name, with receiver
// decorations ("(*T).M") and separators ("::", ".") normalized.
func (c symCandidate) segments() []string {
	var out []string
	for _, p := range c.parents {
		out = append(out, nameSegments(p)...)
	}
	if c.sym.Container != "" {
		out = append(out, nameSegments(c.sym.Container)...)
	}
	return append(out, nameSegments(c.sym.Name)...)
}

// nameSegments splits a (possibly qualified) name: "(*Greeter).Greet",
// "Greeter.Greet", "ns::Greeter::greet", "example.com/pkg.F" → its parts.
func nameSegments(s string) []string {
	s = strings.NewReplacer("(", "", ")", "", "*", "", "&", "", "::", ".", "#", ".", "/", ".").Replace(strings.TrimSpace(s))
	var out []string
	for _, p := range strings.Split(s, ".") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// matchSymbol reports whether the candidate's segments end with the
// query's.
func matchSymbol(c symCandidate, query []string, fold bool) bool {
	segs := c.segments()
	if len(query) == 0 || len(segs) < len(query) {
		return false
	}
	tail := segs[len(segs)-len(query):]
	for i := range query {
		if tail[i] != query[i] && !(fold && strings.EqualFold(tail[i], query[i])) {
			return false
		}
	}
	return true
}

// flatten lists a document's symbol tree with each symbol's parents.
func flatten(syms []client.Symbol, parents []string, out *[]symCandidate) {
	for _, s := range syms {
		*out = append(*out, symCandidate{sym: s, parents: parents})
		if len(s.Children) > 0 {
			flatten(s.Children, append(slices.Clip(parents), s.Name), out)
		}
	}
}

// pick returns the candidates matching query: exact first, then ignoring
// case; duplicates (same place) once.
func pick(all []symCandidate, query string) []symCandidate {
	q := nameSegments(query)
	for _, fold := range []bool{false, true} {
		var out []symCandidate
		seen := map[client.Location]bool{}
		for _, c := range all {
			key := c.sym.SelectionRange
			key.EndLine, key.EndColumn = 0, 0
			if matchSymbol(c, q, fold) && !seen[key] {
				seen[key] = true
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// findInFile looks the symbol up in the file's outline.
func (e *LSPEnv) findInFile(ctx context.Context, abs, symbol string) ([]symCandidate, error) {
	c, err := e.clientFor(ctx, abs)
	if err != nil {
		return nil, err
	}
	syms, err := c.DocumentSymbols(ctx, abs)
	if err != nil {
		return nil, err
	}
	var all []symCandidate
	flatten(syms, nil, &all)
	if got := pick(all, symbol); len(got) > 0 {
		return got, nil
	}
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	if len(names) > 40 {
		names = append(names[:40], "…")
	}
	return nil, fmt.Errorf("no symbol named %q in %s (its outline: %s). Local variables are not in the outline: give line and column instead", symbol, display(e.ws, abs), strings.Join(names, ", "))
}

// findInWorkspace asks every server of the workspace for the name.
func (e *LSPEnv) findInWorkspace(ctx context.Context, symbol string) ([]symCandidate, error) {
	segs := nameSegments(symbol)
	if len(segs) == 0 {
		return nil, fmt.Errorf("symbol %q has no name in it", symbol)
	}
	syms, names, err := e.workspaceSymbols(ctx, segs[len(segs)-1])
	if err != nil {
		return nil, err
	}
	all := make([]symCandidate, 0, len(syms))
	for _, s := range syms {
		all = append(all, symCandidate{sym: s})
	}
	if got := pick(all, symbol); len(got) > 0 {
		return got, nil
	}
	var similar []string
	for i, s := range syms {
		if i == 10 {
			break
		}
		similar = append(similar, symCandidate{sym: s}.shown())
	}
	msg := fmt.Sprintf("no symbol named %q in the workspace (asked %s)", symbol, strings.Join(names, ", "))
	if len(similar) > 0 {
		msg += "; similar: " + strings.Join(similar, ", ")
	}
	return nil, errors.New(msg + ". Give file_path (and line and column) instead")
}

// workspaceSymbols queries every server, keeping results inside the
// roots. names are the servers asked.
func (e *LSPEnv) workspaceSymbols(ctx context.Context, query string) ([]client.Symbol, []string, error) {
	clients, err := e.discoverClients(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(clients) == 0 {
		return nil, nil, errors.New("no language server is running for this workspace and none handles its files; give file_path to use the server for that file's type, or configure one under `lsp` in the config")
	}
	var out []client.Symbol
	var names []string
	var errs []error
	for _, c := range clients {
		syms, err := c.WorkspaceSymbols(ctx, query)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names = append(names, c.Name())
		for _, s := range syms {
			if s.Range.Path != "" && filepath.IsAbs(s.Range.Path) && e.ws.Inside(s.Range.Path) {
				out = append(out, s)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil, errors.Join(errs...)
	}
	return out, names, nil
}

// refine moves a workspace symbol's position onto its name: servers give
// the whole declaration's range for workspace symbols.
func (e *LSPEnv) refine(ctx context.Context, c symCandidate) symCandidate {
	loc := c.sym.Range
	if loc.Line == 0 {
		return c
	}
	if cl, err := e.clientFor(ctx, loc.Path); err == nil {
		if syms, err := cl.DocumentSymbols(ctx, loc.Path); err == nil {
			var all []symCandidate
			flatten(syms, nil, &all)
			name := nameSegments(c.sym.Name)
			for _, d := range all {
				ds := nameSegments(d.sym.Name)
				if len(name) == 0 || len(ds) == 0 || ds[len(ds)-1] != name[len(name)-1] {
					continue
				}
				if locContains(d.sym.Range, loc) || locContains(loc, d.sym.SelectionRange) {
					out := c
					out.sym.SelectionRange = d.sym.SelectionRange
					return out
				}
			}
		}
	}
	// No outline entry: the first occurrence of the name in the range.
	if segs := nameSegments(c.sym.Name); len(segs) > 0 {
		if l, col, ok := e.findWord(loc, segs[len(segs)-1]); ok {
			c.sym.SelectionRange = client.Location{Path: loc.Path, Line: l, Column: col, EndLine: l, EndColumn: col + utf8.RuneCountInString(segs[len(segs)-1])}
		}
	}
	return c
}

func locContains(outer, inner client.Location) bool {
	if outer.Path != inner.Path {
		return false
	}
	startOK := outer.Line < inner.Line || outer.Line == inner.Line && outer.Column <= inner.Column
	endOK := outer.EndLine > inner.EndLine || outer.EndLine == inner.EndLine && outer.EndColumn >= inner.EndColumn
	return startOK && endOK
}

// findWord finds name as a whole word from loc's start to its end line.
func (e *LSPEnv) findWord(loc client.Location, name string) (int, int, bool) {
	f, err := e.ws.ReadFile(loc.Path)
	if err != nil {
		return 0, 0, false
	}
	lines := splitLines(f.Text)
	for l := loc.Line; l <= max(loc.EndLine, loc.Line) && l <= len(lines); l++ {
		from := 1
		if l == loc.Line {
			from = loc.Column
		}
		if col, ok := wordColumn(lines[l-1], name, from); ok {
			return l, col, true
		}
	}
	return 0, 0, false
}
