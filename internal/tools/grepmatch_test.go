package tools

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string // nil: nothing to look for
	}{
		{`func NewReader\(`, []string{"func NewReader("}},
		{`func \w+Handler`, []string{"Handler"}},
		{`^\s*//\s*TODO`, []string{"TODO"}},
		{`foo|bar`, []string{"bar", "foo"}},
		{`(foo|bar)baz`, []string{"barbaz", "foobaz"}},
		{`colou?r`, []string{"color", "colour"}},
		{`ab[cd]ef`, []string{"abcef", "abdef"}},
		{`(?i)todo`, []string{"TODO", "TODo", "TOdO", "TOdo", "ToDO", "ToDo", "TodO", "Todo", "tODO", "tODo", "tOdO", "tOdo", "toDO", "toDo", "todO", "todo"}},
		{`(?i)k`, []string{"K", "k", "\u212a"}},
		{`a.*b`, []string{"a"}},
		{`.*`, nil},
		{`\w+`, nil},
		{`x*`, nil},
		{`foo|\w+`, nil},
		{`(ab){2}`, []string{"abab"}},
		{`a{2,}b`, []string{"a"}},
		{`\x{FFFD}x`, []string{"x"}},
		{`[a-z]+_test`, []string{"_test"}},
	}
	for _, tc := range tests {
		tree, err := syntax.Parse(tc.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := requiredLiterals(tree.Simplify())
		if got != nil {
			got = dedupe(slices.Clone(got))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("requiredLiterals(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

// lineByLine is grep's reference: the regexp on every line, as grep
// searched before its prefilter.
func lineByLine(re *regexp.Regexp, text string) []string {
	var out []string
	n := 0
	for line := range strings.Lines(text) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if loc := re.FindStringIndex(line); loc != nil {
			out = append(out, fmt.Sprintf("%d:%d:%s", n, loc[0], line))
		}
	}
	return out
}

func scanned(m *lineMatcher, text string) []string {
	var out []string
	m.scan([]byte(text), func(n int, line []byte, start int) bool {
		out = append(out, fmt.Sprintf("%d:%d:%s", n, start, line))
		return true
	})
	return out
}

// TestLineMatcherAgreesWithLineByLine checks the prefilter never drops or
// adds a line, nor moves a match, against the regexp run on every line,
// on random texts made of the patterns' own pieces, line breaks (\n,
// \r\n, a lone \r) and invalid UTF-8.
func TestLineMatcherAgreesWithLineByLine(t *testing.T) {
	patterns := []string{
		`func NewReader\(`, `NewReader`, `ab`, `a`, `b$`, `^a`, `^ab$`, `a\r`, `a\nb`,
		`(?i)ab`, `(?i)k`, `foo|bar`, `(foo|bar)b`, `colou?r`, `a[bc]d`, `\bab\b`,
		`a.b`, `\w+b`, `(?m)^b`, `\Aa`, `b\z`, `[^a]b`, `(?s)a.b`, `\x{FFFD}`, `a\x{FFFD}`,
		`(ab){2}`, `a{2,}`, `()`, `$`, `^`, `x*`, `é`, `(?i)é`, `K`, "\u212a",
		`(?i)newreader`, `(?i)new(reader|writer)`, `(?i)stra(ß|ss)e`, `(?i)s`, `a|\w+b`, `[ab]{2}`, `(?i)[k]ab`, `^[0-9]{2,}$`, `[0-9]x|ab`,
	}
	pieces := []string{"a", "b", "ab", "k", "K", "\u212a", "foo", "bar", "colour", "color", "func NewReader(",
		"NewReader", " ", "\n", "\r\n", "\r", "\xff", "é", "É", "abd", "acd", "x", "\t",
		"newreader", "NEWREADER", "NewWriter", "ſ", "s", "S", "straße", "STRASSE", "ẞ", "1", "23", "4x"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns {
		m, err := newLineMatcher(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		re := regexp.MustCompile(p)
		for range 500 {
			var b strings.Builder
			for range rng.IntN(40) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			text := b.String()
			if got, want := scanned(m, text), lineByLine(re, text); !slices.Equal(got, want) {
				t.Fatalf("pattern %q on %q:\n got %q\nwant %q", p, text, got, want)
			}
		}
	}
}

func TestLineMatcherStops(t *testing.T) {
	m, err := newLineMatcher("x")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	m.scan([]byte("x\nx\nx\n"), func(int, []byte, int) bool {
		calls++
		return calls < 2
	})
	if calls != 2 {
		t.Errorf("scan went on after fn returned false: %d calls, want 2", calls)
	}
}
