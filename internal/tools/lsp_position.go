package tools

// Position lookup for the lsp_* tools: the position part of their inputs
// (a place in a file, or a symbol's name) resolved to a place on a name.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// lspPosInput is the position part of the tools' inputs: a place in a
// file, or a symbol name (optionally within a file).
type lspPosInput struct {
	FilePath string `json:"file_path,omitempty" jsonschema:"File: relative to the first workspace folder, or absolute. Required with line and column; with symbol, narrows the search to that file."`
	Line     int    `json:"line,omitempty" schema:"minimum=1" jsonschema:"1-based line, as view numbers it."`
	Column   int    `json:"column,omitempty" schema:"minimum=1" jsonschema:"1-based column in characters (Unicode code points, a tab counts 1) of the line as view shows it; any character of the name."`
	Symbol   string `json:"symbol,omitempty" jsonschema:"Instead of line and column: the symbol's name, e.g. Parse, Server.Start or Greeter::greet. Several matches are listed, not guessed."`
}

// lspTarget is a resolved position: a place on a name.
type lspTarget struct {
	path      string
	line, col int
	name      string // the symbol's name, for messages
}

// label names the target in results: its name, or "the symbol".
func (t lspTarget) label() string {
	if t.name != "" {
		return t.name
	}
	return "the symbol"
}

// lspWhat names the position input in a permission summary.
func lspWhat(ws *Workspace, in lspPosInput) string {
	switch {
	case in.Line > 0 && in.Column > 0:
		return fmt.Sprintf("%s:%d:%d", in.FilePath, in.Line, in.Column)
	case in.FilePath != "":
		return in.Symbol + " in " + in.FilePath
	}
	return in.Symbol
}

// pathArg resolves an optional file_path for the permission request:
// the file, or the first root when there is none.
func (e *LSPEnv) pathArg(p string) (string, error) {
	return target(e.ws, p, "file_path", true)
}

// validate checks the position input's shape (not the file).
func (in lspPosInput) validate(tool string) error {
	switch {
	case in.Line < 0 || in.Column < 0:
		return fmt.Errorf("%s: line and column are 1-based: the first line is 1, the first column 1", tool)
	case in.Line > 0 && in.FilePath == "":
		return fmt.Errorf("%s: line needs file_path", tool)
	case in.Line > 0 && in.Column == 0 && in.Symbol == "":
		return fmt.Errorf("%s: give column as well as line (1-based, in characters), or symbol instead", tool)
	case in.Column > 0 && in.Line == 0:
		return fmt.Errorf("%s: column needs line", tool)
	case in.Line == 0 && strings.TrimSpace(in.Symbol) == "":
		return fmt.Errorf("%s: give file_path with line and column, or symbol (with or without file_path)", tool)
	}
	return nil
}

// locate resolves the position input to a place on a name.
func (e *LSPEnv) locate(ctx context.Context, in lspPosInput, tool string) (lspTarget, error) {
	if err := in.validate(tool); err != nil {
		return lspTarget{}, err
	}
	var abs string
	if in.FilePath != "" {
		var err error
		if abs, err = e.ws.Abs(in.FilePath); err != nil {
			return lspTarget{}, fmt.Errorf("%s: file_path: %w", tool, err)
		}
		if !e.ws.Inside(abs) {
			return lspTarget{}, fmt.Errorf("%s", outsideMessage(e.ws, abs))
		}
		if _, err := e.ws.statDisk(abs); err != nil && !e.isOpen(abs) {
			return lspTarget{}, fmt.Errorf("%s: %s: %w", tool, in.FilePath, err)
		}
	}
	if in.Line > 0 {
		t := lspTarget{path: abs, line: in.Line, col: in.Column}
		if in.Column == 0 {
			// line and symbol: the name on that line.
			col, err := e.columnOf(abs, in.Line, in.Symbol)
			if err != nil {
				return lspTarget{}, fmt.Errorf("%s: %w", tool, err)
			}
			t.col = col
		}
		t.name = e.identAt(abs, t.line, t.col)
		return t, nil
	}
	var cands []symCandidate
	var err error
	if abs != "" {
		cands, err = e.findInFile(ctx, abs, in.Symbol)
	} else {
		cands, err = e.findInWorkspace(ctx, in.Symbol)
	}
	if err != nil {
		return lspTarget{}, fmt.Errorf("%s: %w", tool, err)
	}
	if len(cands) > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d symbols match %q; call again with file_path, line and column of the one you mean (or a qualified name such as Type.Method):\n", tool, len(cands), in.Symbol)
		for i, c := range cands {
			if i == 30 {
				fmt.Fprintf(&b, "… and %d more\n", len(cands)-i)
				break
			}
			l := c.sym.SelectionRange
			fmt.Fprintf(&b, "%s:%d:%d %s %s\n", display(e.ws, l.Path), l.Line, l.Column, c.sym.Kind, c.shown())
		}
		return lspTarget{}, errors.New(strings.TrimRight(b.String(), "\n"))
	}
	c := cands[0]
	if abs == "" {
		c = e.refine(ctx, c)
	}
	l := c.sym.SelectionRange
	return lspTarget{path: l.Path, line: l.Line, col: l.Column, name: strings.TrimSpace(in.Symbol)}, nil
}

// wordColumn is the 1-based code-point column of the first whole-word
// occurrence of name in line at or after column from.
func wordColumn(line, name string, from int) (int, bool) {
	runes := []rune(line)
	nr := []rune(name)
	for i := max(from-1, 0); i+len(nr) <= len(runes); i++ {
		if string(runes[i:i+len(nr)]) != name {
			continue
		}
		if i > 0 && isIdentRune(runes[i-1]) || i+len(nr) < len(runes) && isIdentRune(runes[i+len(nr)]) {
			continue
		}
		return i + 1, true
	}
	return 0, false
}

// columnOf finds symbol on a line, for input with line and symbol.
func (e *LSPEnv) columnOf(abs string, line int, symbol string) (int, error) {
	f, err := e.ws.ReadFile(abs)
	if err != nil {
		return 0, err
	}
	lines := splitLines(f.Text)
	if line > len(lines) {
		return 0, fmt.Errorf("line %d is past the end of %s (%d lines)", line, display(e.ws, abs), len(lines))
	}
	segs := nameSegments(symbol)
	if len(segs) == 0 {
		return 0, fmt.Errorf("symbol %q has no name in it", symbol)
	}
	col, ok := wordColumn(lines[line-1], segs[len(segs)-1], 1)
	if !ok {
		return 0, fmt.Errorf("%q is not on line %d of %s: %s", segs[len(segs)-1], line, display(e.ws, abs), strings.TrimSpace(cutLine(lines[line-1], 200)))
	}
	return col, nil
}

// identAt is the identifier at a position, for messages ("" if none).
func (e *LSPEnv) identAt(abs string, line, col int) string {
	f, err := e.ws.ReadFile(abs)
	if err != nil {
		return ""
	}
	lines := splitLines(f.Text)
	if line < 1 || line > len(lines) {
		return ""
	}
	runes := []rune(lines[line-1])
	i := col - 1
	if i < 0 || i > len(runes) {
		return ""
	}
	if i == len(runes) || !isIdentRune(runes[i]) {
		if i == 0 || !isIdentRune(runes[i-1]) {
			return ""
		}
		i--
	}
	s, t := i, i
	for s > 0 && isIdentRune(runes[s-1]) {
		s--
	}
	for t < len(runes) && isIdentRune(runes[t]) {
		t++
	}
	return string(runes[s:t])
}

// isIdentRune reports a character of an identifier in the languages the
// servers speak ($ for JavaScript).
func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
