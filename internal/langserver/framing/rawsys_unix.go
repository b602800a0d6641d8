//go:build unix && !linux

package framing

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysRead and sysWrite are read(2) and write(2) through the system's C
// library, as the rest of Go makes them here.
func sysRead(fd uintptr, b []byte) (uintptr, syscall.Errno) {
	n, err := unix.Read(int(fd), b)
	return uintptr(max(n, 0)), errnoOf(err)
}

func sysWrite(fd uintptr, b []byte) (uintptr, syscall.Errno) {
	n, err := unix.Write(int(fd), b)
	return uintptr(max(n, 0)), errnoOf(err)
}

func errnoOf(err error) syscall.Errno {
	var errno syscall.Errno
	if err == nil || !errors.As(err, &errno) {
		return 0
	}
	return errno
}
