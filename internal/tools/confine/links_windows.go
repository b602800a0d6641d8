//go:build windows

package confine

import (
	"io/fs"
	"os"
	"syscall"
)

// LinkCount returns how many hard links the file opened as f has; ok is
// false without f, which Windows needs to tell.
func LinkCount(_ fs.FileInfo, f *os.File) (n uint64, ok bool) {
	if f == nil {
		return 1, false
	}
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d); err != nil {
		return 1, false
	}
	return uint64(d.NumberOfLinks), true
}
