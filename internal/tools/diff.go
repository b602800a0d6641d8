package tools

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// LineEdit replaces the old text's lines [OldStart, OldEnd) (0-based) with
// New (whole lines, terminators included). Edits of one diff are ordered
// and do not overlap.
type LineEdit struct {
	OldStart, OldEnd int
	New              []string
}

// SplitLines splits text into lines that keep their terminator ("\n" or
// "\r\n"); a final line without one is kept, an empty tail is not.
func SplitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// LineDiff returns the line edits that turn a into b, computed by go-udiff
// (the same diff UnifiedDiff renders).
func LineDiff(a, b string) []LineEdit {
	edits := udiff.Lines(a, b)
	out := make([]LineEdit, 0, len(edits))
	line, pos := 0, 0 // line is the index of the line starting at byte pos
	lineAt := func(off int) int {
		line += strings.Count(a[pos:off], "\n")
		pos = off
		if off == len(a) && off > 0 && a[off-1] != '\n' {
			return line + 1 // the end of a last line without a newline
		}
		return line
	}
	for _, e := range edits {
		start := lineAt(e.Start)
		out = append(out, LineEdit{OldStart: start, OldEnd: lineAt(e.End), New: SplitLines(e.New)})
	}
	return out
}

// UnifiedDiff renders the change from a to b as a unified diff of path with
// three lines of context, and counts added and removed lines. Lines are
// shown without their "\r".
func UnifiedDiff(path, a, b string) (text string, added, removed int) {
	u, err := udiff.ToUnifiedDiff("a/"+path, "b/"+path, a, udiff.Lines(a, b), udiff.DefaultContextLines)
	if err != nil {
		return fmt.Sprintf("(diff could not be rendered: %v)", err), 0, 0
	}
	for _, h := range u.Hunks {
		for i, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
			if s, ok := strings.CutSuffix(l.Content, "\r\n"); ok {
				h.Lines[i].Content = s + "\n"
			}
		}
	}
	return u.String(), added, removed
}
