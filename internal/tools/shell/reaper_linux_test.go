package shell

import (
	"os"
	"syscall"
	"testing"
)

// TestMain makes the test binary a child subreaper, as init is on a normal
// system: orphans of the commands under test are re-parented to it, so
// reapGroup can collect the dead ones. (PID 1 of some containers never
// reaps, which would leave zombies that still count as group members.)
func TestMain(m *testing.M) {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		os.Stderr.WriteString("warning: PR_SET_CHILD_SUBREAPER failed: " + errno.Error() + "\n")
	}
	os.Exit(m.Run())
}

// reapGroup collects exited orphans of process group pgid.
func reapGroup(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
