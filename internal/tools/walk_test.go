package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestIgnoreListMatch(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		path  string
		isDir bool
		want  bool
	}{
		{"basename at any depth", []string{"*.log"}, "a/b/x.log", false, true},
		{"basename no match", []string{"*.log"}, "a/b/x.go", false, false},
		{"question mark is one character", []string{"file?.txt"}, "file1.txt", false, true},
		{"question mark needs a character", []string{"file?.txt"}, "file.txt", false, false},
		{"plus is literal", []string{"a+b"}, "a+b", false, true},
		{"plus is not a regexp", []string{"a+b"}, "aab", false, false},
		{"inner slash anchors", []string{"docs/build"}, "docs/build", true, true},
		{"inner slash does not float", []string{"docs/build"}, "x/docs/build", true, false},
		{"leading slash anchors", []string{"/out"}, "out", true, true},
		{"leading slash anchors, deeper", []string{"/out"}, "a/out", true, false},
		{"dir-only pattern on a folder", []string{"build/"}, "x/build", true, true},
		{"dir-only pattern skips files", []string{"build/"}, "build", false, false},
		{"negation re-includes", []string{"*.log", "!keep.log"}, "keep.log", false, false},
		{"last match wins", []string{"!keep.log", "*.log"}, "keep.log", false, true},
		{"comment ignored", []string{"#x"}, "#x", false, false},
		{"escaped hash", []string{`\#x`}, "#x", false, true},
		{"braces are literal", []string{"{a,b}"}, "a", false, false},
		{"braces match themselves", []string{"{a,b}"}, "{a,b}", false, true},
		{"trailing spaces dropped", []string{"x.txt  "}, "x.txt", false, true},
		{"CR dropped", []string{"x.txt\r"}, "x.txt", false, true},
		{"double star inside", []string{"a/**/b"}, "a/x/y/b", false, true},
		{"double star zero folders", []string{"a/**/b"}, "a/b", false, true},
		{"trailing double star matches inside", []string{"gen/**"}, "gen/x/y.go", false, true},
		{"trailing double star not the folder", []string{"gen/**"}, "gen", true, false},
		{"character class", []string{"[ab].txt"}, "b.txt", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := newIgnoreList("/r", tc.lines, false)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := l.match(tc.path, tc.isDir)
			if got != tc.want {
				t.Errorf("%q on %q (dir %v) = %v, want %v", tc.lines, tc.path, tc.isDir, got, tc.want)
			}
		})
	}
	if _, err := newIgnoreList("/r", []string{"[unclosed"}, false); err == nil {
		t.Error("strict list accepted an invalid pattern")
	}
	if l, err := newIgnoreList("/r", []string{"[unclosed", "*.tmp"}, true); err != nil || len(l.rules) != 1 {
		t.Errorf("lenient list: %v, %d rules; want the invalid line skipped and 1 rule", err, len(l.rules))
	}
}

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
