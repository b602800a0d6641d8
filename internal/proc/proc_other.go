//go:build !unix

package proc

import (
	"os"
	"os/exec"
)

// setProcAttr needs nothing special where process groups are not used.
func setProcAttr(*exec.Cmd) {}

// killTree kills p.
func killTree(p *os.Process) { _ = p.Kill() }
