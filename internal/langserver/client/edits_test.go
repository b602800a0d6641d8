package client

import "testing"

func TestApplyEdits(t *testing.T) {
	text := "a := Foo(1)\nb := \"é😀\" + Foo(2)\r\nFoo\n"
	edits := []TextEdit{
		{Line: 2, Column: 13, EndLine: 2, EndColumn: 16, NewText: "Bar"}, // after é😀: code points
		{Line: 1, Column: 6, EndLine: 1, EndColumn: 9, NewText: "Bar"},
		{Line: 3, Column: 1, EndLine: 3, EndColumn: 4, NewText: "Bar"},
		{Line: 1, Column: 6, EndLine: 1, EndColumn: 9, NewText: "Bar"}, // a duplicate counts once
	}
	got, allOld, err := ApplyEdits(text, edits, "Foo")
	if err != nil || !allOld || got != "a := Bar(1)\nb := \"é😀\" + Bar(2)\r\nBar\n" {
		t.Fatalf("ApplyEdits = %q %v %v", got, allOld, err)
	}
	// Insertions keep their order; a replaced range that is not the old
	// name is reported.
	got, allOld, err = ApplyEdits("x y", []TextEdit{{Line: 1, Column: 3, EndLine: 1, EndColumn: 3, NewText: "1"}, {Line: 1, Column: 3, EndLine: 1, EndColumn: 3, NewText: "2"}, {Line: 1, Column: 1, EndLine: 1, EndColumn: 2, NewText: "z"}}, "x2")
	if err != nil || allOld || got != "z 12y" {
		t.Fatalf("insertions = %q %v %v", got, allOld, err)
	}
	for _, bad := range [][]TextEdit{
		{{Line: 1, Column: 1, EndLine: 1, EndColumn: 5, NewText: "a"}, {Line: 1, Column: 3, EndLine: 1, EndColumn: 4, NewText: "b"}}, // overlapping
		{{Line: 1, Column: 3, EndLine: 1, EndColumn: 4, NewText: "a"}, {Line: 1, Column: 2, EndLine: 1, EndColumn: 5, NewText: "b"}},
		{{Line: 3, Column: 1, EndLine: 3, EndColumn: 1, NewText: "a"}},  // past the last line
		{{Line: 1, Column: 9, EndLine: 1, EndColumn: 10, NewText: "a"}}, // past the end of the line
		{{Line: 1, Column: 3, EndLine: 1, EndColumn: 2, NewText: "a"}},  // ends before it starts
	} {
		if _, _, err := ApplyEdits("abcdef\nx", bad, ""); err == nil {
			t.Errorf("edits %v accepted", bad)
		}
	}
	// The end of a line is a valid position; so is the start of the line
	// after the last break.
	if got, _, err := ApplyEdits("ab\n", []TextEdit{{Line: 1, Column: 3, EndLine: 1, EndColumn: 3, NewText: "!"}, {Line: 2, Column: 1, EndLine: 2, EndColumn: 1, NewText: "c"}}, ""); err != nil || got != "ab!\nc" {
		t.Errorf("end positions: %q %v", got, err)
	}
}

func TestLines(t *testing.T) {
	l := NewLines("aé😀\r\nb\rc\n")
	if l.Count() != 4 || l.Line(1) != "aé😀" || l.Line(2) != "b" || l.Line(3) != "c" || l.Line(4) != "" {
		t.Fatalf("lines: %d %q %q %q %q", l.Count(), l.Line(1), l.Line(2), l.Line(3), l.Line(4))
	}
	if l.Start(2) != 9 || l.Start(3) != 11 || l.Start(4) != 13 {
		t.Errorf("starts %d %d %d, want 9 11 13", l.Start(2), l.Start(3), l.Start(4))
	}
	for _, c := range []struct{ line, col, want int }{{1, 1, 0}, {1, 2, 1}, {1, 3, 3}, {1, 4, 7}, {3, 2, 12}, {4, 1, 13}} {
		if got, err := l.Offset(c.line, c.col); err != nil || got != c.want {
			t.Errorf("Offset(%d, %d) = %d %v, want %d", c.line, c.col, got, err, c.want)
		}
	}
	if _, err := l.Offset(1, 5); err == nil {
		t.Error("a column two past the end of the line was accepted")
	}
	if _, err := l.Offset(5, 1); err == nil {
		t.Error("a line past the last was accepted")
	}
}
