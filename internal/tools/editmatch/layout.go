package editmatch

import "strings"

// A fuzzy match replaces whole file lines with new_string's lines, mapped
// onto the file line by line: a line new_string keeps from old_string
// comes back as the file has it (indentation, trailing blanks, line
// break), blank lines included, and only changed or inserted lines come
// from new_string, re-indented.
//
// Blank lines need care, because models drop, add and collapse them. The
// blank lines between two non-blank lines of old_string form a gap, and
// the file has its own number of blank lines in that place. Where the
// numbers agree, blank lines pair one for one like any line. Where they
// differ, the file's blank lines stay as a whole where new_string keeps
// the gap; when new_string changes the lines around it so that their
// place is unclear, the edit is refused (*BlankLinesError).

// gap is a run of blank lines of old_string between two non-blank lines,
// or before the first or after the last, and the file's blank lines there.
type gap struct {
	prev, next   int   // old non-blank lines around it, -1 at the ends
	old          []int // its old_string lines, consecutive
	file0, fileN int   // its file lines: file0 … file0+fileN-1
}

// exact reports whether old_string has as many blank lines here as the file.
func (g gap) exact() bool { return len(g.old) == g.fileN }

// gapsOf splits old_string around its non-blank lines; gapOf gives each
// blank old line its gap (-1 for non-blank lines).
func gapsOf(oldLines []string, m match) (gaps []gap, gapOf []int) {
	gapOf = make([]int, len(oldLines))
	cur := gap{prev: -1, file0: m.first}
	for i, l := range oldLines {
		if isBlank(l) {
			gapOf[i] = len(gaps)
			cur.old = append(cur.old, i)
			continue
		}
		gapOf[i] = -1
		cur.next, cur.fileN = i, m.at[i]-cur.file0
		gaps = append(gaps, cur)
		cur = gap{prev: i, file0: m.at[i] + 1}
	}
	cur.next, cur.fileN = -1, m.last+1-cur.file0
	return append(gaps, cur), gapOf
}

// outLine is one line of the replacement: file line file, or (file < 0)
// new_string's line newLine, re-indented; if it then equals file line
// alike (trailing blanks aside), it is that line.
type outLine struct{ file, newLine, alike int }

// layout decides the replacement of one match line by line.
type layout struct {
	oldLines, newLines []string
	pairs              pairing
	newOf              []int // old line → the new line keeping it, or -1
}

