package hunks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	old := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	new := "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nnine and a half\nten\n"
	hs := Split(old, new)
	if len(hs) != 2 {
		t.Fatalf("%d hunks: %+v", len(hs), hs)
	}
	if h := hs[0]; h.ID != 1 || h.OldStart != 2 || h.OldLines != 1 || h.NewStart != 2 || h.NewLines != 1 {
		t.Errorf("hunk 1 = %+v", h)
	}
	if h := hs[1]; h.ID != 2 || h.OldStart != 10 || h.OldLines != 0 || h.NewStart != 10 || h.NewLines != 1 {
		t.Errorf("hunk 2 (an insertion before line 10) = %+v", h)
	}
	want := "@@ -1,5 +1,5 @@\n one\n-two\n+TWO\n three\n four\n five\n"
	if hs[0].Diff != want {
		t.Errorf("hunk 1 diff:\n%s\nwant\n%s", hs[0].Diff, want)
	}
	if !strings.Contains(hs[1].Diff, " nine\n+nine and a half\n ten\n") {
		t.Errorf("hunk 2 diff:\n%s", hs[1].Diff)
	}
	if got := Split("", "new file\n"); len(got) != 1 || got[0].OldLines != 0 || got[0].NewLines != 1 {
		t.Errorf("a new file = %+v", got)
	}
	if got := Split("same\n", "same\n"); len(got) != 0 {
		t.Errorf("no change = %+v", got)
	}
}

func TestApply(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\n"
	new := "A\nb\nc\nd\ne\nf\nG\nh\n"
	for _, tt := range []struct {
		accept   []int
		want     string
		rejected []int
	}{
		{[]int{1, 2}, new, nil},
		{[]int{1}, "A\nb\nc\nd\ne\nf\ng\n", []int{2}},
		{[]int{2}, "a\nb\nc\nd\ne\nf\nG\nh\n", []int{1}},
		{nil, old, []int{1, 2}},
	} {
		got, rej, err := Apply(old, new, tt.accept)
		var ids []int
		for _, h := range rej {
			ids = append(ids, h.ID)
		}
		if err != nil || got != tt.want || !slices.Equal(ids, tt.rejected) {
			t.Errorf("Apply(%v) = %q, rejected %v, %v; want %q, rejected %v", tt.accept, got, ids, err, tt.want, tt.rejected)
		}
	}
	if _, _, err := Apply(old, new, []int{3}); err == nil || !strings.Contains(err.Error(), "hunks 1 to 2") {
		t.Errorf("an unknown hunk: %v", err)
	}
	// CRLF lines keep their ends; a last line without a newline is a line.
	old, new = "x\r\nkeep\r\ny", "X\r\nkeep\r\ny\r\nz"
	if hs := Split(old, new); len(hs) != 2 {
		t.Fatalf("CRLF hunks = %+v", hs)
	}
	if got, _, _ := Apply(old, new, []int{1}); got != "X\r\nkeep\r\ny" {
		t.Errorf("CRLF, first hunk only = %q", got)
	}
	if got, _, _ := Apply(old, new, []int{2}); got != "x\r\nkeep\r\ny\r\nz" {
		t.Errorf("CRLF, second hunk only = %q", got)
	}
}

// TestApplyProperty: on random changes, accepting every hunk gives the
// proposal, none gives the original, and accepting a subset then the rest
// of the hunks of what remains gives the proposal again.
func TestApplyProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha\n", "beta\n", "gamma\n", "delta\n", "x\n", "\n", "}\n"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	for i := range 500 {
		old, new := text(r.IntN(30)), text(r.IntN(30))
		hs := Split(old, new)
		var all, some []int
		for _, h := range hs {
			all = append(all, h.ID)
			if r.IntN(2) == 0 {
				some = append(some, h.ID)
			}
		}
		if got, _, _ := Apply(old, new, all); got != new {
			t.Fatalf("case %d: all hunks of %q → %q gave %q", i, old, new, got)
		}
		if got, _, _ := Apply(old, new, nil); got != old {
			t.Fatalf("case %d: no hunk gave %q", i, got)
		}
		mid, rej, _ := Apply(old, new, some)
		if len(rej) != len(hs)-len(some) {
			t.Fatalf("case %d: %d rejected of %d, %d accepted", i, len(rej), len(hs), len(some))
		}
		var rest []int
		for _, h := range Split(mid, new) {
			rest = append(rest, h.ID)
		}
		if got, _, _ := Apply(mid, new, rest); got != new {
			t.Fatalf("case %d: %s", i, fmt.Sprintf("the rest after %v gave %q, want %q", some, got, new))
		}
	}
}
