package tools

import (
	"os/exec"
	"syscall"
)

// killedWithParent makes start's programs die with the process that
// started them: `agentls exec` killed by the editor's terminal (SIGKILL,
// which it cannot pass on) takes the command's programs with it, though
// they run in process groups of their own.
func killedWithParent(start func(*exec.Cmd) error) func(*exec.Cmd) error {
	return func(cmd *exec.Cmd) error {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		return start(cmd)
	}
}
