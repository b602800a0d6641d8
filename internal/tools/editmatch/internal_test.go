package editmatch

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestSqueeze(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"   ", ""},
		{"a", "a"},
		{"  a  b\t\tc  ", "a b c"},
		{"\ta\r", "a"},
		{"x\u00a0=\u30001", "x = 1"},
		{"é  😀", "é 😀"},
		{"a\vb\fc", "a b c"},
	}
	for _, tc := range tests {
		if got := squeeze(tc.in); got != tc.want {
			t.Errorf("squeeze(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !sameSqueezed(tc.in, tc.want) {
			t.Errorf("sameSqueezed(%q, %q) = false", tc.in, tc.want)
		}
	}
	for _, tc := range []struct{ line, key string }{
		{"ab", "a b"}, {"a b", "ab"}, {"a b c", "a b"}, {"a", "a b"}, {"", "a"}, {"a", ""}, {"é", "e"},
	} {
		if sameSqueezed(tc.line, tc.key) {
			t.Errorf("sameSqueezed(%q, %q) = true", tc.line, tc.key)
		}
	}
}

func TestSplitLines(t *testing.T) {
	tests := []struct {
		body  string
		lines []string
		eols  []string
	}{
		{"", nil, nil},
		{"a", []string{"a"}, []string{""}},
		{"a\n", []string{"a"}, []string{"\n"}},
		{"a\r\nb", []string{"a", "b"}, []string{"\r\n", ""}},
		{"\n\n", []string{"", ""}, []string{"\n", "\n"}},
		{"a\rb\n", []string{"a\rb"}, []string{"\n"}},
		{"x\r", []string{"x\r"}, []string{""}},
	}
	for _, tc := range tests {
		tx := splitLines(tc.body)
		var lines, eols []string
		for i := range tx.n() {
			lines = append(lines, tx.line(i))
			eols = append(eols, tx.eol(i))
		}
		if !reflect.DeepEqual(lines, tc.lines) || !reflect.DeepEqual(eols, tc.eols) {
			t.Errorf("splitLines(%q) = %q %q, want %q %q", tc.body, lines, eols, tc.lines, tc.eols)
		}
	}
}

