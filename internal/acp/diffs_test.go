package acp

import (
	"testing"

	"github.com/agentls/agentls/internal/tools"
)

// TestParseDiff reads the diffs the tools render back into each hunk's
// old and new text.
func TestParseDiff(t *testing.T) {
	type want struct {
		path, old, new string
		start          int
		created        bool
	}
	mid := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	cases := []struct {
		name string
		diff string
		want []want
	}{
		{"one change in the middle", diffOf("x.go", mid, "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n"),
			[]want{{"x.go", "b\nc\nd\ne\nf\ng\nh\n", "b\nc\nd\nE\nf\ng\nh\n", 2, false}}},
		{"a new file", diffOf("new.txt", "", "one\ntwo\n"), []want{{"new.txt", "", "one\ntwo\n", 1, true}}},
		{"no newline at the end", diffOf("n.txt", "keep\nold", "keep\nnew"), []want{{"n.txt", "keep\nold", "keep\nnew", 1, false}}},
		{"a removed line that looks like a header", diffOf("h.md", "x\n-- y\n+++ z\n", "x\n"),
			[]want{{"h.md", "x\n-- y\n+++ z\n", "x\n", 1, false}}},
		{"two hunks", diffOf("two.txt", mid+mid, "A\n"+mid[2:]+mid[:len(mid)-2]+"J\n"),
			[]want{{"two.txt", "a\nb\nc\nd\n", "A\nb\nc\nd\n", 1, false}, {"two.txt", "g\nh\ni\nj\n", "g\nh\ni\nJ\n", 17, false}}},
		{"two files", diffOf("a.txt", "1\n", "2\n") + diffOf("sub/b.txt", "3\n", "4\n"),
			[]want{{"a.txt", "1\n", "2\n", 1, false}, {"sub/b.txt", "3\n", "4\n", 1, false}}},
	}
	for _, c := range cases {
		got := parseDiff(c.diff)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d hunks, want %d\n%s", c.name, len(got), len(c.want), c.diff)
			continue
		}
		for i, w := range c.want {
			h := got[i]
			if h.path != w.path || h.old.String() != w.old || h.new.String() != w.new || h.newStart != w.start || h.created != w.created {
				t.Errorf("%s, hunk %d: {%s %q %q %d %v}, want %+v\n%s", c.name, i, h.path, h.old.String(), h.new.String(), h.newStart, h.created, w, c.diff)
			}
		}
	}
}

func diffOf(path, a, b string) string {
	d, _, _ := tools.UnifiedDiff(path, a, b)
	return d
}
