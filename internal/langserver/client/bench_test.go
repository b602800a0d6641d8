package client

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/benchpair"
)

// BenchmarkReferences (P1) measures what the Client adds to a request:
// References through the Client (sync check, position conversion both
// ways, result conversion) against the same request sent straight over
// the same warm gopls connection, interleaved, alternating which goes
// first (benchpair). It reports the medians (ours-us, base-us) and the
// median of the per-pair ratios (goal ≤ 1.05).
func BenchmarkReferences(b *testing.B) {
	dir := copyFixture(b, "hello")
	m := goplsManager(b, newTestWS(dir), nil)
	ctx := context.Background()
	use := filepath.Join(dir, "use.go")
	line, col := find(b, use, "Hello", 2)
	c, err := m.ClientFor(ctx, use)
	if err != nil {
		b.Fatal(err)
	}
	for range 50 { // warm gopls's caches
		if _, err := c.References(ctx, use, line, col, true); err != nil {
			b.Fatal(err)
		}
	}
	s := c.current()
	d, err := s.syncDoc(use)
	if err != nil {
		b.Fatal(err)
	}
	p, err := d.text.toServer(s.enc, line, col)
	if err != nil {
		b.Fatal(err)
	}
	params := &protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(d.uri)},
			Position:     protocol.Position{Line: p.Line, Character: p.Character},
		},
		Context: protocol.ReferenceContext{IncludeDeclaration: true},
	}
	viaClient := func() time.Duration {
		t0 := time.Now()
		locs, err := c.References(ctx, use, line, col, true)
		if err != nil || len(locs) != 3 {
			b.Fatalf("client: %v %v", locs, err)
		}
		return time.Since(t0)
	}
	direct := func() time.Duration {
		t0 := time.Now()
		var locs []protocol.Location
		if _, err := s.conn.Call(ctx, "textDocument/references", params, &locs); err != nil || len(locs) != 3 {
			b.Fatalf("direct: %v %v", locs, err)
		}
		return time.Since(t0)
	}
	benchpair.Run(b, time.Microsecond, viaClient, direct)
}
