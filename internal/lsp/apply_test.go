package lsp

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/lsp/overlay"
)

// textEdits must turn old into new when an editor applies them: checked by
// applying them to the overlay (which implements LSP's rules) in reverse
// order, as editors do for non-overlapping edits.
func TestTextEditsApply(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pieces := []string{"a", "é", "😀", "\n", "\r\n", "x y", "\t"}
	gen := func() string {
		var b strings.Builder
		for i := r.Intn(15); i > 0; i-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		return b.String()
	}
	for i := 0; i < 3000; i++ {
		old, new := gen(), gen()
		st := overlay.NewStore()
		if err := st.Open("file:///x", "go", 1, old); err != nil {
			t.Fatal(err)
		}
		edits := textEdits(old, new)
		var changes []overlay.Change
		for j := len(edits) - 1; j >= 0; j-- {
			e := edits[j]
			changes = append(changes, overlay.Change{Range: &overlay.Range{
				Start: overlay.Position{Line: uint32(e.Range.Start.Line), Character: uint32(e.Range.Start.Character)},
				End:   overlay.Position{Line: uint32(e.Range.End.Line), Character: uint32(e.Range.End.Character)},
			}, Text: e.NewText})
		}
		if len(changes) > 0 {
			if _, err := st.Change("file:///x", 2, changes); err != nil {
				t.Fatal(err)
			}
		}
		if got, _, _ := st.GetURI("file:///x"); got != new {
			t.Fatalf("old %q new %q: edits %+v give %q", old, new, edits, got)
		}
	}
}
