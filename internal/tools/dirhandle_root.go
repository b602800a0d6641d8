//go:build !linux && !darwin

package tools

// An open folder for the parallel walk, as an os.Root: folders and files
// are opened from it one name at a time and cannot lead out of the
// folder the walk started in.

import (
	"io/fs"
	"os"
	"time"
)

// dirHandle is an open folder.
type dirHandle struct{ r *os.Root }

// openDirHandle opens the folder rel of r (the walk's base).
func openDirHandle(r *os.Root, rel string) (dirHandle, error) {
	sub, err := r.OpenRoot(rel)
	return dirHandle{r: sub}, err
}

// sub opens the subfolder name.
func (d dirHandle) sub(name string) (dirHandle, error) {
	sub, err := d.r.OpenRoot(name)
	return dirHandle{r: sub}, err
}

// close closes the folder.
func (d dirHandle) close() { d.r.Close() }

// list returns the folder's entries (in name order). Their Info must not
// be used (it stats by path); use modTime.
func (d dirHandle) list() ([]fs.DirEntry, error) { return ReadDirIn(d.r, ".") }

// modTime is the last change of the entry name (a link itself, not what
// it leads to).
func (d dirHandle) modTime(name string) (time.Time, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}

// read reads the regular file name (abs in errors), as readRegularIn
// does, into buf.
func (d dirHandle) read(name, abs string, buf []byte) ([]byte, error) {
	data, _, err := readRegularIn(d.r, name, abs, buf)
	return data, err
}
