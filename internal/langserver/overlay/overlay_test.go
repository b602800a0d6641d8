package overlay

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf16"
)

const uri = "file:///w/a.go"

func open(t testing.TB, text string) *Store {
	t.Helper()
	s := NewStore()
	if err := s.Open(uri, "go", 1, text); err != nil {
		t.Fatal(err)
	}
	return s
}

func rng(l1, c1, l2, c2 uint32) *Range {
	return &Range{Start: Position{l1, c1}, End: Position{l2, c2}}
}

func TestIncrementalChanges(t *testing.T) {
	tests := []struct {
		name, text string
		changes    []Change
		want       string
	}{
		{"insert ascii", "hello\nworld\n", []Change{{rng(1, 0, 1, 0), "big "}}, "hello\nbig world\n"},
		{"replace across lines", "one\ntwo\nthree\n", []Change{{rng(0, 1, 2, 2), "X"}}, "oXree\n"},
		{"insert newline", "ab", []Change{{rng(0, 1, 0, 1), "\n"}}, "a\nb"},
		{"after é (1 unit)", "é=1\n", []Change{{rng(0, 1, 0, 1), "x"}}, "éx=1\n"},
		{"after 😀 (2 units)", "😀=1\n", []Change{{rng(0, 2, 0, 2), "x"}}, "😀x=1\n"},
		{"replace astral", "a😀b", []Change{{rng(0, 1, 0, 3), "c"}}, "acb"},
		{"CJK", "日本語\n", []Change{{rng(0, 2, 0, 3), "人"}}, "日本人\n"},
		{"column past end clamps", "ab\ncd\n", []Change{{rng(0, 99, 0, 99), "!"}}, "ab!\ncd\n"},
		{"line past end appends", "ab\n", []Change{{rng(5, 0, 5, 0), "z"}}, "ab\nz"},
		{"delete trailing newline", "a\nb\n", []Change{{rng(1, 1, 2, 0), ""}}, "a\nb"},
		{"crlf kept", "a\r\nb\r\n", []Change{{rng(1, 0, 1, 1), "B"}}, "a\r\nB\r\n"},
		{"delete whole crlf line", "a\r\nb\r\nc", []Change{{rng(1, 0, 2, 0), ""}}, "a\r\nc"},
		{"lone cr is a line end", "a\rb", []Change{{rng(1, 0, 1, 1), "X"}}, "a\rX"},
		{"cr then inserted lf merges", "a\rb", []Change{{rng(1, 0, 1, 0), "\n"}}, "a\r\nb"},
		{"two changes in order", "abc", []Change{{rng(0, 0, 0, 1), "X"}, {rng(0, 2, 0, 3), "Y"}}, "XbY"},
		{"full replace", "old", []Change{{nil, "new\ntext"}}, "new\ntext"},
		{"full then incremental", "old", []Change{{nil, "ab"}, {rng(0, 1, 0, 1), "-"}}, "a-b"},
		{"empty doc insert", "", []Change{{rng(0, 0, 0, 0), "x\ny"}}, "x\ny"},
		{"join lines", "a\nb\nc\n", []Change{{rng(0, 1, 1, 0), ""}}, "ab\nc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, tt.text)
			if _, err := s.Change(uri, 2, tt.changes); err != nil {
				t.Fatal(err)
			}
			got, v, _ := s.GetURI(uri)
			if got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
			if v != 2 {
				t.Errorf("version = %d, want 2", v)
			}
			if want := naiveApply(tt.text, tt.changes); got != want {
				t.Errorf("text = %q, but the UTF-16 reference gives %q", got, want)
			}
		})
	}
}

func TestBadChanges(t *testing.T) {
	s := open(t, "abc")
	if _, err := s.Change("file:///w/never.go", 2, []Change{{nil, "x"}}); err == nil || !strings.Contains(err.Error(), "never opened") {
		t.Errorf("change to unopened doc: err = %v", err)
	}
	// An inverted range in a batch leaves the document untouched.
	_, err := s.Change(uri, 2, []Change{{rng(0, 0, 0, 1), "X"}, {rng(0, 2, 0, 1), "Y"}})
	if err == nil {
		t.Fatal("inverted range accepted")
	}
	if got, v, _ := s.GetURI(uri); got != "abc" || v != 1 {
		t.Errorf("after failed batch: %q v%d, want unchanged abc v1", got, v)
	}
	warn, err := s.Change(uri, 1, []Change{{nil, "z"}})
	if err != nil || !strings.Contains(warn, "does not increase") {
		t.Errorf("backwards version: warn=%q err=%v", warn, err)
	}
	if got, _, _ := s.GetURI(uri); got != "z" {
		t.Errorf("backwards version change not applied: %q", got)
	}
	for _, u := range []string{"untitled:Untitled-1", "https://x/y.go", "file://remote/x.go", "file:rel"} {
		if err := s.Open(u, "go", 1, "x"); err == nil {
			t.Errorf("Open(%q) accepted a non-file URI", u)
		}
	}
	if err := s.Close("file:///w/nope.go"); err == nil {
		t.Error("closing an unopened doc gave no error")
	}
}

