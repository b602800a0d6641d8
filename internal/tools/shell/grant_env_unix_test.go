//go:build unix

package shell

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestGrantEnvFIFO: a FIFO where a configuration file should be neither
// blocks the digest nor lets a grant match.
func TestGrantEnvFIFO(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, grantEnvBase)
	ws := filepath.Join(base, "ws")
	if err := syscall.Mkfifo(filepath.Join(ws, ".npmrc"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := JudgeOptions{Dir: ws, Roots: []string{ws}, Env: []string{"PATH=" + os.Getenv("PATH")}}
	v, _ := JudgeWith("npm test", o)
	done := make(chan [2]string, 1)
	go func() { done <- [2]string{GrantEnv(v, o), GrantEnv(v, o)} }()
	select {
	case d := <-done:
		if d[0] == d[1] {
			t.Errorf("a FIFO .npmrc gave the same digest twice: %q", d[0])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("GrantEnv blocked on a FIFO")
	}
}
