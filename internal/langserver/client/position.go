package client

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// encoding is the unit a server counts columns in.
type encoding int

const (
	encUTF16 encoding = iota // LSP's default
	encUTF8
	encUTF32
)

// parseEncoding reads a server's positionEncoding (or clangd's
// offsetEncoding); anything unknown means the default, UTF-16.
func parseEncoding(s string) encoding {
	switch s {
	case "utf-8":
		return encUTF8
	case "utf-32":
		return encUTF32
	}
	return encUTF16
}

func (e encoding) String() string {
	switch e {
	case encUTF8:
		return "utf-8"
	case encUTF32:
		return "utf-32"
	}
	return "utf-16"
}

// text is an immutable snapshot of a document's text with a lazily built
// line index. Positions are converted against the snapshot the server was
// sent, never against whatever is on disk or in the editor now.
type text struct {
	s     string
	once  sync.Once
	lines []int // byte offset where each line starts
	ascii bool
}

func newText(s string) *text { return &text{s: s} }

func (t *text) index() {
	t.once.Do(func() {
		t.ascii = true
		t.lines = append(make([]int, 0, 64), 0)
		s := t.s
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\n':
				t.lines = append(t.lines, i+1)
			case c == '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++
				}
				t.lines = append(t.lines, i+1)
			case c >= utf8.RuneSelf:
				t.ascii = false
			}
		}
	})
}

// lineCount is the number of lines as LSP counts them (text ending in a
// line break has an empty last line).
func (t *text) lineCount() int {
	t.index()
	return len(t.lines)
}

// line returns the content of line i (0-based) without its terminator.
func (t *text) line(i int) string {
	t.index()
	start := t.lines[i]
	end := len(t.s)
	if i+1 < len(t.lines) {
		end = t.lines[i+1]
	}
	l := t.s[start:end]
	switch {
	case len(l) >= 2 && l[len(l)-2] == '\r' && l[len(l)-1] == '\n':
		return l[:len(l)-2]
	case len(l) >= 1 && (l[len(l)-1] == '\n' || l[len(l)-1] == '\r'):
		return l[:len(l)-1]
	}
	return l
}

// toServer converts a 1-based line and code-point column to the server's
// 0-based position. The column may be one past the last character (the
// end of the line).
func (t *text) toServer(enc encoding, line, col int) (position, error) {
	if line < 1 || col < 1 {
		return position{}, fmt.Errorf("line %d, column %d: lines and columns are 1-based", line, col)
	}
	if n := t.lineCount(); line > n {
		return position{}, fmt.Errorf("line %d is past the end of the file (%d lines)", line, n)
	}
	l := t.line(line - 1)
	if t.ascii {
		if col-1 > len(l) {
			return position{}, fmt.Errorf("column %d is past the end of line %d (%d characters)", col, line, len(l))
		}
		return position{Line: uint32(line - 1), Character: uint32(col - 1)}, nil
	}
	// Byte offset of the code point col-1.
	b, cps := 0, 0
	for b < len(l) && cps < col-1 {
		_, size := utf8.DecodeRuneInString(l[b:])
		b += size
		cps++
	}
	if cps < col-1 {
		return position{}, fmt.Errorf("column %d is past the end of line %d (%d characters)", col, line, cps)
	}
	return position{Line: uint32(line - 1), Character: uint32(unitsOf(enc, l[:b]))}, nil
}

// fromServer converts a server position to a 1-based line and code-point
// column. Positions past the end clamp to it, as LSP says; a column in
// the middle of a character rounds down to its start.
func (t *text) fromServer(enc encoding, p position) (line, col int) {
	n := t.lineCount()
	if int(p.Line) >= n {
		last := t.line(n - 1)
		return n, utf8.RuneCountInString(last) + 1
	}
	l := t.line(int(p.Line))
	if t.ascii {
		return int(p.Line) + 1, min(int(p.Character), len(l)) + 1
	}
	return int(p.Line) + 1, codePoints(enc, l, int(p.Character)) + 1
}

// unitsOf is the length of s in the server's units.
func unitsOf(enc encoding, s string) int {
	switch enc {
	case encUTF8:
		return len(s)
	case encUTF32:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// codePoints returns how many code points of line s lie before the
// server column c, clamped to the line.
func codePoints(enc encoding, s string, c int) int {
	if enc == encUTF32 {
		return min(c, utf8.RuneCountInString(s))
	}
	units, cps := 0, 0
	for b := 0; b < len(s); {
		r, size := utf8.DecodeRuneInString(s[b:])
		n := size // UTF-8: bytes (an invalid byte counts as one)
		if enc == encUTF16 {
			n = 1
			if r >= 0x10000 {
				n = 2
			}
		}
		if units+n > c {
			break
		}
		units += n
		cps++
		b += size
	}
	return cps
}
