package tools

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Hunk is one hunk of a change as data, the form editors draw it in:
// the old and new text of the lines it covers (three lines of context
// included), where it starts on each side (1-based), and whether the
// file is new. A tool result and a permission question carry these, so no
// front-end parses the rendered diff back.
type Hunk struct {
	Path     string `json:"path"`
	OldStart int    `json:"old_start"`
	NewStart int    `json:"new_start"`
	Old      string `json:"old"`
	New      string `json:"new"`
	Created  bool   `json:"created,omitempty"`
}

// DiffHunks is the change from a to b of the file at path (as the person
// reads it: workspace-relative) as hunks: the same hunks UnifiedDiff
// renders.
func DiffHunks(path, a, b string) []Hunk {
	u, err := udiff.ToUnifiedDiff("a/"+path, "b/"+path, a, udiff.Lines(a, b), udiff.DefaultContextLines)
	if err != nil {
		return nil
	}
	created := a == ""
	out := make([]Hunk, 0, len(u.Hunks))
	for _, h := range u.Hunks {
		var old, nw strings.Builder
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Equal:
				old.WriteString(l.Content)
				nw.WriteString(l.Content)
			case udiff.Delete:
				old.WriteString(l.Content)
			case udiff.Insert:
				nw.WriteString(l.Content)
			}
		}
		start := h.FromLine
		if created {
			start = 0
		}
		out = append(out, Hunk{Path: path, OldStart: start, NewStart: h.ToLine, Old: old.String(), New: nw.String(), Created: created})
	}
	return out
}
