//go:build unix

package confine

import (
	"io/fs"
	"syscall"
)

// links returns the file's hard-link count (1 when the platform's stat
// does not say).
func links(_ string, fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
