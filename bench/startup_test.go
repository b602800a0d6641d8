package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/benchpair"
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

// gopls finds gopls on PATH or in GOPATH/bin.
func gopls(b *testing.B) string {
	b.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	b.Fatal("gopls is the baseline and is not installed: go install golang.org/x/tools/gopls@v0.23.0")
	return ""
}

// startAndInitialize starts a language server, sends initialize for root
// and waits for the reply. It returns the time from start to reply and
// the server's RSS in KiB then (idle: nothing asked of it yet), and shuts
// it down.
func startAndInitialize(b *testing.B, cmd *exec.Cmd, root string) (time.Duration, memory) {
	b.Helper()
	initialize := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://%s","capabilities":{}}}`, root)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(initialize), initialize)
	r := bufio.NewReader(stdout)
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("%s: read reply: %v", cmd.Path, err)
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
	if !strings.Contains(string(body), `"capabilities"`) {
		b.Fatalf("%s: unexpected reply %s", cmd.Path, body)
	}
	return elapsed, memKiB(cmd.Process.Pid)
}

// memory is a process's resident set: all of it (VmRSS), and the part
// that is its own (RssAnon: heap, stacks). The rest is the executable's
// pages, shared with the page cache, whose count moves with what the
// kernel's fault-around maps in.
type memory struct{ rss, anon int }

func memKiB(pid int) memory {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}
	}
	var m memory
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		switch k {
		case "VmRSS":
			m.rss = kb
		case "RssAnon":
			m.anon = kb
		}
	}
	return m
}

// BenchmarkStartup times process start → initialize reply for `agentls
// serve` against gopls on the same machine, interleaved (benchpair:
// ours-ms, base-ms, ratio), and reports the idle RSS of each after its
// reply (rss-MiB, base-rss-MiB) and their ratio (rss-ratio).
func BenchmarkStartup(b *testing.B) {
	bin, gp := buildAgentls(b), gopls(b)
	home, root := b.TempDir(), b.TempDir()
	var ours, base, oursAnon, baseAnon []float64
	benchpair.Run(b, time.Millisecond, func() time.Duration {
		cmd := exec.Command(bin, "serve", "--stdio")
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home)
		d, m := startAndInitialize(b, cmd, root)
		ours, oursAnon = append(ours, float64(m.rss)), append(oursAnon, float64(m.anon))
		return d
	}, func() time.Duration {
		cmd := exec.Command(gp)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+home)
		d, m := startAndInitialize(b, cmd, root)
		base, baseAnon = append(base, float64(m.rss)), append(baseAnon, float64(m.anon))
		return d
	})
	reportRSS(b, ours, base)
	o, r := benchpair.Median(oursAnon), benchpair.Median(baseAnon)
	b.ReportMetric(o/1024, "anon-MiB")
	b.ReportMetric(r/1024, "base-anon-MiB")
	b.ReportMetric(o/r, "anon-ratio")
}

// reportRSS reports the medians of RSS figures in KiB, ours and the
// baseline's, in MiB (rss-MiB, base-rss-MiB) and their ratio
// (rss-ratio).
func reportRSS(b *testing.B, ours, base []float64) {
	o, r := benchpair.Median(ours), benchpair.Median(base)
	b.ReportMetric(o/1024, "rss-MiB")
	b.ReportMetric(r/1024, "base-rss-MiB")
	b.ReportMetric(o/r, "rss-ratio")
}
