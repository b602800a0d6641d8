//go:build linux || darwin

package tools

// An open folder for the parallel walk, as a file descriptor: folders and
// files are opened from it one name at a time with O_NOFOLLOW, so the
// walk never follows a link and cannot leave the folder it started in,
// as through an os.Root, with fewer system calls: os.Root lists a folder
// with an lstat of every entry, and registers each file it opens with
// the poller.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dirHandle is an open folder.
type dirHandle struct {
	f  *os.File
	fd int
}

// openDirHandle opens the folder rel of r (the walk's base).
func openDirHandle(r *os.Root, rel string) (dirHandle, error) {
	f, err := r.Open(rel)
	if err != nil {
		return dirHandle{}, err
	}
	defer f.Close()
	// A descriptor of its own, without os.Root's lstat of every entry.
	return fdDirHandle(int(f.Fd()), ".", rel)
}

// sub opens the subfolder name.
func (d dirHandle) sub(name string) (dirHandle, error) { return fdDirHandle(d.fd, name, name) }

func fdDirHandle(dirfd int, name, display string) (dirHandle, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return dirHandle{}, &fs.PathError{Op: "open", Path: display, Err: err}
	}
	return dirHandle{f: os.NewFile(uintptr(fd), display), fd: fd}, nil
}

// close closes the folder.
func (d dirHandle) close() { d.f.Close() }

// list returns the folder's entries in the order the system gives them.
// Their Info must not be used (it stats by path); use modTime.
func (d dirHandle) list() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

// modTime is the last change of the entry name (a link itself, not what
// it leads to).
func (d dirHandle) modTime(name string) (time.Time, error) {
	var st unix.Stat_t
	err := ignoringEINTR(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(st.Mtim.Unix()), nil
}

// read reads the regular file name (abs in errors), as readRegularIn
// does, into buf.
func (d dirHandle) read(name, abs string, buf []byte) ([]byte, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: abs, Err: err}
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return nil, fmt.Errorf("%s is not a regular file; agentls reads regular files only", abs)
	case st.Nlink > 1:
		return nil, &outsideError{path: abs, why: whyHardLinks(uint64(st.Nlink))}
	case st.Size > MaxReadSize:
		return nil, tooLargeError(abs, st.Size)
	}
	data, err := readUpTo(fdReader(fd), buf, st.Size, MaxReadSize+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	if len(data) > MaxReadSize {
		return nil, tooLargeError(abs, int64(len(data)))
	}
	return data, nil
}

// fdReader reads a file descriptor.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	var n int
	err := ignoringEINTR(func() (err error) {
		n, err = unix.Read(int(r), p)
		return err
	})
	switch {
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// ignoringEINTR retries a system call a signal interrupted.
func ignoringEINTR(call func() error) error {
	for {
		if err := call(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
