package checkpoint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent/checkpoint"
	"github.com/agentls/agentls/internal/benchpair"
	"github.com/agentls/agentls/internal/benchtree"
)

// stepGoal is the goal for a checkpoint's cost per step.
const stepGoal = 5 * time.Millisecond

// BenchmarkCheckpointStep is a checkpoint's cost per step on a
// 10,000-file workspace where the step changes 3 files: bringing the
// baseline up to date before the step, and after it reading the 3 files,
// keeping them and storing the checkpoint. The step's own writes are not
// counted. The baseline is the least any checkpoint of those files costs:
// a plain copy of the 3 files (read, write elsewhere). goal-ratio is the
// cost against the 5 ms goal. watch is how agentls runs on Linux (inotify
// marks the changed paths); walk is how it runs where there is no watcher
// (a stat walk of the tree at every refresh).
func BenchmarkCheckpointStep(b *testing.B) {
	b.Run("watch", func(b *testing.B) { benchStep(b, false) })
	b.Run("walk", func(b *testing.B) { benchStep(b, true) })
}

func benchStep(b *testing.B, walk bool) {
	ctx := context.Background()
	f := newFixtureB(b)
	if walk {
		checkpoint.WalkOnly(f.e)
	}
	if err := benchtree.Write(ctx, f.root, 10_000); err != nil {
		b.Fatal(err)
	}
	if err := f.e.Prepare(ctx); err != nil { // the first walk: once per workspace
		b.Fatal(err)
	}
	paths := []string{
		filepath.Join(f.root, "pkg00", "mod00", "sub00", "file0.go"),
		filepath.Join(f.root, "pkg01", "mod05", "sub03", "file5151.go"),
		filepath.Join(f.root, "pkg01", "mod09", "sub09", "file9999.json"),
	}
	copies := b.TempDir()
	i := 0
	change := func() {
		i++
		for _, p := range paths {
			if err := os.WriteFile(p, fmt.Appendf(nil, "package x // %d\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	var ours []float64
	benchpair.Run(b, time.Millisecond, func() time.Duration {
		start := time.Now()
		p, err := f.e.Begin(ctx, checkpoint.Step{SessionID: "bench", TurnID: "bench-t1", Tool: "bash", Title: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		change()
		start = time.Now()
		c, err := p.End(ctx)
		d += time.Since(start)
		if err != nil || len(c.Files) != len(paths) {
			b.Fatalf("checkpoint %+v: %v", c, err)
		}
		ours = append(ours, float64(d))
		return d
	}, func() time.Duration {
		start := time.Now()
		for k, p := range paths {
			data, err := os.ReadFile(p)
			if err == nil {
				err = os.WriteFile(filepath.Join(copies, fmt.Sprint(k)), data, 0o644)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	})
	b.ReportMetric(float64(stepGoal)/float64(time.Millisecond), "goal-ms")
	b.ReportMetric(benchpair.Median(ours)/float64(stepGoal), "goal-ratio")
}

func newFixtureB(b *testing.B) *fixture {
	b.Helper()
	root, _ := filepath.EvalSymlinks(b.TempDir())
	return fixtureAt(b, root, checkpoint.DefaultOptions())
}
