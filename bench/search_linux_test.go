package bench

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/benchpair"
	"github.com/agentls/agentls/internal/benchtree"
)

// BenchmarkSearchProcess (issue 31) runs grep and glob on the generated
// tree of 100,000 files (internal/benchtree; AGENTLS_BENCH_TREE keeps it
// between runs) as whole `agentls run` processes, a replay model calling
// the tool once, against rg doing the same search, interleaved
// (benchpair: ours-ms, base-ms, ratio, start-up included), and reports
// the peak RSS of each (rss-MiB, base-rss-MiB, rss-ratio) and of a run
// that only views one file (view-rss-MiB, view-ms): agentls's fixed
// cost.
func BenchmarkSearchProcess(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Fatal("rg is the baseline and is not installed: apt-get update && apt-get install -y ripgrep")
	}
	tree := os.Getenv("AGENTLS_BENCH_TREE")
	if tree == "" {
		tree = filepath.Join(b.TempDir(), "tree")
	}
	if err := benchtree.Ensure(context.Background(), tree, 100_000); err != nil {
		b.Fatal(err)
	}
	bin, home := buildAgentls(b), b.TempDir()
	run := func(call string) (time.Duration, int64) {
		return agentlsRun(b, bin, home, tree, call)
	}
	viewTime, viewRSS := run(`{"name":"view","input":{"file_path":".gitignore"}}`)
	searches := []struct{ name, call string }{
		{"grep", `{"name":"grep","input":{"pattern":"func NewReader\\(","include":"*.go"}}`},
		{"glob", `{"name":"glob","input":{"pattern":"**/*_test.go"}}`},
	}
	rgArgs := map[string][]string{
		"grep": {"-n", "--hidden", "--no-require-git", `func NewReader\(`, "-g", "*.go"},
		"glob": {"--files", "--hidden", "--no-require-git", "-g", "*_test.go"},
	}
	for _, s := range searches {
		b.Run(s.name, func(b *testing.B) {
			// Once untimed, so both read the tree from the page cache.
			warm := exec.Command("rg", rgArgs[s.name]...)
			warm.Dir, warm.Stdout = tree, io.Discard
			timed(b, warm)
			var ours, base []float64
			benchpair.Run(b, time.Millisecond, func() time.Duration {
				d, rss := run(s.call)
				ours = append(ours, float64(rss))
				return d
			}, func() time.Duration {
				cmd := exec.Command("rg", rgArgs[s.name]...)
				cmd.Dir, cmd.Stdout = tree, io.Discard
				d, rss := timed(b, cmd)
				base = append(base, float64(rss))
				return d
			})
			reportRSS(b, ours, base)
			b.ReportMetric(float64(viewRSS)/1024, "view-rss-MiB")
			b.ReportMetric(float64(viewTime)/float64(time.Millisecond), "view-ms")
		})
	}
}

// agentlsRun runs `agentls run` on tree with a replay model that makes
// the one tool call, checks the call succeeded, and returns the run's
// time and peak RSS in KiB.
func agentlsRun(b *testing.B, bin, home, tree, call string) (time.Duration, int64) {
	b.Helper()
	script := filepath.Join(home, "script.json")
	if err := os.WriteFile(script, []byte(`{"turns":[{"text":"","tool_calls":[`+call+`]},{"text":"done"}]}`), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--workspace", tree, "--model", "replay:"+script, "--mode", "auto", "--json", "search")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "XDG_CACHE_HOME="+home)
	var out strings.Builder
	cmd.Stdout = &out
	d, rss := timed(b, cmd)
	ok := false
	for line := range strings.Lines(out.String()) {
		var ev agent.Event
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != agent.EventToolResult {
			continue
		}
		if ev.IsError == nil || *ev.IsError || ev.Content == nil {
			b.Fatalf("agentls run: the tool failed: %s", line)
		}
		ok = true
	}
	if !ok {
		b.Fatalf("agentls run made no tool call:\n%s", out.String())
	}
	return d, rss
}

// timed runs cmd and returns its wall time and peak RSS in KiB.
func timed(b *testing.B, cmd *exec.Cmd) (time.Duration, int64) {
	b.Helper()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v", cmd.Path, err)
	}
	d := time.Since(start)
	return d, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}
