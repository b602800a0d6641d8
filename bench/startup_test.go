package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildAgentls builds the binary once per benchmark run.
func buildAgentls(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "agentls")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/agentls/agentls/cmd/agentls").CombinedOutput()
	if err != nil {
		b.Fatalf("build agentls: %v\n%s", err, out)
	}
	return bin
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file:///tmp","capabilities":{}}}`

// startAndInitialize starts `agentls serve`, sends initialize and waits for
// the reply. It returns the elapsed time and the server's RSS in KiB after
// the reply, then shuts the server down.
func startAndInitialize(b *testing.B, bin, home string) (time.Duration, int) {
	cmd := exec.Command(bin, "serve", "--stdio")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(initialize), initialize)
	r := bufio.NewReader(stdout)
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("read reply: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	if !strings.Contains(string(body), `"serverInfo"`) {
		b.Fatalf("unexpected reply %s", body)
	}
	rss := rssKiB(cmd.Process.Pid)
	stdin.Close()
	_ = cmd.Wait()
	return elapsed, rss
}

func rssKiB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return 0
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// BenchmarkStartup times process start → initialize reply for `agentls
// serve`, interleaved with the baseline `agentls version` (process start
// and exit, nothing else). Metrics: init-ms (median), baseline-ms, ratio,
// rss-MiB after initialize.
func BenchmarkStartup(b *testing.B) {
	bin := buildAgentls(b)
	home := b.TempDir()
	var serve, base []time.Duration
	maxRSS := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(out), "agentls") {
			b.Fatalf("version: %v", err)
		}
		base = append(base, time.Since(t0))
		d, rss := startAndInitialize(b, bin, home)
		serve = append(serve, d)
		maxRSS = max(maxRSS, rss)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	s, bs := median(serve), median(base)
	b.ReportMetric(ms(s), "init-ms")
	b.ReportMetric(ms(bs), "baseline-ms")
	b.ReportMetric(float64(s)/float64(bs), "ratio")
	b.ReportMetric(float64(maxRSS)/1024, "rss-MiB")
}
