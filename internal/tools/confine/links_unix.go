//go:build unix

package confine

import (
	"io/fs"
	"os"
	"syscall"
)

// LinkCount returns how many hard links the file described by fi (and,
// where the platform needs it, opened as f) has; ok is false when the
// platform cannot tell without f.
func LinkCount(fi fs.FileInfo, _ *os.File) (n uint64, ok bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), true
	}
	return 1, false
}
