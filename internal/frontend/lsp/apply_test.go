package lsp

import (
	"context"
	"errors"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/tools"
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

// TestApplyOpenRefusesAMovedBuffer: a change computed on a version the
// buffer has moved past is refused before anything is sent to the
// editor (a client without versioned edits would apply its line ranges
// to the new text).
func TestApplyOpenRefusesAMovedBuffer(t *testing.T) {
	s, err := newServer(context.Background(), Options{App: app.New(app.Options{DataDir: t.TempDir(), StateDir: t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeSession()
	path := filepath.Join(t.TempDir(), "a.go")
	if err := s.docs.Open(overlay.PathToURI(path), "go", 3, "a\nb\n"); err != nil {
		t.Fatal(err)
	}
	// s.conn is nil: the refusal must come before any request.
	_, err = editorApplier{s}.ApplyOpen(context.Background(), tools.FileChange{Path: path, Version: 2, Old: "a\nb\n", New: "a\nB\n"})
	var na *tools.NotAppliedError
	if !errors.As(err, &na) || !strings.Contains(err.Error(), "version 3, the edit is for version 2") {
		t.Fatalf("ApplyOpen on a moved buffer: %v", err)
	}
}
