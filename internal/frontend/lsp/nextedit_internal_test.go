package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent/fim"
)

func TestHunk(t *testing.T) {
	tests := []struct {
		name, before, after string
		want                fim.Edit
	}{
		{"a word in a line", "package a\nfunc f(a int) {\n}\n", "package a\nfunc f(x int) {\n}\n",
			fim.Edit{Line: 1, Old: "func f(a int) {\n", New: "func f(x int) {\n"}},
		{"typed at a line's start", "ab\n", "xab\n", fim.Edit{Line: 0, Old: "ab\n", New: "xab\n"}},
		{"typed at a line's end", "ab\ncd\n", "abc\ncd\n", fim.Edit{Line: 0, Old: "ab\n", New: "abc\n"}},
		{"a line added", "a\nb\n", "a\nX\nb\n", fim.Edit{Line: 1, Old: "", New: "X\n"}},
		{"a line removed", "a\nX\nb\n", "a\nb\n", fim.Edit{Line: 1, Old: "X\n", New: ""}},
		{"no final newline", "a\nb", "a\nc", fim.Edit{Line: 1, Old: "b", New: "c"}},
	}
	for _, tt := range tests {
		if got := hunk(tt.before, tt.after); got != tt.want {
			t.Errorf("%s: hunk = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// Typing a word is one edit; an edit elsewhere is another; typing back
// what was there drops the edit.
func TestRecordMerges(t *testing.T) {
	var st nextEditState
	steps := []string{
		"func f(a int) {\n\treturn a\n}\n",
		"func f(x int) {\n\treturn a\n}\n",
		"func f(xy int) {\n\treturn a\n}\n",
		"func f(xy int) {\n\treturn xy\n}\n",
	}
	for i := 1; i < len(steps); i++ {
		st.record("f.go", steps[i-1], steps[i])
	}
	want := []fim.Edit{
		{Line: 0, Old: "func f(a int) {\n", New: "func f(xy int) {\n"},
		{Line: 1, Old: "\treturn a\n", New: "\treturn xy\n"},
	}
	got := st.docs["f.go"].edits
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("edits = %+v, want %+v", got, want)
	}
	st.record("f.go", steps[3], steps[2]) // undone
	if got := st.docs["f.go"].edits; len(got) != 1 || got[0] != want[0] {
		t.Errorf("after undoing the second edit: %+v, want the first only", got)
	}
	// Edits on lines far apart are kept apart, the oldest dropped.
	lines := strings.Split(strings.Repeat("line\n", 4*maxRecentEdits), "\n")
	for i := range 2 * maxRecentEdits {
		before := strings.Join(lines, "\n")
		lines[2*i] = "edited"
		st.record("g.go", before, strings.Join(lines, "\n"))
	}
	g := st.docs["g.go"].edits
	if len(g) != maxRecentEdits || g[len(g)-1].Line != 2*(2*maxRecentEdits-1) {
		t.Errorf("edits kept: %+v, want the latest %d", g, maxRecentEdits)
	}
}

func TestLocate(t *testing.T) {
	text := "func Add(x, b int) int {\n\treturn a + b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	pos := func(l, c uint32) protocol.Position { return protocol.Position{Line: l, Character: c} }
	tests := []struct {
		name  string
		sg    fim.Suggestion
		avoid [2]int
		want  *nextEdit
	}{
		{"narrowed to the change", fim.Suggestion{Search: "\treturn a + b", Replace: "\treturn x + b"}, [2]int{0, 1},
			&nextEdit{Range: protocol.Range{Start: pos(1, 8), End: pos(1, 9)}, NewText: "x"}},
		{"not in the file", fim.Suggestion{Search: "\treturn c", Replace: "\treturn d"}, [2]int{0, 1}, nil},
		{"only in the latest edit's lines", fim.Suggestion{Search: "func Add(x", Replace: "func Add(y"}, [2]int{0, 1}, nil},
		{"the occurrence nearest the edit, below", fim.Suggestion{Search: "b int) int {", Replace: "c int) int {"}, [2]int{5, 6},
			&nextEdit{Range: protocol.Range{Start: pos(4, 12), End: pos(4, 13)}, NewText: "c"}},
		{"the occurrence nearest the edit, above", fim.Suggestion{Search: "b int) int {", Replace: "c int) int {"}, [2]int{1, 2},
			&nextEdit{Range: protocol.Range{Start: pos(0, 12), End: pos(0, 13)}, NewText: "c"}},
		{"UTF-16 columns", fim.Suggestion{Search: "\treturn a - b", Replace: "\treturn a − b"}, [2]int{0, 1},
			&nextEdit{Range: protocol.Range{Start: pos(5, 10), End: pos(5, 11)}, NewText: "−"}},
	}
	for _, tt := range tests {
		got := locate(text, tt.sg, tt.avoid)
		if (got == nil) != (tt.want == nil) || (got != nil && (got.Range != tt.want.Range || got.NewText != tt.want.NewText)) {
			t.Errorf("%s: locate = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if got := locate(text, fim.Suggestion{Search: "\treturn a + b", Replace: "\treturn x + b"}, [2]int{0, 1}); got.Title != "agentls: next edit: line 2: return a + b → return x + b" {
		t.Errorf("title %q", got.Title)
	}
}

func TestChangesText(t *testing.T) {
	tests := []struct {
		old, new string
		want     bool
	}{
		{"func Add(a, b int) int {\n", "func Add(x, b int) int {\n", true}, // a rename
		{"f(a, b)\n", "f(a, b, c)\n", true},                                // an argument added
		{"\t\n", "\treturn a\n", false},                                    // typing on
		{"\treturn a\n", "\treturn\n", false},                              // the line's end cut
		{"", "x := 1\n", false},                                            // a line added
		{"x := 1\n", "", false},                                            // a line removed
	}
	for _, tt := range tests {
		if got := changesText(fim.Edit{Old: tt.old, New: tt.new}); got != tt.want {
			t.Errorf("changesText(%q → %q) = %v, want %v", tt.old, tt.new, got, tt.want)
		}
	}
}

// BenchmarkRecordEdit is what a keystroke costs the next-edit tracking
// in a 100 KB buffer: the diff of the text before and after, and the
// merge into the latest edit.
func BenchmarkRecordEdit(b *testing.B) {
	line := "\tsum += values[i] * weights[i] // accumulate\n"
	before := strings.Repeat(line, 100_000/len(line))
	mid := len(before) / 2
	mid -= mid % len(line)
	var st nextEditState
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		after := before[:mid+5] + string(rune('a'+i%26)) + before[mid+5:]
		st.record("big.go", before, after)
		before = after
	}
}