func TestURIRoundTrip(t *testing.T) {
	for _, p := range []string{"/w/a.go", "/w/with space/é.go", "/w/100%.go", "/w/#hash.go"} {
		got, err := URIToPath(PathToURI(p))
		if err != nil || got != p {
			t.Errorf("round trip %q: %q, %v", p, got, err)
		}
	}
	if got, _ := URIToPath("file:///w/with%20space/a.go"); got != "/w/with space/a.go" {
		t.Errorf("percent-decoding: %q", got)
	}
}

// naiveApply is the reference: the whole text as UTF-16 code units, lines
// found by scanning for terminators, the range replaced.
func naiveApply(text string, changes []Change) string {
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		u := utf16.Encode([]rune(text))
		off := func(p Position) int {
			line, i := uint32(0), 0
			for line < p.Line {
				if i >= len(u) {
					return len(u)
				}
				switch u[i] {
				case '\n':
					line++
				case '\r':
					if i+1 < len(u) && u[i+1] == '\n' {
						i++
					}
					line++
				}
				i++
			}
			end := i
			for end < len(u) && u[end] != '\n' && u[end] != '\r' {
				end++
			}
			j := i + int(p.Character)
			if j > end {
				j = end
			}
			// Never split a surrogate pair.
			if j > i && j < len(u) && utf16.IsSurrogate(rune(u[j])) && u[j] >= 0xDC00 {
				j--
			}
			return j
		}
		a, b := off(c.Range.Start), off(c.Range.End)
		out := append([]uint16{}, u[:a]...)
		out = append(out, utf16.Encode([]rune(c.Text))...)
		out = append(out, u[b:]...)
		text = string(utf16.Decode(out))
	}
	return text
}

// TestRandomAgainstReference applies thousands of random changes, some
// with multi-byte and astral characters and every line ending, and checks
// each result against the UTF-16 reference.
func TestRandomAgainstReference(t *testing.T) {
	pieces := []string{"a", "é", "😀", "日", "\n", "\r\n", " ", "\t", "xyz", "\r"}
	r := rand.New(rand.NewSource(1))
	randText := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		return b.String()
	}
	for iter := 0; iter < 300; iter++ {
		text := randText(r.Intn(30))
		s := open(t, text)
		for step := 0; step < 20; step++ {
			cur, _, _ := s.GetURI(uri)
			lines := strings.Count(strings.ReplaceAll(cur, "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(cur, "\r\n", ""), "\r") + 1
			p1 := Position{uint32(r.Intn(lines + 1)), uint32(r.Intn(8))}
			p2 := Position{p1.Line + uint32(r.Intn(2)), uint32(r.Intn(8))}
			if p2.Line == p1.Line && p2.Character < p1.Character {
				p1, p2 = p2, p1
			}
			c := Change{Range: &Range{p1, p2}, Text: randText(r.Intn(4))}
			want := naiveApply(cur, []Change{c})
			if _, err := s.Change(uri, int32(step+2), []Change{c}); err != nil {
				t.Fatalf("iter %d step %d: %v", iter, step, err)
			}
			got, _, _ := s.GetURI(uri)
			if got != want {
				t.Fatalf("iter %d step %d: text %q change %+v %+v %q:\n got %q\nwant %q", iter, step, cur, c.Range.Start, c.Range.End, c.Text, got, want)
			}
		}
	}
}

func TestColumnConversion(t *testing.T) {
	s := "aé😀b"
	for _, tc := range []struct{ col, b int }{{0, 0}, {1, 1}, {2, 3}, {3, 3}, {4, 7}, {5, 8}, {99, 8}} {
		if got := UTF16ToByte(s, tc.col); got != tc.b {
			t.Errorf("UTF16ToByte(%d) = %d, want %d", tc.col, got, tc.b)
		}
	}
	if got := ByteToUTF16(s, 7); got != 4 {
		t.Errorf("ByteToUTF16(7) = %d, want 4", got)
	}
	if got := UTF16Len(s); got != 5 {
		t.Errorf("UTF16Len = %d, want 5", got)
	}
}

// BenchmarkIncrementalChange applies single-character edits at random lines
// of a 10,000-line document; the baseline sub-benchmark replaces the whole
// text per change, which is what a copy-per-change store would cost.
func BenchmarkIncrementalChange(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&sb, "\tline %d of the document with some text in it\n", i)
	}
	text := sb.String()
	r := rand.New(rand.NewSource(1))
	b.Run("lines", func(b *testing.B) {
		s := open(b, text)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			l := uint32(r.Intn(10000))
			if _, err := s.Change(uri, int32(i+2), []Change{{rng(l, 5, l, 5), "x"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("copy-baseline", func(b *testing.B) {
		b.ReportAllocs()
		cur := text
		for i := 0; i < b.N; i++ {
			off := r.Intn(len(cur))
			cur = cur[:off] + "x" + cur[off:]
		}
	})
}

func TestOffset(t *testing.T) {
	text := "ab\r\nçd😀e\rlast"
	for _, tc := range []struct {
		p    Position
		want int
	}{
		{Position{0, 0}, 0}, {Position{0, 9}, 2}, {Position{1, 1}, 6}, {Position{1, 4}, 11},
		{Position{2, 2}, 15}, {Position{9, 0}, len(text)},
	} {
		if got := Offset(text, tc.p); got != tc.want {
			t.Errorf("Offset(%+v) = %d, want %d", tc.p, got, tc.want)
		}
	}
}
