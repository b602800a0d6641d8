//go:build !linux

package tools

import "os/exec"

// killedWithParent returns start: only Linux can tie a program's life to
// its parent's (elsewhere the terminal's kill stops `agentls exec`, and a
// cancelled command's programs are stopped by the shell as in agentls).
func killedWithParent(start func(*exec.Cmd) error) func(*exec.Cmd) error { return start }
