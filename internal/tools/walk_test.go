package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// walkRels walks base and returns every visited path, relative to base.
func walkRels(t *testing.T, ws *Workspace, base string, extra *ignoreList) []string {
	t.Helper()
	var got []string
	_, err := ws.walk(context.Background(), base, extra, func(e walkEntry) walkAction {
		got = append(got, e.rel)
		return walkContinue
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func TestWalkGitignore(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{
		".gitignore":          "*.log\nbuild/\n/top.txt\n",
		".git/HEAD":           "ref",
		".git/info/exclude":   "excluded.txt\n",
		"excluded.txt":        "",
		"top.txt":             "",
		"a.go":                "",
		"debug.log":           "",
		"build/out.bin":       "",
		"node_modules/m/x.js": "",
		"sub/.gitignore":      "!keep.log\nlocal/\n",
		"sub/keep.log":        "",
		"sub/drop.log.txt":    "",
		"sub/top.txt":         "",
		"sub/local/y.go":      "",
		"sub/z.go":            "",
		"other/local/w.go":    "",
	})
	got := walkRels(t, ws, root, nil)
	want := []string{".gitignore", "a.go", "other", "other/local", "other/local/w.go", "sub", "sub/.gitignore", "sub/drop.log.txt", "sub/keep.log", "sub/top.txt", "sub/z.go"}
	if !slices.Equal(got, want) {
		t.Errorf("walk root:\n got %q\nwant %q", got, want)
	}

	// Walking a subfolder still applies the root's .gitignore.
	writeFiles(t, root, map[string]string{"sub/deep/x.log": "", "sub/deep/x.go": ""})
	got = walkRels(t, ws, filepath.Join(root, "sub"), nil)
	want = []string{".gitignore", "deep", "deep/x.go", "drop.log.txt", "keep.log", "top.txt", "z.go"}
	if !slices.Equal(got, want) {
		t.Errorf("walk sub:\n got %q\nwant %q", got, want)
	}

	// Naming an ignored folder lists it.
	got = walkRels(t, ws, filepath.Join(root, "build"), nil)
	if !slices.Equal(got, []string{"out.bin"}) {
		t.Errorf("walk build = %q, want [out.bin]", got)
	}
}

func TestWalkDoesNotFollowSymlinks(t *testing.T) {
	ws, root := newTestWS(t, nil)
	out := outsideDir(t)
	writeFiles(t, root, map[string]string{"a.txt": ""})
	if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	got := walkRels(t, ws, root, nil)
	if !slices.Equal(got, []string{"a.txt", "link"}) {
		t.Errorf("walk = %q, want the link reported but not entered", got)
	}
}

func TestWalkBreadthFirstAndStop(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{"a/b/c/deep.txt": "", "z.txt": ""})
	var order []string
	_, err := ws.walk(context.Background(), root, nil, func(e walkEntry) walkAction {
		order = append(order, e.rel)
		if e.rel == "a/b" {
			return walkStop
		}
		return walkContinue
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "z.txt", "a/b"}; !slices.Equal(order, want) {
		t.Errorf("order = %q, want %q", order, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.walk(ctx, root, nil, func(walkEntry) walkAction { return walkContinue }); err == nil {
		t.Error("walk ignored a cancelled context")
	}
	if _, err := ws.walk(context.Background(), filepath.Join(root, "missing"), nil, func(walkEntry) walkAction { return walkContinue }); err == nil {
		t.Error("walk of a missing base gave no error")
	}
}

func TestRelTo(t *testing.T) {
	tests := []struct {
		dir, p, want string
		ok           bool
	}{
		{"/r", "/r/a/b", "a/b", true},
		{"/r", "/r", "", false},
		{"/r", "/rx/a", "", false},
		{"/r", "/other", "", false},
		{"/", "/a", "a", true},
	}
	for _, tc := range tests {
		got, ok := relTo(tc.dir, tc.p)
		if got != tc.want || ok != tc.ok {
			t.Errorf("relTo(%q, %q) = %q, %v; want %q, %v", tc.dir, tc.p, got, ok, tc.want, tc.ok)
		}
	}
}
