package checkpoint

import (
	"io/fs"
	"syscall"
)

// statKey is what, beside size, mode and mtime, tells that a file changed
// without reading it: its inode and its change time (a chmod, or a write
// that kept the mtime).
func statKey(fi fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Nano()
	}
	return 0, 0
}
