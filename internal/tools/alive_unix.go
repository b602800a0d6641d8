//go:build unix

package tools

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id runs (one of
// another user counts: signal 0 is refused, not unanswered).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
