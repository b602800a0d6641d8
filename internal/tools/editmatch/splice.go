package editmatch

import (
	"sort"
	"strings"
)

// splice replaces body[start:end] with repl. An edit is a list of
// ascending, non-overlapping splices, which is what guarantees that text
// outside the matches is copied untouched.
type splice struct {
	start, end int
	repl       string
	// lineDelete marks whole lines deleted with their line break, as
	// opposed to lines that became one empty line; see keepFinalNewline.
	lineDelete bool
}

// hunk is a splice in lines, like a diff hunk: oldCount lines from line
// oldFirst became newCount lines from line newFirst (1-based).
type hunk struct {
	oldFirst, oldCount, newFirst, newCount int
}

// applySplices builds the edited body and the hunks of the splices.
func applySplices(body string, splices []splice) (string, []hunk) {
	size := len(body)
	for _, s := range splices {
		size += len(s.repl) - (s.end - s.start)
	}
	var b strings.Builder
	b.Grow(size)
	hunks := make([]hunk, 0, len(splices))
	pos, oldLine, newLine := 0, 1, 1
	for _, s := range splices {
		gap := body[pos:s.start]
		nl := strings.Count(gap, "\n")
		oldLine += nl
		newLine += nl
		b.WriteString(gap)
		removed := body[s.start:s.end]
		removedNL, addedNL := strings.Count(removed, "\n"), strings.Count(s.repl, "\n")
		hunks = append(hunks, spliceHunk(body, s, oldLine, newLine))
		b.WriteString(s.repl)
		oldLine += removedNL
		newLine += addedNL
		pos = s.end
	}
	b.WriteString(body[pos:])
	return b.String(), hunks
}

// spliceHunk counts the lines a splice touches on each side: those holding
// a removed or inserted byte, plus a line whose start or end was joined
// to the splice because only one side ends in a line break.
func spliceHunk(body string, s splice, oldFirst, newFirst int) hunk {
	removed := body[s.start:s.end]
	atLineStart := s.start == 0 || body[s.start-1] == '\n'
	removedEndsLine := strings.HasSuffix(removed, "\n")
	replEndsLine := atLineStart // an empty repl "ends a line" if it sits at a line start
	if s.repl != "" {
		replEndsLine = strings.HasSuffix(s.repl, "\n")
	}
	oldLast := oldFirst + strings.Count(removed, "\n") - boolInt(removedEndsLine)
	newLast := newFirst + strings.Count(s.repl, "\n") - boolInt(replEndsLine)
	switch {
	case removedEndsLine && !replEndsLine && s.end < len(body):
		oldLast++ // the next line was joined to the inserted text
	case replEndsLine && !removedEndsLine && removed != "":
		newLast++ // the rest of the last removed-from line starts a line
	}
	return hunk{oldFirst, oldLast - oldFirst + 1, newFirst, newLast - newFirst + 1}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shiftRanges carries line ranges of the text before an edit through the
// edit's hunks; a range touching a hunk grows to cover what replaced it.
func shiftRanges(ranges []LineRange, hunks []hunk) []LineRange {
	out := make([]LineRange, 0, len(ranges))
	for _, r := range ranges {
		first := shiftLine(r.First, hunks, false)
		last := first - 1
		if r.Last >= r.First {
			last = shiftLine(r.Last, hunks, true)
		}
		out = append(out, LineRange{first, last})
	}
	return out
}

// shiftLine maps a line through hunks; a line inside a hunk maps to the
// hunk's first line, or its last when end is set.
func shiftLine(line int, hunks []hunk, end bool) int {
	delta := 0
	for _, h := range hunks {
		if line < h.oldFirst {
			break
		}
		if line < h.oldFirst+h.oldCount {
			if end {
				return h.newFirst + h.newCount - 1
			}
			return h.newFirst
		}
		delta = h.newFirst + h.newCount - h.oldFirst - h.oldCount
	}
	return line + delta
}

// mergeRanges sorts ranges and joins the ones that overlap or touch.
func mergeRanges(ranges []LineRange) []LineRange {
	if len(ranges) < 2 {
		return ranges
	}
	sort.Slice(ranges, func(i, j int) bool {
		if ranges[i].First != ranges[j].First {
			return ranges[i].First < ranges[j].First
		}
		return ranges[i].Last < ranges[j].Last
	})
	out := ranges[:1]
	for _, r := range ranges[1:] {
		cur := &out[len(out)-1]
		if r.First <= cur.Last+1 {
			cur.Last = max(cur.Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// exactSplices finds old in body, comparing CRLF and LF as equal. It
// returns nil splices and no error when old does not occur, so that the
// fuzzy matcher gets its turn.
func exactSplices(body, old, repl, eol string, all bool) ([]splice, error) {
	view := newLFView(body)
	first := strings.Index(view.s, old)
	if first < 0 {
		return nil, nil
	}
	var offsets []int
	if all {
		offsets = indexAll(view.s, old, first, len(old))
	} else if next := strings.Index(view.s[first+1:], old); next >= 0 {
		return nil, ambiguousExact(view.s, old, first)
	} else {
		offsets = []int{first}
	}
	repl = withEOL(repl, eol)
	splices := make([]splice, len(offsets))
	for i, off := range offsets {
		end := off + len(old)
		del := repl == "" && wholeLines(view.s, off, end)
		if del && end < len(view.s) && (i+1 == len(offsets) || offsets[i+1] > end) {
			end++ // the line break goes with the deleted lines
		}
		splices[i] = splice{start: view.bodyOffset(off), end: view.bodyOffset(end), repl: repl, lineDelete: del}
	}
	return keepFinalNewline(body, joinDeletions(splices)), nil
}

// wholeLines reports whether s[start:end] runs from a line start to a line
// end without the line break. Deleting such text removes the lines, so an
// exact delete leaves no empty line behind, like a fuzzy one.
func wholeLines(s string, start, end int) bool {
	return (start == 0 || s[start-1] == '\n') && end > start && s[end-1] != '\n' && (end == len(s) || s[end] == '\n')
}

// indexAll returns the offsets of old in s from first on, each search
// resuming step bytes after the previous hit.
func indexAll(s, old string, first, step int) []int {
	offsets := []int{first}
	for pos := first + step; pos <= len(s); {
		i := strings.Index(s[pos:], old)
		if i < 0 {
			break
		}
		offsets = append(offsets, pos+i)
		pos += i + step
	}
	return offsets
}

// ambiguousExact counts every occurrence of old, overlapping ones
// included, and names the lines of the first few.
func ambiguousExact(s, old string, first int) *AmbiguousError {
	offsets := indexAll(s, old, first, 1)
	e := &AmbiguousError{Count: len(offsets)}
	span := strings.Count(strings.TrimSuffix(old, "\n"), "\n")
	line, pos := 1, 0
	for _, off := range offsets {
		line += strings.Count(s[pos:off], "\n")
		pos = off
		r := LineRange{line, line + span}
		if n := len(e.Places); n > 0 && e.Places[n-1] == r {
			continue // another place on the same lines
		}
		if len(e.Places) == maxPlaces {
			break
		}
		e.Places = append(e.Places, r)
	}
	return e
}