// planLayout returns the lines that replace match m.
func planLayout(oldLines, newLines []string, m match) ([]outLine, error) {
	l := layout{oldLines: oldLines, newLines: newLines, pairs: pairLines(oldLines, newLines)}
	l.newOf = make([]int, len(oldLines))
	for i := range l.newOf {
		l.newOf[i] = -1
	}
	for k, i := range l.pairs.order {
		if i >= 0 {
			l.newOf[i] = k
		}
	}
	gaps, gapOf := gapsOf(oldLines, m)
	fileOf := make([]int, len(newLines))
	for k := range newLines {
		fileOf[k] = -1
		if i := l.pairs.from[k]; i >= 0 {
			fileOf[k] = m.at[i]
		} else if i := l.pairs.order[k]; i >= 0 && isBlank(oldLines[i]) {
			if g := gaps[gapOf[i]]; g.exact() {
				fileOf[k] = g.file0 + i - g.old[0]
			}
		}
	}
	place := make([][]int, len(newLines)+1) // gaps whose file lines go before new line p
	skip := make([]bool, len(newLines))     // new lines whose place a gap's file lines take
	for gi, g := range gaps {
		if g.exact() {
			continue
		}
		p, kept, err := l.placeGap(g, m)
		if err != nil {
			return nil, err
		}
		if p >= 0 {
			place[p] = append(place[p], gi)
		}
		for _, k := range kept {
			skip[k] = true
		}
	}
	var out []outLine
	for k := 0; k <= len(newLines); k++ {
		for _, gi := range place[k] {
			for j := range gaps[gi].fileN {
				out = append(out, outLine{file: gaps[gi].file0 + j, newLine: -1, alike: -1})
			}
		}
		if k < len(newLines) && !skip[k] {
			o := outLine{file: fileOf[k], newLine: k, alike: -1}
			if i := l.pairs.alike[k]; i >= 0 {
				o.alike = m.at[i]
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// placeGap places the file's blank lines of a gap whose count old_string
// got wrong. It returns the new line before which they go (-1: they go,
// with the lines around them), and the new lines they stand in for.
func (l layout) placeGap(g gap, m match) (at int, kept []int, err error) {
	n := len(l.newLines)
	keptL, posL := true, -1 // the start of the block is always kept
	if g.prev >= 0 {
		posL = l.newOf[g.prev]
		keptL = posL >= 0
	}
	keptR, posR := true, n
	if g.next >= 0 {
		posR = l.newOf[g.next]
		keptR = posR >= 0
	}
	for _, i := range g.old {
		if l.pairs.unsure[i] {
			return 0, nil, blankLinesError(g, m) // which blank lines new_string keeps is a guess
		}
		if k := l.newOf[i]; k >= 0 {
			kept = append(kept, k)
		}
	}
	inserted := func(k int) bool { // a blank line new_string adds
		return k >= 0 && k < n && l.pairs.order[k] < 0 && isBlank(l.newLines[k])
	}
	o := len(g.old)
	switch {
	case o > 0 && len(kept) == o && kept[o-1]-kept[0] == o-1 && !inserted(kept[0]-1) && !inserted(kept[o-1]+1):
		return kept[0], kept, nil // new_string keeps the gap: the file's blank lines take its place
	case o > 0 && len(kept) == 0 && g.fileN == 0:
		return -1, nil, nil // blank lines the file does not have go
	case o > 0 && len(kept) == 0 && !keptL && !keptR && !l.insertsAround(g):
		return -1, nil, nil // deleted with the lines around them
	case o > 0:
	case keptL && keptR && posR == posL+1:
		return posR, nil, nil // old_string left the blank lines out; new_string keeps both sides together
	case !keptL && !keptR && !l.insertsAround(g):
		return -1, nil, nil // deleted with the lines around them
	case l.twin(g.prev, keptL) || l.twin(g.next, keptR):
		// which of two equal lines new_string dropped decides the place
	case keptL && !keptR && !inserted(posL+1):
		return posL + 1, nil, nil // after the kept line before them
	case keptR && !keptL && !inserted(posR-1):
		return posR, nil, nil // before the kept line after them
	}
	return 0, nil, blankLinesError(g, m)
}

// twin reports whether old line i, which new_string does not keep, has an
// equal line in old_string that new_string keeps with no kept line between
// the two: then new_string could as well have kept line i and dropped the
// other, and where the blank lines next to line i go is a guess.
func (l layout) twin(i int, kept bool) bool {
	if i < 0 || kept {
		return false
	}
	for _, step := range []int{-1, 1} {
		for j := i + step; j >= 0 && j < len(l.oldLines); j += step {
			if l.newOf[j] < 0 || isBlank(l.oldLines[j]) {
				continue
			}
			if sameLine(l.oldLines[j], l.oldLines[i]) {
				return true
			}
			break // a kept line between: the alignment is fixed
		}
	}
	return false
}

// insertsAround reports whether new_string has lines of its own between
// the kept lines nearest to gap g on either side.
func (l layout) insertsAround(g gap) bool {
	from, to := -1, len(l.newLines)
	for i := g.prev; i >= 0; i-- {
		if k := l.newOf[i]; k >= 0 && !isBlank(l.oldLines[i]) {
			from = k
			break
		}
	}
	for i := g.next; i >= 0 && i < len(l.oldLines); i++ {
		if k := l.newOf[i]; k >= 0 && !isBlank(l.oldLines[i]) {
			to = k
			break
		}
	}
	for k := from + 1; k < to; k++ {
		if l.pairs.order[k] < 0 {
			return true
		}
	}
	return false
}

// blankLinesError describes gap g of match m for the model.
func blankLinesError(g gap, m match) *BlankLinesError {
	e := &BlankLinesError{OldBlanks: len(g.old), FileBlanks: g.fileN}
	e.FileLines = LineRange{g.file0 + 1, g.file0 + g.fileN}
	return e
}

// layoutSplice turns match m into a splice writing new_string's lines as
// planLayout places them. Written lines get the line break eol, the last
// one the break that ended the match; lines from the file keep theirs.
// Lines the replacement leaves as they were are trimmed off its ends.
func layoutSplice(oldLines, newLines []string, m match, t *text, fs *fileStyle, eol string) (splice, error) {
	out, err := planLayout(oldLines, newLines, m)
	if err != nil {
		return splice{}, err
	}
	if t.eol(m.last) == "" { // a missing final newline stays missing: a blank last line would add one
		for n := len(out) - 1; n > 0 && (out[n].file >= 0 && isBlank(t.line(out[n].file)) ||
			out[n].file < 0 && isBlank(newLines[out[n].newLine])); n-- {
			out = out[:n]
		}
	}
	var in *indenter // built on first use: it measures the file
	var b strings.Builder
	for n, o := range out {
		line, lineEOL := "", eol
		if o.file >= 0 {
			line = t.line(o.file)
			if e := t.eol(o.file); e != "" {
				lineEOL = e
			}
		} else {
			if in == nil {
				in = newIndenter(oldLines, newLines, m, t, fs)
			}
			if line, err = in.render(o.newLine); err != nil {
				return splice{}, err
			}
			if o.alike >= 0 && line == trimTrailing(t.line(o.alike)) {
				o.file, line = o.alike, t.line(o.alike) // unchanged after all: the file's bytes
				if e := t.eol(o.file); e != "" {
					lineEOL = e
				}
			}
		}
		if n == len(out)-1 && (o.file < 0 || t.eol(m.last) == "") {
			lineEOL = t.eol(m.last)
		}
		b.WriteString(line)
		b.WriteString(lineEOL)
	}
	s := splice{start: t.starts[m.first], end: t.end(m.last), repl: b.String(), lineDelete: len(out) == 0}
	return trimSplice(t.body, s), nil
}

// trimSplice drops the whole lines a splice would write back unchanged at
// its start and end, so that the lines it reports as changed are the ones
// that are. At least one removed line stays, so a splice never becomes a
// bare insertion; an emptied replacement makes it a line deletion. A
// splice reaching the end of a file without a final newline stays whole.
func trimSplice(body string, s splice) splice {
	if s.lineDelete || s.repl == "" || s.end == len(body) && !strings.HasSuffix(body, "\n") {
		return s // at the end of a file without a final newline, trimming would move it
	}
	for {
		removed := body[s.start:s.end]
		r, n := firstLine(removed), firstLine(s.repl)
		if len(r) == len(removed) || r != n {
			break
		}
		s.start += len(r)
		s.repl = s.repl[len(n):]
	}
	for {
		removed := body[s.start:s.end]
		r, n := lastLine(removed), lastLine(s.repl)
		if len(r) == len(removed) || r != n || n == "" {
			break
		}
		s.end -= len(r)
		s.repl = s.repl[:len(s.repl)-len(n)]
	}
	s.lineDelete = s.repl == ""
	return s
}

// firstLine is s up to and including its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}

// lastLine is the last line of s with its line break, if any.
func lastLine(s string) string {
	body := strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(body, '\n')+1:]
}
