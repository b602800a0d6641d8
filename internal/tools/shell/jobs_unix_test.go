//go:build unix

package shell

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAutoBackground(t *testing.T) {
	m := NewJobs(JobsOptions{})
	defer m.Close()
	ctx := context.Background()
	o := Options{Dir: t.TempDir()}

	res, id, err := m.RunOrBackground(ctx, "echo quick", o, time.Second)
	if err != nil || id != "" || res.Stdout != "quick\n" {
		t.Fatalf("quick command: %+v %q %v", res, id, err)
	}
	if len(m.List()) != 0 {
		t.Errorf("finished foreground command still tracked: %v", m.List())
	}

	start := time.Now()
	_, id, err = m.RunOrBackground(ctx, "sleep 2; echo done", o, time.Second)
	if err != nil || id == "" {
		t.Fatalf("slow command not backgrounded: %q %v", id, err)
	}
	if d := time.Since(start); d < time.Second || d > 1500*time.Millisecond {
		t.Errorf("handed over after %v, want about 1s", d)
	}
	out, err := m.Output(ctx, id, 5*time.Second, false)
	if err != nil || !out.Done || out.Stdout != "done\n" || out.ExitCode != 0 {
		t.Fatalf("after wait: %+v %v", out, err)
	}
}

func TestAutoBackgroundCancel(t *testing.T) {
	m := NewJobs(JobsOptions{})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, id, err := m.RunOrBackground(ctx, "echo started; sleep 100", Options{Dir: t.TempDir()}, 10*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || id != "" || !res.Interrupted || res.Stdout != "started\n" {
		t.Fatalf("got %+v %q %v", res, id, err)
	}
	if len(m.List()) != 0 {
		t.Errorf("cancelled command still tracked")
	}
}

func TestJobKillLeavesNothing(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"children", `sh -c 'echo $$ > pgid; sleep 100 & sleep 100 & wait'`},
		{"ignores-sigint", `sh -c 'trap "" INT; echo $$ > pgid; sleep 100 & wait'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewJobs(JobsOptions{})
			defer m.Close()
			dir := t.TempDir()
			id, err := m.Start(context.Background(), tc.script, Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			pgid := waitPgid(t, filepath.Join(dir, "pgid"))
			start := time.Now()
			if err := m.Kill(id); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Kill took %v", d)
			}
			if !groupGone(pgid) {
				t.Fatalf("process group %d survived Kill", pgid)
			}
			if _, err := m.Output(context.Background(), id, 0, true); !errors.Is(err, ErrNoJob) {
				t.Errorf("killed job still readable: %v", err)
			}
		})
	}
}

func TestJobOutputIncremental(t *testing.T) {
	m := NewJobs(JobsOptions{})
	defer m.Close()
	ctx := context.Background()
	id, err := m.Start(ctx, "echo one; echo err1 >&2; sleep 0.5; echo two; exit 42", Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if id != "shell-1" {
		t.Errorf("id = %q", id)
	}
	time.Sleep(200 * time.Millisecond)
	first, _ := m.Output(ctx, id, 0, false)
	if first.Done || first.Stdout != "one\n" || first.Stderr != "err1\n" {
		t.Fatalf("first read: %+v", first)
	}
	second, _ := m.Output(ctx, id, 3*time.Second, false)
	if !second.Done || second.Stdout != "two\n" || second.Stderr != "" || second.ExitCode != 42 {
		t.Fatalf("second read: %+v", second)
	}
	whole, _ := m.Output(ctx, id, 0, true)
	if whole.Stdout != "one\ntwo\n" || whole.Stderr != "err1\n" {
		t.Fatalf("whole: %+v", whole)
	}
	again, _ := m.Output(ctx, id, 0, true)
	if again.Stdout != whole.Stdout {
		t.Error("reading everything twice differs")
	}
}

func TestJobBlockedCommand(t *testing.T) {
	m := NewJobs(JobsOptions{})
	defer m.Close()
	id, err := m.Start(context.Background(), "curl https://example.com", Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := m.Output(context.Background(), id, 3*time.Second, true)
	if !out.Done || out.ExitCode != 1 || !strings.Contains(out.Stderr, "not allowed") {
		t.Fatalf("got %+v", out)
	}
}

func TestJobBufferBounded(t *testing.T) {
	m := NewJobs(JobsOptions{BufferSize: 1024})
	defer m.Close()
	id, err := m.Start(context.Background(), "seq 1 20000", Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := m.Output(context.Background(), id, 3*time.Second, true)
	if !out.Done || len(out.Stdout) != 1024 || out.StdoutDropped == 0 || !strings.HasSuffix(out.Stdout, "19999\n20000\n") {
		t.Fatalf("len %d dropped %d done %v", len(out.Stdout), out.StdoutDropped, out.Done)
	}
}

func TestJobsLimitAndEviction(t *testing.T) {
	m := NewJobs(JobsOptions{Max: 2})
	defer m.Close()
	ctx := context.Background()
	o := Options{Dir: t.TempDir()}
	a, _ := m.Start(ctx, "sleep 100", o)
	b, _ := m.Start(ctx, "sleep 100", o)
	if _, err := m.Start(ctx, "sleep 100", o); err == nil || !strings.Contains(err.Error(), "maximum") {
		t.Fatalf("third running job accepted: %v", err)
	}
	m.Kill(a)
	quick, err := m.Start(ctx, "true", o)
	if err != nil {
		t.Fatal(err)
	}
	m.Output(ctx, quick, 3*time.Second, false)
	// Full again, but the finished job can make room.
	if _, err := m.Start(ctx, "true", o); err != nil {
		t.Fatalf("finished job not evicted: %v", err)
	}
	if _, err := m.Output(ctx, quick, 0, false); !errors.Is(err, ErrNoJob) {
		t.Errorf("evicted job still there: %v", err)
	}
	m.Kill(b)
}

func TestJobsExpire(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	m := NewJobs(JobsOptions{Now: clock})
	defer m.Close()
	ctx := context.Background()
	id, _ := m.Start(ctx, "echo hi", Options{Dir: t.TempDir()})
	if out, _ := m.Output(ctx, id, 3*time.Second, false); !out.Done {
		t.Fatal("not done")
	}
	mu.Lock()
	now = now.Add(7 * time.Hour)
	mu.Unlock()
	if len(m.List()) != 1 {
		t.Fatal("expired too early")
	}
	mu.Lock()
	now = now.Add(time.Hour + time.Minute)
	mu.Unlock()
	if len(m.List()) != 0 {
		t.Fatal("finished job kept beyond 8h")
	}
	if _, err := m.Output(ctx, id, 0, true); !errors.Is(err, ErrNoJob) {
		t.Fatalf("expired job readable: %v", err)
	}
}

func TestJobsClose(t *testing.T) {
	m := NewJobs(JobsOptions{})
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if _, err := m.Start(context.Background(), `sh -c 'echo $$ > pgid; sleep 100'`, Options{Dir: d}); err != nil {
			t.Fatal(err)
		}
	}
	var pgids []int
	for _, d := range dirs {
		pgids = append(pgids, waitPgid(t, filepath.Join(d, "pgid")))
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range pgids {
		if !groupGone(p) {
			t.Errorf("group %d survived Close", p)
		}
	}
	if _, err := m.Start(context.Background(), "true", Options{Dir: dirs[0]}); err == nil {
		t.Error("Start after Close accepted")
	}
}

func TestJobsConcurrentReaders(t *testing.T) {
	m := NewJobs(JobsOptions{})
	defer m.Close()
	ctx := context.Background()
	id, _ := m.Start(ctx, "for i in $(seq 1 200); do echo line $i; done", Options{Dir: t.TempDir()})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got strings.Builder
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				out, err := m.Output(ctx, id, 10*time.Millisecond, false)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got.WriteString(out.Stdout)
				mu.Unlock()
				m.List()
			}
		}()
	}
	wg.Wait()
	rest, _ := m.Output(ctx, id, 3*time.Second, false)
	got.WriteString(rest.Stdout)
	if strings.Count(got.String(), "\n") != 200 {
		t.Errorf("incremental reads lost or repeated lines: %d", strings.Count(got.String(), "\n"))
	}
}
