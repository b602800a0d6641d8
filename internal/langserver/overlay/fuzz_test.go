package overlay

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzIncrementalChange applies one or two didChange range edits, with
// any text, positions and line endings, and checks the result against the
// UTF-16 reference (naiveApply), the document's line structure (each line
// ends at its one terminator; only the last may lack one) and the batch
// rule (a refused batch leaves the document as it was).
func FuzzIncrementalChange(f *testing.F) {
	f.Add("hello\nworld\n", "big ", uint16(1), uint16(0), uint16(1), uint16(0), "", false)
	f.Add("a\rb", "\n", uint16(1), uint16(0), uint16(1), uint16(0), "x", true)
	f.Add("a\r\nb\r\nc", "", uint16(1), uint16(0), uint16(2), uint16(0), "\r", true)
	f.Add("😀=1\n", "x", uint16(0), uint16(1), uint16(0), uint16(3), "é", false)
	f.Add("日本語\n", "人\r\n", uint16(0), uint16(2), uint16(9), uint16(9), "\n\r", true)
	f.Add("", "x\ny", uint16(0), uint16(0), uint16(0), uint16(0), "", false)
	f.Fuzz(func(t *testing.T, text, ins string, l1, c1, l2, c2 uint16, ins2 string, second bool) {
		if len(text) > 1<<12 || len(ins) > 1<<10 || len(ins2) > 1<<10 {
			return
		}
		if !utf8.ValidString(text) || !utf8.ValidString(ins) || !utf8.ValidString(ins2) {
			return // didOpen and didChange carry JSON strings: valid UTF-8
		}
		changes := []Change{{Range: &Range{Start: Position{uint32(l1), uint32(c1)}, End: Position{uint32(l2), uint32(c2)}}, Text: ins}}
		if second {
			// A second change on the result of the first: the same range
			// with the ends swapped, which may be inverted.
			changes = append(changes, Change{Range: &Range{Start: Position{uint32(l2), uint32(c1)}, End: Position{uint32(l1), uint32(c2)}}, Text: ins2})
		}
		s := NewStore()
		if err := s.Open(uri, "go", 1, text); err != nil {
			t.Fatal(err)
		}
		_, err := s.Change(uri, 2, changes)
		got, v, _ := s.GetURI(uri)
		if err != nil {
			if v != 1 || got != text {
				t.Fatalf("refused change left %q v%d, want %q v1", got, v, text)
			}
			for _, c := range changes {
				r := c.Range
				if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Character < r.Start.Character {
					return // an inverted range is refused
				}
			}
			t.Fatalf("change %+v refused: %v", changes, err)
		}
		if want := naiveApply(text, changes); got != want {
			t.Fatalf("text %q, changes %+v %+v:\n got %q\nwant %q", text, changes[0].Range, changes[0].Text, got, want)
		}
		checkLines(t, s)
	})
}

// checkLines checks the document's lines are what splitting its text
// gives: the stored structure did not drift from the text.
func checkLines(t *testing.T, s *Store) {
	t.Helper()
	path, _ := URIToPath(uri)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[path]
	joined := strings.Join(d.lines, "")
	if want := splitLines(joined); !slices.Equal(d.lines, want) {
		t.Fatalf("lines %q are not the split of their text %q (%q)", d.lines, joined, want)
	}
	if d.Text() != joined {
		t.Fatalf("Text() = %q, lines join to %q", d.Text(), joined)
	}
}
