//go:build !unix && !windows

package tools

import (
	"io/fs"
	"os"
)

// openReadFlag is added when opening a file to read (nothing here).
const openReadFlag = 0

// linkCount cannot tell hard links on this system: every file counts as
// having one name.
func linkCount(fs.FileInfo, *os.File) (uint64, bool) { return 1, true }
