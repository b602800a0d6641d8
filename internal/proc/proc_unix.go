//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcAttr puts the server in its own process group, so killing it
// also kills what it started (tsserver under typescript-language-server,
// go list under gopls).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killTree kills the process group led by p.
func killTree(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}
