package client

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// BenchmarkReferences (P1) measures what the Client adds to a request:
// References through the Client (sync check, position conversion both
// ways, result conversion) against the same request sent straight over
// the same warm gopls connection, interleaved, alternating which goes
// first. It reports the median of the per-pair ratios (goal ≤ 1.05).
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
	var ours, raw, ratios []float64
	i := 0
	for b.Loop() {
		var o, r time.Duration
		if i%2 == 0 {
			o, r = viaClient(), direct()
		} else {
			r, o = direct(), viaClient()
		}
		i++
		ours, raw = append(ours, float64(o)), append(raw, float64(r))
		ratios = append(ratios, float64(o)/float64(r))
	}
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(median(ours), "client-ns")
	b.ReportMetric(median(raw), "direct-ns")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
