// Package hunks splits a proposed change of one file into the hunks a
// person reviews (agentls/review), and applies the ones they accept. A hunk
// is one contiguous run of changed lines of the line diff, so accepting or
// rejecting one never touches another.
package hunks

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/tools"
)

// context is how many unchanged lines a hunk's diff shows around it.
const context = 3

// Hunk is one reviewable change: old lines OldStart..OldStart+OldLines-1
// (1-based; for an insertion OldLines is 0 and OldStart is the line it
// goes before) become new lines NewStart..NewStart+NewLines-1. Diff shows
// it as a unified-diff hunk with three lines of context.
type Hunk struct {
	ID       int    `json:"id"`
	OldStart int    `json:"oldStart"`
	OldLines int    `json:"oldLines"`
	NewStart int    `json:"newStart"`
	NewLines int    `json:"newLines"`
	Diff     string `json:"diff"`
}

// Split returns the hunks that turn old into new, numbered from 1 in file
// order.
func Split(old, new string) []Hunk {
	oldLines := tools.SplitLines(old)
	var out []Hunk
	delta := 0
	for i, e := range tools.LineDiff(old, new) {
		h := Hunk{ID: i + 1, OldStart: e.OldStart + 1, OldLines: e.OldEnd - e.OldStart,
			NewStart: e.OldStart + delta + 1, NewLines: len(e.New)}
		h.Diff = render(oldLines, e)
		delta += len(e.New) - (e.OldEnd - e.OldStart)
		out = append(out, h)
	}
	return out
}

// render is one edit as a unified-diff hunk with context.
func render(old []string, e tools.LineEdit) string {
	from := max(0, e.OldStart-context)
	to := min(len(old), e.OldEnd+context)
	before, after := old[from:e.OldStart], old[e.OldEnd:to]
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", span(from, len(before)+e.OldEnd-e.OldStart+len(after)), span(from, len(before)+len(e.New)+len(after)))
	write := func(mark byte, lines []string) {
		for _, l := range lines {
			b.WriteByte(mark)
			b.WriteString(strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))
			b.WriteByte('\n')
		}
	}
	write(' ', before)
	write('-', old[e.OldStart:e.OldEnd])
	write('+', e.New)
	write(' ', after)
	return b.String()
}

// span is a hunk header's "start,count" (start 1-based; 0 for an empty
// range at the top, as diff writes it). The new side's start is shown
// relative to the same context, which is enough for a person reading it.
func span(from, n int) string {
	start := from + 1
	if n == 0 {
		start = from
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// Apply returns old with only the accepted hunks of the change to new, and
// the hunks it left out. Every id must be one of Split(old, new)'s.
func Apply(old, new string, accept []int) (string, []Hunk, error) {
	all := Split(old, new)
	take := map[int]bool{}
	for _, id := range accept {
		if id < 1 || id > len(all) {
			return "", nil, fmt.Errorf("hunk %d does not exist: the change has hunks 1 to %d", id, len(all))
		}
		take[id] = true
	}
	oldLines := tools.SplitLines(old)
	var b strings.Builder
	var rejected []Hunk
	at := 0
	for i, e := range tools.LineDiff(old, new) {
		for _, l := range oldLines[at:e.OldStart] {
			b.WriteString(l)
		}
		lines := oldLines[e.OldStart:e.OldEnd]
		if take[i+1] {
			lines = e.New
		} else {
			rejected = append(rejected, all[i])
		}
		for _, l := range lines {
			b.WriteString(l)
		}
		at = e.OldEnd
	}
	for _, l := range oldLines[at:] {
		b.WriteString(l)
	}
	return b.String(), rejected, nil
}
