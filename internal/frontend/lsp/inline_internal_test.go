package lsp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

// around bounds what is sent: whole lines where the bound cuts, never a
// broken UTF-8 sequence, everything when the file is small.
func TestAround(t *testing.T) {
	long := strings.Repeat("// é line of text\n", 1000) // 19 bytes a line
	tests := []struct {
		name             string
		text             string
		off              int
		prefix, suffix   string
		checkPrefixStart bool
	}{
		{"small file", "ab\ncd", 3, "ab\n", "cd", false},
		{"at the start", "abc", 0, "", "abc", false},
		{"at the end", "abc", 3, "abc", "", false},
	}
	for _, tt := range tests {
		p, s := around(tt.text, tt.off)
		if p != tt.prefix || s != tt.suffix {
			t.Errorf("%s: around = %q, %q; want %q, %q", tt.name, p, s, tt.prefix, tt.suffix)
		}
	}
	mid := len(long) / 2
	mid -= mid % 19 // a line start
	p, s := around(long, mid+5)
	if len(p) > maxPrefixBytes || len(s) > maxSuffixBytes {
		t.Errorf("prefix %d bytes, suffix %d: over the bounds", len(p), len(s))
	}
	if !strings.HasPrefix(p, "// é") || !strings.HasSuffix(s, "\n") {
		t.Errorf("the bounds cut lines: prefix starts %q, suffix ends %q", p[:8], s[len(s)-8:])
	}
	if !strings.HasSuffix(p, "// é") || !strings.HasPrefix(s, " line") {
		t.Errorf("the cursor moved: prefix ends %q, suffix starts %q", p[len(p)-8:], s[:8])
	}
}

func TestTidy(t *testing.T) {
	tests := []struct{ ans, suffix, want string }{
		{"return a + b\n\n", "\n}\n", "return a + b"},
		{"return a + b", "", "return a + b"},
		{"x, y)", ")\n", "x, y"},
		{"x, y) {", ") {\n", "x, y"},
		{"x, y", ")\n", "x, y"},
		{"first\nsecond\n", "  \n}", "first\nsecond"},
	}
	for _, tt := range tests {
		if got := tidy(tt.ans, tt.suffix); got != tt.want {
			t.Errorf("tidy(%q, %q) = %q, want %q", tt.ans, tt.suffix, got, tt.want)
		}
	}
}

// The cache answers the same cursor, and a cursor the person moved by
// typing what the answer showed; anything else asks the model again.
func TestCompleterCache(t *testing.T) {
	c := newCompleter(nil, config.Completion{})
	c.store(cached{path: "/w/a.go", prefix: "func f() {\n\t", suffix: "\n}", text: "return 1"})
	tests := []struct {
		name, path, prefix, suffix string
		want                       string
		hit                        bool
	}{
		{"same cursor", "/w/a.go", "func f() {\n\t", "\n}", "return 1", true},
		{"typed along", "/w/a.go", "func f() {\n\tret", "\n}", "urn 1", true},
		{"typed all of it", "/w/a.go", "func f() {\n\treturn 1", "\n}", "", false},
		{"typed something else", "/w/a.go", "func f() {\n\tx", "\n}", "", false},
		{"the text after changed", "/w/a.go", "func f() {\n\t", "\n}\n", "", false},
		{"another file", "/w/b.go", "func f() {\n\t", "\n}", "", false},
	}
	for _, tt := range tests {
		got, ok := c.lookup(tt.path, tt.prefix, tt.suffix)
		if got != tt.want || ok != tt.hit {
			t.Errorf("%s: lookup = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.hit)
		}
	}
	for i := range maxCachedCompletions + 5 {
		c.store(cached{path: "/w/c.go", prefix: strings.Repeat("x", i), text: "y"})
	}
	if len(c.cache) != maxCachedCompletions {
		t.Errorf("cache holds %d answers, want %d", len(c.cache), maxCachedCompletions)
	}
}

// identsNear looks up the names nearest the cursor first, each once,
// without the word being typed, keywords, single letters or comments.
func TestIdentsNear(t *testing.T) {
	text := "package calc\n\n// Helper is not looked up.\nfunc Total(xs []int) int {\n\ts := Sum(xs...) + Max(1)\n\treturn Sca\n}\nvar after = Other\n"
	off := strings.Index(text, "Sca") + 3
	var got []string
	for _, id := range identsNear(text, off, "//") {
		got = append(got, id.name)
	}
	want := []string{"Max", "xs", "Sum", "Total", "calc", "after", "Other"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("identsNear = %v, want %v", got, want)
	}
	ids := identsNear("é := Sum(1)\n", len("é := Sum"), "")
	if len(ids) != 0 {
		t.Errorf("the word at the cursor was looked up: %+v", ids)
	}
	ids = identsNear("é := Sum(1)\nx", len("é := Sum(1)\nx"), "")
	if len(ids) != 1 || ids[0].name != "Sum" || ids[0].line != 0 || ids[0].col != 5 {
		t.Errorf("identsNear = %+v, want Sum at line 0, code-point column 5", ids)
	}
}

// signature keeps a hover's declaration: its code block, else its first
// paragraph, clipped in whole lines.
func TestSignature(t *testing.T) {
	tests := []struct{ md, want string }{
		{"```go\nfunc Sum(xs ...int) int\n```\n\n---\n\nSum adds.", "func Sum(xs ...int) int"},
		{"def total(a, b)\n\nAdds them.", "def total(a, b)"},
		{"", ""},
		// pyright lays a long parameter list out one a line.
		{"```python\n(function) def scale(\n    value: int,\n    factor: int\n) -> int\n```\n---\nScales.", "(function) def scale(value: int, factor: int) -> int"},
		{"```python\n(function) def f(\n    a: int,\n    b: int,\n) -> None\n```", "(function) def f(a: int, b: int,) -> None"},
		// A struct's fields stay one a line.
		{"```go\ntype T struct {\n\tA int\n\tB string\n}\n```", "type T struct {\n\tA int\n\tB string\n}"},
		{"```go\n" + strings.Repeat("field int\n", 100) + "```", strings.TrimSuffix(strings.Repeat("field int\n", maxSymbolBytes/10), "\n")},
	}
	for _, tt := range tests {
		if got := signature(tt.md); got != tt.want {
			t.Errorf("signature(%.30q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}
