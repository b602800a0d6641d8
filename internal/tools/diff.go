package tools

import (
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
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

// maxDiffCost bounds the edit distance the diff searches for; beyond it the
// differing middle becomes one replacement, which is still correct, only
// less minimal.
const maxDiffCost = 1000

// LineDiff returns the line edits that turn a into b: common prefix and
// suffix trimmed, then Myers' shortest edit script on the rest.
func LineDiff(a, b string) []LineEdit {
	al, bl := SplitLines(a), SplitLines(b)
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	am, bm := al[pre:len(al)-suf], bl[pre:len(bl)-suf]
	if len(am) == 0 && len(bm) == 0 {
		return nil
	}
	edits := myers(am, bm)
	for i := range edits {
		edits[i].OldStart += pre
		edits[i].OldEnd += pre
	}
	return edits
}

// myers computes a shortest edit script and groups it into LineEdits.
func myers(a, b []string) []LineEdit {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return []LineEdit{{OldStart: 0, OldEnd: n, New: append([]string(nil), b...)}}
	}
	off := n + m
	v := make([]int, 2*off+2)
	// trace[d] keeps v[off-d-1 : off+d+2] as it was before step d: all that
	// backtracking reads, so memory grows with the edit distance squared,
	// not with the file.
	var trace [][]int
	found := false
	for d := 0; d <= n+m && d <= maxDiffCost; d++ {
		lo, hi := max(off-d-1, 0), min(off+d+2, len(v))
		trace = append(trace, append([]int(nil), v[lo:hi]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		return []LineEdit{{OldStart: 0, OldEnd: n, New: append([]string(nil), b...)}}
	}
	// Backtrack: collect (x, y) moves from the end.
	type op struct {
		del, ins bool
		x, y     int
	}
	var ops []op
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		lo := max(off-d-1, 0)
		vd := func(i int) int { return trace[d][i-lo] }
		k := x - y
		var pk int
		if k == -d || k != d && vd(off+k-1) < vd(off+k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vd(off + pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
		}
		if x == px {
			ops = append(ops, op{ins: true, x: x, y: py})
		} else {
			ops = append(ops, op{del: true, x: px, y: y})
		}
		x, y = px, py
	}
	// ops are in reverse; group adjacent ones into edits.
	var edits []LineEdit
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		var last *LineEdit
		if len(edits) > 0 {
			last = &edits[len(edits)-1]
		}
		if o.del {
			if last != nil && last.OldEnd == o.x {
				last.OldEnd++
				continue
			}
			edits = append(edits, LineEdit{OldStart: o.x, OldEnd: o.x + 1})
			continue
		}
		if last != nil && last.OldEnd == o.x {
			last.New = append(last.New, b[o.y])
			continue
		}
		edits = append(edits, LineEdit{OldStart: o.x, OldEnd: o.x, New: []string{b[o.y]}})
	}
	return edits
}

// ApplyLineEdits applies edits to a (for tests and checks).
func ApplyLineEdits(a string, edits []LineEdit) string {
	al := SplitLines(a)
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		for ; pos < e.OldStart; pos++ {
			b.WriteString(al[pos])
		}
		for _, l := range e.New {
			b.WriteString(l)
		}
		pos = e.OldEnd
	}
	for ; pos < len(al); pos++ {
		b.WriteString(al[pos])
	}
	return b.String()
}

// UnifiedDiff renders the change from a to b as a unified diff of path with
// three lines of context, and counts added and removed lines.
func UnifiedDiff(path, a, b string) (text string, added, removed int) {
	edits := LineDiff(a, b)
	if len(edits) == 0 {
		return "", 0, 0
	}
	al := SplitLines(a)
	const ctx = 3
	fd := &diff.FileDiff{OrigName: "a/" + path, NewName: "b/" + path}
	shift := 0 // new line index minus old line index before the current edit
	for i := 0; i < len(edits); {
		// Merge edits whose context overlaps into one hunk.
		j := i
		for j+1 < len(edits) && edits[j+1].OldStart-edits[j].OldEnd <= 2*ctx {
			j++
		}
		start := max(edits[i].OldStart-ctx, 0)
		end := min(edits[j].OldEnd+ctx, len(al))
		var body strings.Builder
		h := &diff.Hunk{OrigStartLine: int32(start + 1), NewStartLine: int32(start + shift + 1)}
		pos := start
		writeLine := func(prefix byte, l string) {
			body.WriteByte(prefix)
			body.WriteString(strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))
			body.WriteByte('\n')
			if !strings.HasSuffix(l, "\n") {
				body.WriteString("\\ No newline at end of file\n")
			}
		}
		for k := i; k <= j; k++ {
			e := edits[k]
			for ; pos < e.OldStart; pos++ {
				writeLine(' ', al[pos])
				h.OrigLines++
				h.NewLines++
			}
			for ; pos < e.OldEnd; pos++ {
				writeLine('-', al[pos])
				h.OrigLines++
				removed++
			}
			for _, l := range e.New {
				writeLine('+', l)
				h.NewLines++
				added++
			}
			shift += len(e.New) - (e.OldEnd - e.OldStart)
		}
		for ; pos < end; pos++ {
			writeLine(' ', al[pos])
			h.OrigLines++
			h.NewLines++
		}
		if h.OrigLines == 0 {
			h.OrigStartLine--
		}
		if h.NewLines == 0 {
			h.NewStartLine--
		}
		h.Body = []byte(body.String())
		fd.Hunks = append(fd.Hunks, h)
		i = j + 1
	}
	out, err := diff.PrintFileDiff(fd)
	if err != nil {
		return fmt.Sprintf("(diff could not be rendered: %v)", err), added, removed
	}
	return string(out), added, removed
}
