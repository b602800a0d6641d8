package sandbox

import (
	"os/exec"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/benchpair"
)

// BenchmarkSandboxedTrue: starting /bin/true confined (from the sandbox's
// thread, with Landlock, seccomp and a network namespace of its own)
// against starting it plainly, to its exit. Goal: at most 1.5 times.
func BenchmarkSandboxedTrue(b *testing.B) {
	requireLandlock(b)
	tmp := b.TempDir()
	sb, err := New(Options{Policy: DefaultPolicy(NewMachine(), []string{b.TempDir()}, tmp, nil, nil), TempDir: tmp, Proxy: NewProxy(ProxyOptions{})})
	if err != nil || !sb.Confined() {
		b.Fatalf("no confined sandbox: %v %s", err, sb.Status().Reason)
	}
	defer sb.Close()
	run := func(start func(*exec.Cmd) error) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("/bin/true")
		if err := start(cmd); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	benchpair.Run(b, time.Microsecond,
		func() time.Duration { return run(sb.Start) },
		func() time.Duration { return run((*exec.Cmd).Start) })
}
