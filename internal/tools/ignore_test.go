package tools

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
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
		{"trailing tab dropped", []string{"x.txt\t"}, "x.txt", false, true},
		{"escaped trailing space kept", []string{`x\ `}, "x ", false, true},
		{"suffix at any depth", []string{"*_test.go"}, "a/b_test.go", false, true},
		{"suffix needs the whole name", []string{"*_test.go"}, "a/b_test.go.txt", false, false},
		{"name does not match a longer one", []string{"build"}, "a/rebuild", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := newIgnoreList("/r", tc.lines, false)
			if err != nil {
				t.Fatal(err)
			}
			dir, name := "", tc.path
			if i := strings.LastIndexByte(tc.path, '/'); i >= 0 {
				dir, name = tc.path[:i], tc.path[i+1:]
			}
			got, _ := l.match(dir, name, tc.isDir)
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

// TestClassifyGlob checks the string comparisons that stand for
// doublestar agree with it.
func TestClassifyGlob(t *testing.T) {
	patterns := []string{"**/foo", "**/*.go", "**/*_test.go", "a/b", "foo", "**/*", "*.go", "**/a*b", "a/**", "**/.env"}
	paths := []string{"foo", "a/foo", "a/b/foo", "foo.go", "x/y_test.go", "y_test.go.bak", "a/b", "a/b/c", "b", ".go", "a/.env", ".env", "ab", "a/xb"}
	for _, p := range patterns {
		kind, lit := classifyGlob(p)
		for _, rel := range paths {
			name := rel[strings.LastIndexByte(rel, '/')+1:]
			if got, want := matchGlob(kind, p, lit, rel, name), doublestar.MatchUnvalidated(p, rel); got != want {
				t.Errorf("%q on %q: %v (kind %d), doublestar says %v", p, rel, got, kind, want)
			}
		}
	}
}
