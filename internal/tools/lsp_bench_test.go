package tools

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/client"
)

// BenchmarkLSPEditDiagnostics (P6) measures an edit until its correct
// diagnostics are returned, on gopls: the edit tool (write, announce,
// fresh diagnostics in the result) against the naive way on a second
// gopls over a copy of the fixture: write, announce, wait a fixed 300 ms,
// take what gopls published. Each iteration introduces or fixes an error,
// alternately, and the two are measured in alternating order. It reports
// the ratio of the medians (goal ≤ 0.5) and how often the naive result
// was stale.
func BenchmarkLSPEditDiagnostics(b *testing.B) {
	requireProgram(b, "gopls")
	ours := newBenchFixture(b, client.Config{})
	// The naive client: gopls in its default push mode (init options set,
	// so no pull diagnostics).
	naive := newBenchFixture(b, client.Config{Servers: map[string]config.ServerConfig{"gopls": {InitOptions: map[string]any{}}}})
	ctx := context.Background()
	use := "use.go"
	good := goCase.files[use]
	bad := strings.Replace(good, `Hello("wörld")`, `Hello(42)`, 1)

	ours.must("view", map[string]any{"file_path": use})
	ours.must("lsp_diagnostics", map[string]any{"file_path": use})
	nm, err := naive.env.Manager()
	if err != nil {
		b.Fatal(err)
	}
	nuse := naive.path(use)
	nc, err := nm.ClientFor(ctx, nuse)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := nc.Diagnostics(ctx, nuse); err != nil {
		b.Fatal(err)
	}

	broken := false
	edit := func() time.Duration {
		from, to := good, bad
		if broken {
			from, to = bad, good
		}
		start := time.Now()
		out := ours.must("edit", map[string]any{"file_path": use, "old_string": from, "new_string": to})
		d := time.Since(start)
		if strings.Contains(out, "cannot use 42") != !broken {
			b.Fatalf("the edit's diagnostics are wrong (error expected: %v):\n%s", !broken, out)
		}
		return d
	}
	stale := 0
	fixed := func() time.Duration {
		text := good
		if !broken {
			text = bad
		}
		start := time.Now()
		if err := WriteFileAtomic(nuse, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		nm.DidWrite(ctx, nuse)
		time.Sleep(300 * time.Millisecond)
		all, err := nc.AllDiagnostics(ctx)
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		if (len(all[nuse]) > 0) != !broken {
			stale++
		}
		return d
	}
	var a, n []float64
	i := 0
	for b.Loop() {
		var x, y time.Duration
		if i%2 == 0 {
			x, y = edit(), fixed()
		} else {
			y, x = fixed(), edit()
		}
		broken = !broken
		i++
		a, n = append(a, float64(x)), append(n, float64(y))
	}
	ma, mn := medianOf(a), medianOf(n)
	b.ReportMetric(ma/mn, "ratio")
	b.ReportMetric(ma/1e6, "edit-ms")
	b.ReportMetric(mn/1e6, "fixed300-ms")
	b.ReportMetric(float64(stale), "fixed300-stale")
}

func newBenchFixture(b *testing.B, cfg client.Config) *lspFixture {
	return newLSPFixture(b, goCase.files, cfg)
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
