package framing

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysRead and sysWrite are read(2) and write(2) on a non-blocking
// descriptor as raw system calls: they never block, so they skip the
// scheduler's bookkeeping for calls that may (which also wakes the
// runtime's monitor thread after every idle spell: a relay woken for each
// message paid that for each message).
func sysRead(fd uintptr, b []byte) (uintptr, syscall.Errno) {
	n, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	return n, errno
}

func sysWrite(fd uintptr, b []byte) (uintptr, syscall.Errno) {
	n, _, errno := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	return n, errno
}
