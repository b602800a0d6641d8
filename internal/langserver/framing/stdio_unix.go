//go:build unix

package framing

import (
	"os"

	"golang.org/x/sys/unix"
)

// pollable returns a copy of f (a duplicate descriptor, so closing it
// leaves f alone) that the runtime's poller drives, with the function that
// puts f's blocking mode back; nil when f is not a pipe or a socket (a
// terminal or a file is left as it is) or cannot be made non-blocking.
// The mode belongs to the open file, which the peer's other processes
// may share: hence the restore.
func pollable(f *os.File) (*os.File, func()) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil
	}
	var dup int
	var wasNonblocking bool
	ok := false
	cerr := rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil {
			return
		}
		if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
			return
		}
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil {
			return
		}
		wasNonblocking = fl&unix.O_NONBLOCK != 0
		if dup, err = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 3); err != nil {
			return
		}
		if err := unix.SetNonblock(dup, true); err != nil {
			unix.Close(dup)
			return
		}
		ok = true
	})
	if cerr != nil || !ok {
		return nil, nil
	}
	restore := func() {}
	if !wasNonblocking {
		restore = func() {
			_ = rc.Control(func(fd uintptr) { _ = unix.SetNonblock(int(fd), false) })
		}
	}
	// A non-blocking descriptor makes a pollable File.
	return os.NewFile(uintptr(dup), f.Name()), restore
}
