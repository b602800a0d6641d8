package tools

// Finding grep's matching lines in a whole file at once: a substring
// search for the pattern's required literals (bytes.Index for one, an
// Aho-Corasick automaton for several) jumps to the lines that can match,
// and Go's regexp runs on those lines only. A pattern with no literal to
// look for is matched line by line.

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/coregx/ahocorasick"
)

// lineMatcher finds the lines a grep pattern matches. It is safe for
// concurrent use.
type lineMatcher struct {
	re *regexp.Regexp
	// one is the only literal to look for; pure is set when it is the
	// whole pattern, so a line holding it matches without the regexp.
	one  []byte
	pure bool
	// set looks for several literals (case variants, alternatives).
	set *literalSet
	// none is set when no line can match (every literal holds a line
	// break).
	none bool
}

// newLineMatcher compiles expr (Go RE2 syntax, matched against each line
// without its line break) and picks how to find its candidate lines.
func newLineMatcher(expr string) (*lineMatcher, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{re: re}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return m, nil // regexp.Compile parsed it; scan line by line all the same
	}
	tree = tree.Simplify()
	if lit := string(tree.Rune); tree.Op == syntax.OpLiteral && tree.Flags&syntax.FoldCase == 0 && !strings.ContainsAny(lit, "\r\n"+string(utf8.RuneError)) {
		m.one, m.pure = []byte(lit), true
		return m, nil
	}
	req := requiredLiterals(tree)
	if req == nil {
		return m, nil
	}
	switch req = withoutNewline(req); len(req) {
	case 0:
		m.none = true
	case 1:
		m.one = []byte(req[0])
	default:
		if set, err := newLiteralSet(req); err == nil {
			m.set = set
		}
	}
	return m, nil
}

// scan calls fn for each matching line of text in order: its number
// (from 1), its text without the line break, and where the match starts
// in it; it stops when fn returns false. Lines end at \n; trailing \r
// are not part of a line.
func (m *lineMatcher) scan(text []byte, fn func(n int, line []byte, start int) bool) {
	switch {
	case m.none:
	case m.one == nil && m.set == nil:
		m.scanLines(text, fn)
	default:
		m.scanCandidates(text, fn)
	}
}

// scanCandidates looks for the literals and checks only the lines that
// hold one.
func (m *lineMatcher) scanCandidates(text []byte, fn func(n int, line []byte, start int) bool) {
	find := func(from int) int {
		if i := bytes.Index(text[from:], m.one); i >= 0 {
			return from + i
		}
		return -1
	}
	if m.set != nil {
		find = m.set.scanner(text)
	}
	n, counted := 1, 0
	for from := 0; from < len(text); {
		at := find(from)
		if at < 0 {
			return
		}
		begin := from + bytes.LastIndexByte(text[from:at], '\n') + 1
		end := len(text)
		if i := bytes.IndexByte(text[at:], '\n'); i >= 0 {
			end = at + i
		}
		line := bytes.TrimRight(text[begin:end], "\r")
		start := at - begin
		if !m.pure {
			start = -1
			if loc := m.re.FindIndex(line); loc != nil {
				start = loc[0]
			}
		}
		if start >= 0 {
			n += bytes.Count(text[counted:begin], []byte{'\n'})
			counted = begin
			if !fn(n, line, start) {
				return
			}
		}
		from = end + 1
	}
}

// literalSet finds where any of several literals starts: the next
// place one of their first bytes occurs (bytes.IndexByte, remembered per
// byte so no stretch of text is searched twice for it), checked with an
// Aho-Corasick automaton.
type literalSet struct {
	ac    *ahocorasick.Automaton
	first []byte // the literals' first bytes, each once
}

func newLiteralSet(lits []string) (*literalSet, error) {
	ac, err := ahocorasick.NewBuilder().AddStrings(lits).Build()
	if err != nil {
		return nil, err
	}
	set := &literalSet{ac: ac}
	for _, l := range lits {
		if !bytes.Contains(set.first, []byte{l[0]}) {
			set.first = append(set.first, l[0])
		}
	}
	return set, nil
}

// scanner returns a function that finds the first literal starting at or
// after from in text, or -1; from must not decrease between calls.
func (s *literalSet) scanner(text []byte) func(from int) int {
	next := make([]int, len(s.first))
	for i := range next {
		next[i] = -2 // not looked for yet
	}
	return func(from int) int {
		for {
			at := -1
			for i, b := range s.first {
				if next[i] != -1 && next[i] < from {
					next[i] = bytes.IndexByte(text[from:], b)
					if next[i] >= 0 {
						next[i] += from
					}
				}
				if next[i] >= 0 && (at < 0 || next[i] < at) {
					at = next[i]
				}
			}
			if at < 0 {
				return -1
			}
			if _, ok := s.ac.FindAt(text, at); ok {
				return at
			}
			from = at + 1
		}
	}
}

// scanLines runs the regexp on every line.
func (m *lineMatcher) scanLines(text []byte, fn func(n int, line []byte, start int) bool) {
	n := 0
	for len(text) > 0 {
		n++
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimRight(line, "\r")
		if loc := m.re.FindIndex(line); loc != nil && !fn(n, line, loc[0]) {
			return
		}
	}
}
