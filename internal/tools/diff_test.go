package tools

import (
	"math/rand"
	"strings"
	"testing"
)

func TestLineDiffRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	words := []string{"a\n", "b\n", "c\n", "d\r\n", "e", "\n"}
	gen := func() string {
		var b strings.Builder
		for i := r.Intn(12); i > 0; i-- {
			b.WriteString(words[r.Intn(len(words))])
		}
		return b.String()
	}
	for i := 0; i < 3000; i++ {
		a, b := gen(), gen()
		edits := LineDiff(a, b)
		if got := applyLineEdits(a, edits); got != b {
			t.Fatalf("LineDiff(%q, %q) = %+v applies to %q", a, b, edits, got)
		}
		for j := 1; j < len(edits); j++ {
			if edits[j].OldStart < edits[j-1].OldEnd {
				t.Fatalf("overlapping edits %+v", edits)
			}
		}
	}
}

// applyLineEdits applies edits to a.
func applyLineEdits(a string, edits []LineEdit) string {
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

func TestLineDiffIsMinimalForOneLine(t *testing.T) {
	a := "one\ntwo\nthree\nfour\n"
	b := "one\nTWO\nthree\nfour\n"
	edits := LineDiff(a, b)
	if len(edits) != 1 || edits[0].OldStart != 1 || edits[0].OldEnd != 2 || strings.Join(edits[0].New, "") != "TWO\n" {
		t.Errorf("edits = %+v", edits)
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"
	b := "l1\nl2\nL3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11"
	text, added, removed := UnifiedDiff("x.go", a, b)
	want := `--- a/x.go
+++ b/x.go
@@ -1,6 +1,6 @@
 l1
 l2
-l3
+L3
 l4
 l5
 l6
@@ -8,3 +8,4 @@
 l8
 l9
 l10
+l11
\ No newline at end of file
`
	if text != want || added != 2 || removed != 1 {
		t.Errorf("diff (+%d -%d):\n%s\nwant:\n%s", added, removed, text, want)
	}
}

// The edge cases a file change meets: a new file, emptied content, a
// one-line file, a CRLF file (shown without its "\r"), no change.
func TestUnifiedDiffShapes(t *testing.T) {
	tests := []struct {
		name, a, b, want string
		added, removed   int
	}{
		{"new file", "", "x\ny\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n", 2, 0},
		{"emptied", "x\ny\n", "", "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n", 0, 2},
		{"one line", "Hello\n", "Bye\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-Hello\n+Bye\n", 1, 1},
		{"crlf", "a\r\nb\r\n", "a\r\nB\r\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n", 1, 1},
		{"final newline added", "a", "a\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n", 1, 1},
		{"unchanged", "a\n", "a\n", "", 0, 0},
	}
	for _, tt := range tests {
		text, added, removed := UnifiedDiff("f", tt.a, tt.b)
		if text != tt.want || added != tt.added || removed != tt.removed {
			t.Errorf("%s: diff (+%d -%d):\n%s\nwant (+%d -%d):\n%s", tt.name, added, removed, text, tt.added, tt.removed, tt.want)
		}
	}
}

func BenchmarkLineDiffLargeFile(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 30000; i++ {
		sb.WriteString("\tsome line of code that is fairly typical\n")
	}
	a := sb.String()
	mid := len(a) / 2
	c := a[:mid] + "\tinserted\n" + a[mid:]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		LineDiff(a, c)
	}
}
