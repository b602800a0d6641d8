//go:build !unix

package tools

import "os"

// processAlive reports whether a process with this id runs.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
