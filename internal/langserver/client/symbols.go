package client

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Symbol is a declaration: one tree shape whether the server answered
// with hierarchical DocumentSymbols or flat SymbolInformation.
type Symbol struct {
	Name string
	// Kind is the LSP SymbolKind's name: "Function", "Struct", "Method", …
	Kind   string
	Detail string
	// Container is the enclosing symbol's name, when the server gave a
	// flat list (workspace symbols).
	Container string
	// Range covers the whole declaration; SelectionRange its name. A
	// workspace symbol the server gave without a range has Line 0.
	Range          Location
	SelectionRange Location
	Children       []Symbol
}

// kindName names an LSP SymbolKind.
func kindName(k int) string {
	if k < 1 || k > 26 {
		return "Symbol"
	}
	return protocol.SymbolKind(k).String()
}

// DocumentSymbols returns the declarations in path as a tree.
func (c *Client) DocumentSymbols(ctx context.Context, path string) ([]Symbol, error) {
	var out []Symbol
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		if err := s.need(s.caps.DocumentSymbolProvider, "document symbols"); err != nil {
			return err
		}
		var raw []documentSymbol
		if err := s.request(ctx, c.m.timeout, "textDocument/documentSymbol", map[string]any{"textDocument": docID{URI: d.uri}}, &raw); err != nil {
			return err
		}
		cv := s.converter(d)
		if len(raw) > 0 && raw[0].Location != nil {
			out = nest(convertFlat(cv, raw))
			onNames(out, d.text)
			return nil
		}
		out = convertTree(cv, d.uri, raw)
		return nil
	})
	return out, err
}

// WorkspaceSymbols searches the server's whole project for symbols
// matching query (the server decides how: prefix, fuzzy, …).
func (c *Client) WorkspaceSymbols(ctx context.Context, query string) ([]Symbol, error) {
	var out []Symbol
	err := c.do(ctx, "", func(ctx context.Context, s *session, _ docState) error {
		if err := s.need(s.caps.WorkspaceSymbolProvider, "workspace symbols"); err != nil {
			return err
		}
		s.awaitIndex(ctx, "workspace symbols")
		var raw []documentSymbol
		if err := s.request(ctx, c.m.timeout, "workspace/symbol", map[string]any{"query": query}, &raw); err != nil {
			return err
		}
		out = convertFlat(s.converter(), raw)
		return nil
	})
	return out, err
}

// convertTree converts hierarchical DocumentSymbols of the document uri.
func convertTree(cv *converter, uri string, raw []documentSymbol) []Symbol {
	out := make([]Symbol, 0, len(raw))
	for _, ds := range raw {
		sym := Symbol{Name: ds.Name, Kind: kindName(ds.Kind), Detail: ds.Detail}
		if ds.Range != nil {
			sym.Range = cv.loc(uri, *ds.Range)
		}
		sym.SelectionRange = sym.Range
		if ds.SelectionRange != nil {
			sym.SelectionRange = cv.loc(uri, *ds.SelectionRange)
		}
		sym.Children = convertTree(cv, uri, ds.Children)
		out = append(out, sym)
	}
	return out
}

// convertFlat converts SymbolInformation / WorkspaceSymbol entries.
func convertFlat(cv *converter, raw []documentSymbol) []Symbol {
	out := make([]Symbol, 0, len(raw))
	for _, ds := range raw {
		sym := Symbol{Name: ds.Name, Kind: kindName(ds.Kind), Detail: ds.Detail, Container: ds.ContainerName}
		if ds.Location != nil {
			if ds.Location.Range != nil {
				sym.Range = cv.loc(ds.Location.URI, *ds.Location.Range)
			} else {
				sym.Range = Location{Path: uriPath(ds.Location.URI)}
			}
		}
		sym.SelectionRange = sym.Range
		out = append(out, sym)
	}
	return out
}

// nest turns a flat list of one file's symbols into a tree by range
// containment (a method inside its class's range becomes its child).
func nest(flat []Symbol) []Symbol {
	sort.SliceStable(flat, func(i, j int) bool {
		a, b := flat[i].Range, flat[j].Range
		if a.Line != b.Line || a.Column != b.Column {
			return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
		}
		// The wider range first, so it becomes the parent.
		return a.EndLine > b.EndLine || a.EndLine == b.EndLine && a.EndColumn > b.EndColumn
	})
	var roots []Symbol
	// stack holds the chain from a root to the current parent, as
	// pointers into the tree being built. Only the slice of the top
	// element (or roots, when the stack is empty) grows, so the pointers
	// stay valid.
	var stack []*Symbol
	for _, sym := range flat {
		for len(stack) > 0 && !contains(stack[len(stack)-1].Range, sym.Range) {
			stack = stack[:len(stack)-1]
		}
		var added *Symbol
		if len(stack) == 0 {
			roots = append(roots, sym)
			added = &roots[len(roots)-1]
		} else {
			parent := stack[len(stack)-1]
			parent.Children = append(parent.Children, sym)
			added = &parent.Children[len(parent.Children)-1]
		}
		stack = append(stack, added)
	}
	return roots
}

// contains reports whether outer encloses inner (same file).
func contains(outer, inner Location) bool {
	if outer.Path != inner.Path {
		return false
	}
	startOK := outer.Line < inner.Line || outer.Line == inner.Line && outer.Column <= inner.Column
	endOK := outer.EndLine > inner.EndLine || outer.EndLine == inner.EndLine && outer.EndColumn >= inner.EndColumn
	return startOK && endOK
}

// onNames moves the SelectionRange of a flat answer's symbols — which
// SymbolInformation does not have, so it is the whole declaration — onto
// the first whole word of the symbol's name in the declaration, where a
// hierarchical answer puts it: the tools ask for references or calls at
// that position. (A server answers flat when the client does not declare
// hierarchicalDocumentSymbolSupport — under serve --wrap the editor's
// initialize decides.)
func onNames(syms []Symbol, t *text) {
	for i := range syms {
		s := &syms[i]
		name := s.Name
		if j := strings.LastIndexAny(name, ".:"); j >= 0 {
			name = name[j+1:]
		}
		name = strings.Trim(name, "()*& ")
		if l, c, ok := wordIn(t, s.Range, name); ok && name != "" {
			s.SelectionRange = Location{Path: s.Range.Path, Line: l, Column: c, EndLine: l, EndColumn: c + utf8.RuneCountInString(name)}
		}
		onNames(s.Children, t)
	}
}

// wordIn finds word, whole, in t within r: its 1-based line and
// code-point column.
func wordIn(t *text, r Location, word string) (int, int, bool) {
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for l := r.Line; l >= 1 && l <= r.EndLine && l <= t.lineCount(); l++ {
		line := t.line(l - 1)
		col, prev := 1, rune(0)
		for i, ch := range line {
			if (l > r.Line || col >= r.Column) && !isWord(prev) && strings.HasPrefix(line[i:], word) {
				next, _ := utf8.DecodeRuneInString(line[i+len(word):])
				if i+len(word) == len(line) || !isWord(next) {
					return l, col, true
				}
			}
			prev = ch
			col++
		}
	}
	return 0, 0, false
}
