package acp

import (
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// TestRequestHunks: a permission request's proposed change reaches the
// client as one diff entry per hunk, with absolute paths, oldText left out
// for a file the change creates, and one location per file at its first
// changed hunk.
func TestRequestHunks(t *testing.T) {
	ss, root := bareSession(t)
	mid := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	a := filepath.Join(root, "a.txt")
	b := filepath.Join(root, "sub", "b.txt")
	c := filepath.Join(root, "new.txt")
	r := permission.Request{
		Change: &permission.Change{Path: a, Old: mid + mid, Exists: true, New: "A\n" + mid[2:] + mid[:len(mid)-2] + "J\n"},
		Changes: []permission.Change{
			{Path: b, Old: "x\n-- y\n+++ z\n", Exists: true, New: "x\n"},
			{Path: c, Old: "stale text of a file that does not exist", Exists: false, New: "one\ntwo\n"},
		},
	}
	content, locs := ss.hunkContent(requestHunks(r))
	type want struct {
		path string
		old  *string
		new  string
	}
	str := func(s string) *string { return &s }
	wants := []want{
		{a, str("a\nb\nc\nd\n"), "A\nb\nc\nd\n"},
		{a, str("g\nh\ni\nj\n"), "g\nh\ni\nJ\n"},
		{b, str("x\n-- y\n+++ z\n"), "x\n"},
		{c, nil, "one\ntwo\n"},
	}
	if len(content) != len(wants) {
		t.Fatalf("%d content entries, want %d: %+v", len(content), len(wants), content)
	}
	for i, w := range wants {
		d := content[i].Diff
		if d == nil {
			t.Fatalf("entry %d is not a diff: %+v", i, content[i])
		}
		if d.Path != w.path || d.NewText != w.new || (d.OldText == nil) != (w.old == nil) || (w.old != nil && *d.OldText != *w.old) {
			t.Errorf("entry %d: %s old %v new %q, want %+v", i, d.Path, d.OldText, d.NewText, w)
		}
	}
	wantLocs := []struct {
		path string
		line int
	}{{a, 1}, {b, 1}, {c, 1}}
	if len(locs) != len(wantLocs) {
		t.Fatalf("locations %+v", locs)
	}
	for i, w := range wantLocs {
		if locs[i].Path != w.path || locs[i].Line == nil || *locs[i].Line != w.line {
			t.Errorf("location %d: %+v, want %+v", i, locs[i], w)
		}
	}
	if hs := requestHunks(permission.Request{Paths: []string{a}}); len(hs) != 0 {
		t.Errorf("a request without a change has hunks: %+v", hs)
	}
}
