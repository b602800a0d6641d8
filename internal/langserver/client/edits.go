package client

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Lines indexes a text by the positions every Client method takes and
// returns: 1-based lines and code-point columns, with the line breaks LSP
// counts (\n, \r\n, \r).
type Lines struct{ t *text }

// NewLines indexes s.
func NewLines(s string) Lines { return Lines{newText(s)} }

// Count is the number of lines (text ending in a line break has an empty
// last line).
func (l Lines) Count() int { return l.t.lineCount() }

// Start is the byte offset where line n (1-based) starts.
func (l Lines) Start(n int) int {
	l.t.index()
	return l.t.lines[n-1]
}

// Line is line n (1-based) without its break.
func (l Lines) Line(n int) string { return l.t.line(n - 1) }

// Offset is the byte offset of (line, col); col may be one past the end
// of the line.
func (l Lines) Offset(line, col int) (int, error) {
	if n := l.Count(); line < 1 || line > n {
		return 0, fmt.Errorf("line %d is outside the file (%d lines)", line, n)
	}
	s := l.Line(line)
	b := 0
	for n := 1; n < col; n++ {
		if b >= len(s) {
			return 0, fmt.Errorf("column %d is past the end of line %d", col, line)
		}
		_, size := utf8.DecodeRuneInString(s[b:])
		b += size
	}
	return l.Start(line) + b, nil
}

// ApplyEdits applies a server's text edits (their 1-based code-point
// positions, not Raw) to text after checking them: in range, and no two
// overlapping (identical duplicates count once; insertions at the same
// place keep their order). oldName, when set, is what every replaced
// range should hold; allOld reports whether all did. Nothing is applied
// when an edit is refused; the error says which.
func ApplyEdits(text string, edits []TextEdit, oldName string) (out string, allOld bool, err error) {
	idx := NewLines(text)
	type span struct {
		from, to int
		text     string
		pos      string
	}
	spans := make([]span, 0, len(edits))
	allOld = true
	for _, e := range edits {
		from, err := idx.Offset(e.Line, e.Column)
		if err != nil {
			return "", false, fmt.Errorf("edit at %d:%d: %w", e.Line, e.Column, err)
		}
		to, err := idx.Offset(e.EndLine, e.EndColumn)
		if err != nil {
			return "", false, fmt.Errorf("edit at %d:%d-%d:%d: %w", e.Line, e.Column, e.EndLine, e.EndColumn, err)
		}
		if to < from {
			return "", false, fmt.Errorf("edit at %d:%d ends before it starts (%d:%d)", e.Line, e.Column, e.EndLine, e.EndColumn)
		}
		if from < to && oldName != "" && text[from:to] != oldName {
			allOld = false
		}
		spans = append(spans, span{from, to, e.NewText, fmt.Sprintf("%d:%d-%d:%d", e.Line, e.Column, e.EndLine, e.EndColumn)})
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].from != spans[j].from {
			return spans[i].from < spans[j].from
		}
		return spans[i].to < spans[j].to
	})
	dedup := spans[:0]
	for _, s := range spans {
		if n := len(dedup); n > 0 && dedup[n-1] == s {
			continue
		}
		dedup = append(dedup, s)
	}
	var b strings.Builder
	pos := 0
	for i, s := range dedup {
		if i > 0 {
			p := dedup[i-1]
			if s.from < p.to {
				return "", false, fmt.Errorf("the server's edits overlap (%s and %s); nothing was changed", p.pos, s.pos)
			}
		}
		b.WriteString(text[pos:s.from])
		b.WriteString(s.text)
		pos = s.to
	}
	b.WriteString(text[pos:])
	return b.String(), allOld, nil
}

// EditedText applies the text edits we holds for path to current, the
// file's text now, after checking that the server computed them on that
// text: a versioned edit (Rename checked the version is the last one sent)
// must be for exactly the text the server was given; an unversioned one
// must replace only oldName, or have been computed on this very text.
// Errors: the edits' own (out of range, overlapping), or one matching
// ErrStale, after which the caller should ask the server again.
func (s *Servers) EditedText(we WorkspaceEdit, path, current, oldName string) (string, error) {
	out, allOld, err := ApplyEdits(current, we.Changes[path], oldName)
	if err != nil {
		return "", err
	}
	served, ok := s.Served(path)
	_, versioned := we.Versions[path]
	switch {
	case versioned && ok && served == current:
	case versioned && ok:
		return "", kindErrorf(ErrStale, "%s changed since the server computed its edits (it was given other text); ask the server again", path)
	case allOld, ok && served == current:
	default:
		return "", kindErrorf(ErrStale, "%s changed since the server computed its edits (they replace text other than %q); ask the server again", path, oldName)
	}
	return out, nil
}
