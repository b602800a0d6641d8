//go:build unix

package confine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolveAndInside(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, "src"), filepath.Join(out, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(ws, "a.txt"), filepath.Join(out, "secret")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(out, "deep"), filepath.Join(ws, "link")))         // leads out
	must(os.Symlink("src", filepath.Join(ws, "rel")))                               // stays in
	must(os.Symlink(filepath.Join(ws, "loop"), filepath.Join(ws, "loop")))          // loops
	must(os.Link(filepath.Join(out, "secret"), filepath.Join(ws, "hard")))          // a second name
	must(os.Symlink(filepath.Join(ws, "a.txt"), filepath.Join(out, "back-in.txt"))) // outside pointing in
	roots := Roots([]string{ws})
	for _, tc := range []struct {
		dir, p string
		in     bool
	}{
		{ws, "a.txt", true},
		{ws, "new/file", true},
		{ws, "src/../a.txt", true},
		{ws, "..", false},
		{ws, "src/../../out/secret", false},
		{ws, "link", false},
		{ws, "link/x", false},
		{ws, "link/../secret", false},     // .. climbs from the link's target: out/secret
		{ws, "link/../../ws/a.txt", true}, // and back in
		{ws, "rel/../a.txt", true},
		{ws, "loop/x", false},
		{ws, "hard", false},
		{ws, filepath.Join(out, "back-in.txt"), true},
		{"", "a.txt", false},
		{ws, "/etc/passwd", false},
	} {
		if got := Inside(roots, tc.dir, tc.p); got != tc.in {
			real, _ := Resolve(tc.dir, tc.p)
			t.Errorf("Inside(%q, %q) = %v (resolved %q), want %v", tc.dir, tc.p, got, real, tc.in)
		}
	}
}
