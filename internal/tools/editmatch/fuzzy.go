package editmatch

import "strings"

// pattern is old_string prepared for whole-line matching that ignores
// whitespace: each line squeezed, blank lines kept as "".
type pattern struct {
	keys []string
	// lead and trail count the blank lines at the ends; each must match
	// one blank file line. A run of blank lines inside the pattern
	// matches any run of one or more blank lines, because models often
	// collapse blank lines.
	lead, trail int
}

// fuzzyLines splits an old or new string into whole lines; one trailing
// newline is dropped since a fuzzy match always covers whole lines.
func fuzzyLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// replacementLines splits new_string into the lines that replace a fuzzy
// match. A final newline in new_string pairs with one in old_string, as in
// an exact match; without one in old_string it adds an empty line, again
// as an exact match would. Nothing is ever joined to the next line.
func replacementLines(old, repl string) []string {
	if repl == "" || strings.HasSuffix(old, "\n") {
		return fuzzyLines(repl)
	}
	return strings.Split(repl, "\n")
}

// compile prepares old lines; ok is false when they are all blank, as
// whitespace alone would match anywhere.
func compile(lines []string) (p pattern, ok bool) {
	p.keys = make([]string, len(lines))
	for i, l := range lines {
		p.keys[i] = squeeze(l)
	}
	for p.lead < len(p.keys) && p.keys[p.lead] == "" {
		p.lead++
	}
	if p.lead == len(p.keys) {
		return p, false
	}
	for p.keys[len(p.keys)-1-p.trail] == "" {
		p.trail++
	}
	return p, true
}

// match is one place old_string matched, in 0-based file lines.
type match struct {
	first, last int
	at          []int // file line of each non-blank old line
}

// find returns the places p matches, in file order, and their count. With
// all set they are the non-overlapping ones, taken from the top; otherwise
// every place counts, overlapping ones too, since any second place makes
// the edit ambiguous, but only the first few are kept.
//
// Places where blank lines match as p says come first (strict). Only when
// there are none, places where p matches once blank lines are ignored
// count (loose): models drop, add and collapse blank lines. Both are
// looked for in the same pass, from the lines that match p's first
// non-blank line.
func (p pattern) find(t *text, all bool) (matches []match, count int, loose bool) {
	key := p.keys[p.lead]
	at := make([]int, len(p.keys))
	var looseMatches []match
	looseCount := 0
	next, looseNext := 0, 0 // with all: the first line a match may start at
	for j := 0; j < t.n(); j++ {
		if !sameSqueezed(t.line(j), key) {
			continue
		}
		if start := j - p.lead; start >= next && j >= p.lead {
			if last, ok := p.matchAt(t, start, at); ok {
				count++
				if all {
					next = last + 1
				}
				if all || len(matches) < maxPlaces {
					matches = append(matches, match{first: start, last: last, at: append([]int(nil), at...)})
				}
				continue
			}
		}
		if count > 0 {
			continue // a strict place wins: loose ones are no longer needed
		}
		if first, last, ok := p.matchLoose(t, j, at); ok && first >= looseNext {
			looseCount++
			if all {
				looseNext = last + 1
			}
			if all || len(looseMatches) < maxPlaces {
				looseMatches = append(looseMatches, match{first: first, last: last, at: append([]int(nil), at...)})
			}
		}
	}
	if count == 0 {
		return looseMatches, looseCount, looseCount > 0
	}
	return matches, count, false
}

// matchAt tries the pattern with its first line at file line start; it
// fills at with the file line of each old line and returns the last one.
func (p pattern) matchAt(t *text, start int, at []int) (last int, ok bool) {
	j := start
	for i := 0; i < len(p.keys); {
		if j >= t.n() {
			return 0, false
		}
		line := t.line(j)
		switch {
		case p.keys[i] != "":
			if !sameSqueezed(line, p.keys[i]) {
				return 0, false
			}
			at[i] = j
			i++
			j++
		case !isBlank(line):
			return 0, false
		case i < p.lead || i >= len(p.keys)-p.trail:
			at[i] = j
			i++
			j++
		default: // a blank run inside: take all blank lines on both sides
			for ; p.keys[i] == ""; i++ {
				at[i] = j
			}
			for j < t.n() && isBlank(t.line(j)) {
				j++
			}
		}
	}
	return j - 1, true
}

// matchLoose tries the pattern's non-blank lines from file line j on,
// skipping blank lines on both sides. Blank lines at the ends of the
// pattern take as many blank file lines next to the block as there are,
// up to their number.
func (p pattern) matchLoose(t *text, j int, at []int) (first, last int, ok bool) {
	lastKey := len(p.keys) - 1 - p.trail
	for i := p.lead; i <= lastKey; i++ {
		if p.keys[i] == "" {
			continue
		}
		for j < t.n() && i > p.lead && isBlank(t.line(j)) {
			j++
		}
		if j >= t.n() || !sameSqueezed(t.line(j), p.keys[i]) {
			return 0, 0, false
		}
		at[i] = j
		j++
	}
	first = at[p.lead]
	for first > 0 && at[p.lead]-first < p.lead && isBlank(t.line(first-1)) {
		first--
	}
	last = at[lastKey]
	for last+1 < t.n() && last-at[lastKey] < p.trail && isBlank(t.line(last+1)) {
		last++
	}
	return first, last, true
}

// fuzzySplices is the whitespace-insensitive fallback. It returns nil
// splices and no error when nothing matches.
func fuzzySplices(t *text, old, repl, eol string, all bool) ([]splice, forgiven, error) {
	oldLines := fuzzyLines(old)
	p, ok := compile(oldLines)
	if !ok {
		return nil, forgiven{}, nil
	}
	matches, count, loose := p.find(t, all)
	switch {
	case count == 0:
		return nil, forgiven{}, nil
	case count > 1 && !all:
		return nil, forgiven{}, ambiguousFuzzy(matches, count, loose)
	}
	newLines := replacementLines(old, repl)
	fs := newFileStyle(t)
	var splices []splice
	var why forgiven
	for _, m := range matches {
		why.add(oldLines, m, t)
		s, err := layoutSplice(oldLines, newLines, m, t, fs, eol)
		if err != nil {
			return nil, forgiven{}, err
		}
		splices = append(splices, s)
	}
	return keepFinalNewline(t.body, joinDeletions(splices)), why, nil
}

// joinDeletions merges deletions that touch, so that keepFinalNewline
// sees a deletion reaching the end of the file as one splice.
func joinDeletions(splices []splice) []splice {
	out := splices[:0]
	for _, s := range splices {
		if n := len(out); n > 0 && out[n-1].end == s.start && out[n-1].lineDelete && s.lineDelete {
			out[n-1].end = s.end
			continue
		}
		out = append(out, s)
	}
	return out
}

// keepFinalNewline makes a whole-line deletion of the last lines of a file
// that lacks a final newline remove the line break before them instead,
// so the file still lacks one.
func keepFinalNewline(body string, splices []splice) []splice {
	last := &splices[len(splices)-1]
	if !last.lineDelete || last.end != len(body) || last.start == 0 || strings.HasSuffix(body, "\n") {
		return splices
	}
	last.start--
	if last.start > 0 && body[last.start-1] == '\r' {
		last.start--
	}
	return splices
}

// ambiguousFuzzy reports several fuzzy matches with their places.
func ambiguousFuzzy(matches []match, count int, loose bool) *AmbiguousError {
	e := &AmbiguousError{Count: count, Fuzzy: true, BlankLines: loose}
	for _, m := range matches {
		e.Places = append(e.Places, LineRange{m.first + 1, m.last + 1})
	}
	return e
}