func TestMajorityEOL(t *testing.T) {
	tests := []struct{ body, want string }{
		{"", "\n"},
		{"a", "\n"},
		{"a\nb\n", "\n"},
		{"a\r\nb\r\n", "\r\n"},
		{"a\r\nb\nc\r\n", "\r\n"},
		{"a\nb\r\nc\n", "\n"},
		{"a\r\nb\n", "\r\n"}, // tie: the first line's
		{"a\nb\r\n", "\n"},
	}
	for _, tc := range tests {
		if got := majorityEOL(tc.body); got != tc.want {
			t.Errorf("majorityEOL(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestLFView(t *testing.T) {
	body := "a\r\nbc\r\n\r\nd"
	v := newLFView(body)
	if v.s != "a\nbc\n\nd" {
		t.Fatalf("view = %q", v.s)
	}
	// Each view offset maps to the body offset of the same character; an
	// LF that had a CR maps to before the CR.
	for off, want := range []int{0, 1, 3, 4, 5, 7, 9} {
		if got := v.bodyOffset(off); got != want {
			t.Errorf("bodyOffset(%d) = %d, want %d", off, got, want)
		}
	}
	if got := v.bodyOffset(len(v.s)); got != len(body) {
		t.Errorf("bodyOffset(end) = %d, want %d", got, len(body))
	}
}

func TestDetectStyle(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  style
	}{
		{"none", []string{"a", "b"}, style{noIndent, 0}},
		{"tabs", []string{"a", "\tb", "\t\tc"}, style{tabIndent, 0}},
		{"4 spaces", []string{"a", "    b", "        c", "    d"}, style{spaceIndent, 4}},
		{"2 spaces", []string{"a", "  b", "    c", "  d", "e"}, style{spaceIndent, 2}},
		{"first line from margin", []string{"  a"}, style{spaceIndent, 2}},
		{"alignment does not count", []string{"/*", " * a", " */", "\tx"}, style{tabIndent, 0}},
		{"tabs win ties", []string{"\ta", "    b"}, style{tabIndent, 4}},
		{"4 beats odd alignment", []string{"a(", "    b,", "      c)", "    d", "e", "    f"}, style{spaceIndent, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := detectStyle(true, tc.lines); got != tc.want {
				t.Errorf("detectStyle = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestLevels(t *testing.T) {
	tests := []struct {
		ind  string
		s    style
		n    int
		rest string
	}{
		{"\t\t", style{tabIndent, 0}, 2, ""},
		{"\t\t  ", style{tabIndent, 0}, 2, "  "},
		{"    ", style{tabIndent, 0}, 0, "    "},
		{"          ", style{spaceIndent, 4}, 2, "  "},
		{"    \t", style{spaceIndent, 4}, 1, "\t"},
		{"  ", style{spaceIndent, 0}, 0, "  "},
		{"  ", style{noIndent, 0}, 0, "  "},
	}
	for _, tc := range tests {
		n, rest := levels(tc.ind, tc.s)
		if n != tc.n || rest != tc.rest {
			t.Errorf("levels(%q, %+v) = %d, %q; want %d, %q", tc.ind, tc.s, n, rest, tc.n, tc.rest)
		}
		if got := render(n, rest, tc.s); tc.s.kind != noIndent && got != tc.ind {
			t.Errorf("render(levels(%q)) = %q", tc.ind, got)
		}
	}
}

func TestFitsStyle(t *testing.T) {
	tab, sp := style{tabIndent, 0}, style{spaceIndent, 4}
	tests := []struct {
		ind  string
		s    style
		want bool
	}{
		{"", tab, true}, {"\t", tab, true}, {"\t\t  ", tab, true}, {"    ", tab, false}, {"\t \t", tab, false},
		{"", sp, true}, {"    ", sp, true}, {"\t", sp, false}, {"  \t", sp, false},
		{"\t  ", style{}, true},
	}
	for _, tc := range tests {
		if got := fitsStyle(tc.ind, tc.s); got != tc.want {
			t.Errorf("fitsStyle(%q, %+v) = %v, want %v", tc.ind, tc.s, got, tc.want)
		}
	}
}

func TestPairLines(t *testing.T) {
	tests := []struct {
		name        string
		old, new    []string
		order, from []int
	}{
		{"same", []string{"a", "b"}, []string{"a", "b"}, []int{0, 1}, []int{0, 1}},
		{"one dropped", []string{"a", "}", "b", "}"}, []string{"a", "b", "}"}, []int{0, 2, 3}, []int{0, 2, 3}},
		{"added around", []string{"a", "b"}, []string{"x", "a", "y"}, []int{-1, 0, -1}, []int{-1, 0, -1}},
		{"blank lines pair in order, not by content", []string{"", "a"}, []string{"", "a"}, []int{0, 1}, []int{-1, 1}},
		{"duplicates", []string{"}", "x", "}"}, []string{"}", "y", "}", "x", "}"}, []int{0, -1, -1, 1, 2}, []int{0, -1, -1, 1, 2}},
		{"moved lines pair in from only", []string{"a", "b", "c"}, []string{"c", "a"}, []int{2, -1}, []int{2, 0}},
		{"trailing blanks do not count", []string{"a  ", "b"}, []string{"a", "b\t"}, []int{0, 1}, []int{0, 1}},
		{"blank runs keep to their kept line", []string{"a", "", "x", "", "b"}, []string{"a", "", "X", "", "b"},
			[]int{0, 1, -1, 3, 4}, []int{0, -1, -1, -1, 4}},
		{"a gap split by an insertion", []string{"a", "", "", "b"}, []string{"a", "", "X", "", "b"},
			[]int{0, 1, -1, 2, 3}, []int{0, -1, -1, -1, 3}},
		{"one of two blank lines dropped", []string{"a", "", "", "b"}, []string{"a", "", "b"}, []int{0, 1, 3}, []int{0, -1, 3}},
		{"blank lines added", []string{"a", "b"}, []string{"a", "", "b"}, []int{0, -1, 1}, []int{0, -1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pairLines(tc.old, tc.new)
			if !reflect.DeepEqual(got.order, tc.order) || !reflect.DeepEqual(got.from, tc.from) {
				t.Errorf("pairLines(%q, %q) = order %v from %v, want %v %v", tc.old, tc.new, got.order, got.from, tc.order, tc.from)
			}
		})
	}
}

func TestVisible(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\tx := 1", "⇥x := 1"},
		{"  x", "  x"},
		{"x  ", "x··"},
		{"a\tb", "a⇥b"},
		{"a\rb", "a␍b"},
		{"a\u00a0b", "a<U+00A0>b"},
		{"a\u200bb", "a<U+200B>b"},
		{"é 😀 漢字", "é 😀 漢字"},
		{"\t  \t", "⇥  ⇥"},
	}
	for _, tc := range tests {
		if got := visible(tc.in); got != tc.want {
			t.Errorf("visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNumbered(t *testing.T) {
	tests := []struct {
		lines []string
		want  bool
	}{
		{[]string{"  12│foo", "  13│bar"}, true},
		{[]string{"12\tfoo", "", "14\tbar"}, true},
		{[]string{"1: x"}, true},
		{[]string{"2 | func f() {", "3 |     x()"}, true},
		{[]string{"  12|foo", "  13|bar"}, true},
		{[]string{"12\tfoo"}, true},
		{[]string{"L12: foo", "L13: bar"}, true},
		{[]string{"  9 → a", " 10 → b"}, true},
		{[]string{"2 foo"}, false},
		{[]string{"12"}, false},
		{[]string{"L: x"}, false},
		{[]string{"Lx := 1"}, false},
		{[]string{"x | y"}, false},
		{[]string{"12│foo", "bar"}, false},
		{[]string{"x := 12"}, false},
		{[]string{""}, false},
	}
	for _, tc := range tests {
		if got := numbered(tc.lines); got != tc.want {
			t.Errorf("numbered(%q) = %v, want %v", tc.lines, got, tc.want)
		}
	}
}

func TestShiftRanges(t *testing.T) {
	hunks := []hunk{{oldFirst: 3, oldCount: 2, newFirst: 3, newCount: 4}, {oldFirst: 10, oldCount: 1, newFirst: 12, newCount: 0}}
	tests := []struct{ in, want LineRange }{
		{LineRange{1, 2}, LineRange{1, 2}},     // before: unchanged
		{LineRange{2, 3}, LineRange{2, 6}},     // into the hunk: grows to cover it
		{LineRange{4, 4}, LineRange{3, 6}},     // inside: becomes the hunk
		{LineRange{6, 8}, LineRange{8, 10}},    // between: +2
		{LineRange{10, 10}, LineRange{12, 11}}, // deleted
		{LineRange{11, 12}, LineRange{12, 13}}, // after both: +1
		{LineRange{7, 6}, LineRange{9, 8}},     // an empty range moves too
	}
	for _, tc := range tests {
		if got := shiftRanges([]LineRange{tc.in}, hunks); got[0] != tc.want {
			t.Errorf("shift %v = %v, want %v", tc.in, got[0], tc.want)
		}
	}
	merged := mergeRanges([]LineRange{{7, 9}, {1, 2}, {3, 3}, {5, 4}, {9, 12}})
	if want := []LineRange{{1, 3}, {5, 4}, {7, 12}}; !reflect.DeepEqual(merged, want) {
		t.Errorf("mergeRanges = %v, want %v", merged, want)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		is     error
		substr string
	}{
		{"not found", &NotFoundError{Diagnosis: "D"}, ErrNotFound, "not even when ignoring whitespace"},
		{"ambiguous", &AmbiguousError{Count: 2, Places: []LineRange{{1, 1}, {4, 5}}}, ErrAmbiguous, "(lines 1, 4-5)"},
		{"ambiguous fuzzy", &AmbiguousError{Count: 3, Fuzzy: true, Places: []LineRange{{2, 2}}}, ErrAmbiguous, "ignoring whitespace it matches 3 places (line 2)"},
		{"indent", &IndentError{NewLine: 2, FileLines: []int{4, 6}}, ErrIndent, "lines 4, 6 alike"},
		{"blank lines", &BlankLinesError{FileLines: LineRange{4, 5}, FileBlanks: 2, OldBlanks: 1}, ErrBlankLines,
			"the file has 2 blank lines at lines 4-5, where old_string has 1"},
		{"no blank lines", &BlankLinesError{FileLines: LineRange{7, 6}, OldBlanks: 1}, ErrBlankLines,
			"the file has no blank line just before line 7, where old_string has 1"},
		{"ambiguous loose", &AmbiguousError{Count: 2, Fuzzy: true, BlankLines: true, Places: []LineRange{{2, 4}, {6, 7}}}, ErrAmbiguous,
			"ignoring whitespace and blank lines it matches 2 places (lines 2-4, 6-7)"},
		{"edit", &EditError{Index: 2, Err: ErrEmptyOld}, ErrEmptyOld, "edit 2 failed, so no edits were applied"},
		{"edit wraps", &EditError{Index: 1, Err: &NotFoundError{}}, ErrNotFound, "edit 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.is) {
				t.Errorf("errors.Is(%T, %v) = false", tc.err, tc.is)
			}
			if !strings.Contains(tc.err.Error(), tc.substr) {
				t.Errorf("%q does not contain %q", tc.err.Error(), tc.substr)
			}
		})
	}
	var nf *NotFoundError
	_, err := Apply("alpha()\nbeta()\n", Edit{Old: "beta()\ngamma()", New: "x"})
	if !errors.As(err, &nf) || nf.Closest != (LineRange{2, 2}) {
		t.Errorf("want *NotFoundError closest line 2, got %v", err)
	}
	var ee *EditError
	_, err = ApplyAll("a\n", []Edit{{Old: "a", New: "b"}, {Old: "zzz", New: "y"}})
	if !errors.As(err, &ee) || ee.Index != 2 || !errors.As(err, &nf) {
		t.Errorf("want *EditError 2 wrapping *NotFoundError, got %v", err)
	}
}

// TestApplyAllIsSequentialApply checks ApplyAll against Apply in a loop.
func TestApplyAllIsSequentialApply(t *testing.T) {
	content := "a\n\tb\nc\nd\ne\n"
	edits := []Edit{
		{Old: "a\n", New: "a1\na2\n"},
		{Old: "    b", New: "    B"},
		{Old: "d", New: ""},
		{Old: "c\n", New: "c1\nc2\nc3\n"},
	}
	want := content
	for _, e := range edits {
		res, err := Apply(want, e)
		if err != nil {
			t.Fatal(err)
		}
		want = res.Content
	}
	res, err := ApplyAll(content, edits)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != want || !res.Fuzzy || res.Replacements != 4 {
		t.Errorf("ApplyAll = %+v, want content %q", res, want)
	}
	if got := fmt.Sprint(res.Changed); got != "[1-6]" {
		t.Errorf("Changed = %s", got)
	}
}
