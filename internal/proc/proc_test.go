//go:build unix

package proc

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func waitExit(t *testing.T, p *Proc) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not exit")
	}
}

func TestExitStatusKeepsStderr(t *testing.T) {
	p, err := Start([]string{"sh", "-c", `echo "$GREETING" ; echo "bad thing" >&2; exit 3`}, t.TempDir(), MergeEnv(os.Environ(), map[string]string{"GREETING": "hello"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p)
	waitExit(t, p)
	if string(out) != "hello\n" {
		t.Errorf("stdout = %q, want the environment's greeting", out)
	}
	if st := p.ExitStatus(); !strings.Contains(st, "exit status 3") || !strings.Contains(st, "bad thing") {
		t.Errorf("ExitStatus = %q, want the exit code and the stderr", st)
	}
}

func TestKillEndsTheProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	// The child outlives its parent's exit unless the group is killed, and
	// holds the pipes open.
	p, err := Start([]string{"sh", "-c", `sleep 300 & echo $! > "$1"; wait`, "sh", pidFile}, t.TempDir(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
	}
	if child == 0 {
		t.Fatal("the child's pid never appeared")
	}
	p.Kill()
	waitExit(t, p)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(child, 0) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d still runs after Kill", child)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	got := MergeEnv([]string{"A=1", "PATH=/bin", "B=2"}, map[string]string{"PATH": "/usr/bin", "C": "3"})
	if want := []string{"A=1", "B=2", "C=3", "PATH=/usr/bin"}; !slices.Equal(got, want) {
		t.Errorf("MergeEnv = %v, want %v", got, want)
	}
}
