//go:build unix

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// openReadFlag is added when opening a file to read: a file swapped for a
// FIFO between the check and the open does not block the open.
const openReadFlag = syscall.O_NONBLOCK

// linkCount returns the number of hard links of the file fi describes,
// from its stat data; f is not needed on Unix.
func linkCount(fi fs.FileInfo, _ *os.File) (uint64, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), true
	}
	return 1, false
}
