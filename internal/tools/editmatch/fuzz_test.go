package editmatch

import (
	"errors"
	"strings"
	"testing"
)

// FuzzApply builds a random file and a random edit of one block of it, the
// way a model would quote it (other indentation, shifted, trailing blanks,
// blank lines collapsed, dropped or added, CRLF, with or without final
// newline), together with the intended result computed independently of
// the matcher (fuzzgen_test.go). Apply must return exactly the intended
// text or an error; it must never change the file outside the block.
func FuzzApply(f *testing.F) {
	for _, seed := range []string{
		"", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
		"\x01\x01\x01\x10\x05\x02\x07\x01\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d",
		"\x02\x02\x00\x18\x02\x01\x01\x09\x09\x09\x09\x09\x03\x02\x01\x00\x03\x02\x01",
		"\x00\x00\x03\x09\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04",
		"\x01\x02\x01\x16\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, ok := genCase(&chooser{data: data})
		if !ok {
			return
		}
		checkCase(t, c)
	})
}

// chooser turns fuzz bytes into choices; once the bytes run out every
// choice is 0, which still gives a valid (small) case.
type chooser struct {
	data []byte
	pos  int
}

func (c *chooser) intn(n int) int {
	if n <= 1 || c.pos >= len(c.data) {
		return 0
	}
	b := c.data[c.pos]
	c.pos++
	return int(b) % n
}

func (c *chooser) oneIn(n int) bool { return c.intn(n) == 0 }

// checkCase runs one case: an error is fine, any other outcome must be
// the intended text (ignoring blank lines, where their place is unclear);
// a case matching several places must be refused.
func checkCase(t *testing.T, c fuzzCase) {
	t.Helper()
	res, err := Apply(c.content, c.edit)
	if err != nil {
		for _, target := range []error{ErrNotFound, ErrAmbiguous, ErrNoChange, ErrEmptyOld, ErrIndent, ErrBlankLines} {
			if errors.Is(err, target) {
				return
			}
		}
		t.Fatalf("untyped error: %v", err)
	}
	if c.mustRefuse {
		t.Fatalf("applied, but old_string matches several places\nfile %q\nold  %q\nnew  %q\ngot  %q", c.content, c.edit.Old, c.edit.New, res.Content)
	}
	if !strings.HasPrefix(res.Content, c.head) || !strings.HasSuffix(res.Content, c.tail) {
		t.Fatalf("text outside the block changed\nfile %q\nold  %q\nnew  %q\ngot  %q\nhead %q\ntail %q",
			c.content, c.edit.Old, c.edit.New, res.Content, c.head, c.tail)
	}
	got, want := res.Content, c.want
	if c.blankPlacement {
		got, want = withoutBlankLines(got), withoutBlankLines(want)
		if strings.Contains(c.content, "\r\n") && strings.Contains(strings.ReplaceAll(c.content, "\r\n", ""), "\n") {
			// In a file of mixed line breaks, where the blank lines go
			// also decides which break a new line next to them takes
			// (the replaced line's or the file's): both are the edit.
			got, want = strings.ReplaceAll(got, "\r\n", "\n"), strings.ReplaceAll(want, "\r\n", "\n")
		}
	}
	if got != want {
		t.Fatalf("wrong result (blank lines ignored: %v)\nfile %q\nold  %q\nnew  %q\ngot  %q\nwant %q",
			c.blankPlacement, c.content, c.edit.Old, c.edit.New, res.Content, c.want)
	}
	checkOutside(t, c.content, res)
}

// withoutBlankLines drops the blank lines of s (after a byte order
// mark) and its final line break: where blank lines go is unclear, so is
// whether one ends the file.
func withoutBlankLines(s string) string {
	s = strings.TrimPrefix(s, bom)
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.TrimSpace(l) != "" {
			b.WriteString(l)
		}
	}
	return strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), "\r")
}

// TestApplyRandom runs the fuzz property on fixed pseudo-random inputs, so
// plain go test covers it, and checks the generator is not degenerate:
// most cases must apply, not just end in an error.
func TestApplyRandom(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var skipped, applied, refused int
	seed := uint64(1)
	for range n {
		data := make([]byte, 64)
		for k := range data {
			seed = seed*6364136223846793005 + 1442695040888963407 // LCG: reproducible, no shared state
			data[k] = byte(seed >> 56)
		}
		c, ok := genCase(&chooser{data: data})
		if !ok {
			skipped++
			continue
		}
		checkCase(t, c)
		if t.Failed() {
			return
		}
		if _, err := Apply(c.content, c.edit); err != nil {
			refused++
		} else {
			applied++
		}
	}
	t.Logf("%d cases: %d applied as intended, %d refused, %d skipped", n, applied, refused, skipped)
	if applied < n/2 {
		t.Errorf("only %d of %d cases applied; the generator is degenerate", applied, n)
	}
}

// FuzzRawBytes feeds arbitrary bytes (invalid UTF-8, stray CRs, BOMs in
// odd places): Apply must not panic, must fail only with its typed
// errors, and must leave the lines outside Changed as they were.
func FuzzRawBytes(f *testing.F) {
	f.Add("a\r\nb\n\tc\r", "b\n  c", "x", false)
	f.Add("\ufeff\t\tx\n\n\n y", "x\n\ny", "", true)
	f.Add("\xff\xfe\t\u00a0a\rb", "\u00a0a", "\t\tz\n", false)
	f.Fuzz(func(t *testing.T, content, old, repl string, all bool) {
		res, err := Apply(content, Edit{Old: old, New: repl, ReplaceAll: all})
		if err != nil {
			for _, target := range []error{ErrNotFound, ErrAmbiguous, ErrNoChange, ErrEmptyOld, ErrIndent, ErrBlankLines} {
				if errors.Is(err, target) {
					return
				}
			}
			t.Fatalf("untyped error: %v", err)
		}
		if res.Content == content || res.Replacements < 1 {
			t.Fatalf("success without a change: %+v", res)
		}
		checkOutside(t, content, res)
	})
}
