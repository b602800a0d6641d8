//go:build windows

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// openReadFlag is added when opening a file to read (nothing on Windows).
const openReadFlag = 0

// linkCount returns the number of hard links of the open file f. Windows
// stat data has no link count, so without f it is unknown.
func linkCount(_ fs.FileInfo, f *os.File) (uint64, bool) {
	if f == nil {
		return 1, false
	}
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d); err != nil {
		return 1, false
	}
	return uint64(d.NumberOfLinks), true
}
