package tools

import "testing"

// TestDiffHunks: the hunks a change becomes, as editors draw them.
func TestDiffHunks(t *testing.T) {
	mid := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	cases := []struct {
		name, path, a, b string
		want             []Hunk
	}{
		{"one change in the middle", "x.go", mid, "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n",
			[]Hunk{{Path: "x.go", OldStart: 2, NewStart: 2, Old: "b\nc\nd\ne\nf\ng\nh\n", New: "b\nc\nd\nE\nf\ng\nh\n"}}},
		{"a new file", "new.txt", "", "one\ntwo\n", []Hunk{{Path: "new.txt", OldStart: 0, NewStart: 1, Old: "", New: "one\ntwo\n", Created: true}}},
		{"no newline at the end", "n.txt", "keep\nold", "keep\nnew", []Hunk{{Path: "n.txt", OldStart: 1, NewStart: 1, Old: "keep\nold", New: "keep\nnew"}}},
		{"a removed line that looks like a header", "h.md", "x\n-- y\n+++ z\n", "x\n",
			[]Hunk{{Path: "h.md", OldStart: 1, NewStart: 1, Old: "x\n-- y\n+++ z\n", New: "x\n"}}},
		{"two hunks", "two.txt", mid + mid, "A\n" + mid[2:] + mid[:len(mid)-2] + "J\n",
			[]Hunk{{Path: "two.txt", OldStart: 1, NewStart: 1, Old: "a\nb\nc\nd\n", New: "A\nb\nc\nd\n"},
				{Path: "two.txt", OldStart: 17, NewStart: 17, Old: "g\nh\ni\nj\n", New: "g\nh\ni\nJ\n"}}},
		{"CRLF kept", "w.txt", "a\r\nb\r\n", "a\r\nc\r\n", []Hunk{{Path: "w.txt", OldStart: 1, NewStart: 1, Old: "a\r\nb\r\n", New: "a\r\nc\r\n"}}},
	}
	for _, c := range cases {
		got := DiffHunks(c.path, c.a, c.b)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d hunks, want %d: %+v", c.name, len(got), len(c.want), got)
			continue
		}
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("%s, hunk %d: %+v, want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
}
