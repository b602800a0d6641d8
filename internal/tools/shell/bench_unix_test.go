//go:build unix

package shell

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkRunTrue compares one trivial command through Run with the same
// through /bin/sh via os/exec. "builtin" is `true` as the interpreter runs
// it (no process); "external" forces a process (/bin/true) through the
// guard and the process-group exec; "ratio" runs external and /bin/sh -c
// alternately and reports runner time per sh time.
func BenchmarkRunTrue(b *testing.B) {
	ctx := context.Background()
	o := Options{Dir: b.TempDir()}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true program")
	}
	b.Run("runner-builtin", func(b *testing.B) {
		for b.Loop() {
			if _, err := Run(ctx, "true", o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("runner-external", func(b *testing.B) {
		for b.Loop() {
			if res, err := Run(ctx, truePath, o); err != nil || res.ExitCode != 0 {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("os-exec-sh", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var runner, sh time.Duration
		for b.Loop() {
			t0 := time.Now()
			if _, err := Run(ctx, truePath, o); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
			runner += t1.Sub(t0)
			sh += time.Since(t1)
		}
		b.ReportMetric(float64(runner)/float64(sh), "runner/sh")
		b.ReportMetric(float64(runner.Microseconds())/float64(b.N), "µs-runner/op")
		b.ReportMetric(float64(sh.Microseconds())/float64(b.N), "µs-sh/op")
	})
}

// pipeline200 is a realistic ~200-character agent command.
const pipeline200 = `cd ./internal && go test -run 'TestParse|TestJudge' -count=1 ./... 2>&1 | ` +
	`grep -v '^ok' | head -n 40; git status --short | wc -l; ` +
	`find . -name '*.go' -newer go.mod | xargs gofmt -l | sort | uniq`

func BenchmarkJudgePipeline(b *testing.B) {
	if n := len(pipeline200); n < 180 || n > 230 {
		b.Fatalf("pipeline is %d characters", n)
	}
	for b.Loop() {
		if _, err := Judge(pipeline200); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/command")
}

// BenchmarkJudgePipelineInWorkspace judges the same command as the bash
// tool does: in a real folder, programs resolved through PATH, words
// expanded, the repository's git configuration read.
func BenchmarkJudgePipelineInWorkspace(b *testing.B) {
	fx := newFixture(b)
	for b.Loop() {
		if _, err := JudgeWith(pipeline200, fx.opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/command")
}
