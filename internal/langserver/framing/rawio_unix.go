//go:build unix

package framing

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// A relay wakes for every message it passes on, so its reads and writes
// are most of what it costs. On a non-blocking descriptor (a pipe from
// os.Pipe, or stdio made pollable by OpenStdio) a read or write never
// blocks: it is made from the calling goroutine (on Linux as a raw system
// call, rawsys_linux.go), and only when there is nothing to read does the
// goroutine wait in the poller. A blocking descriptor (a terminal, a
// file) is read and written as it is.

// rawConn is the raw descriptor of conn's end that ends in dir ("read"
// or "write"), when it is a non-blocking one; otherwise nil.
func rawConn(conn any, dir string) syscall.RawConn {
	var rc syscall.RawConn
	var err error
	r, isR := conn.(ReadConner)
	w, isW := conn.(WriteConner)
	f, isF := conn.(*os.File)
	switch {
	case dir == "read" && isR:
		rc, err = r.ReadConn()
	case dir == "write" && isW:
		rc, err = w.WriteConn()
	case isF:
		rc, err = f.SyscallConn()
	default:
		return nil
	}
	if err != nil || rc == nil {
		return nil
	}
	nonblocking := false
	if cerr := rc.Control(func(fd uintptr) {
		fl, ferr := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblocking = ferr == nil && fl&unix.O_NONBLOCK != 0
	}); cerr != nil || !nonblocking {
		return nil
	}
	return rc
}

// rawReader reads a non-blocking descriptor from the calling goroutine,
// waiting in the poller while there is nothing to read. One goroutine
// reads at a time (the Stream's reader): the call's state lives here, so
// a read allocates nothing.
type rawReader struct {
	rc    syscall.RawConn
	b     []byte
	n     uintptr
	errno syscall.Errno
	fn    func(fd uintptr) bool // r.read, bound once
}

func newRawReader(rc syscall.RawConn) *rawReader {
	r := &rawReader{rc: rc}
	r.fn = r.read
	return r
}

// read is one attempt; false makes the poller wait for input.
func (r *rawReader) read(fd uintptr) bool {
	for {
		r.n, r.errno = sysRead(fd, r.b)
		if r.errno != unix.EINTR {
			return r.errno != unix.EAGAIN
		}
	}
}

func (r *rawReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r.b = b
	err := r.rc.Read(r.fn)
	r.b = nil
	switch {
	case err != nil:
		return 0, err
	case r.errno != 0:
		return 0, &os.PathError{Op: "read", Path: "pipe", Err: r.errno}
	case r.n == 0:
		return 0, io.EOF
	}
	return int(r.n), nil
}

// reader is how a Stream reads conn: from the calling goroutine on a
// non-blocking descriptor, conn itself otherwise.
func reader(conn io.Reader) io.Reader {
	if rc := rawConn(conn, "read"); rc != nil {
		return newRawReader(rc)
	}
	return conn
}

// rawWriter tries writes on a non-blocking descriptor. One write at a
// time (the Stream's busy writer), with the call's state here as in
// rawReader.
type rawWriter struct {
	rc    syscall.RawConn
	b     []byte
	n     uintptr
	errno syscall.Errno
	fn    func(fd uintptr) bool // w.write, bound once
}

// write is one attempt; it never waits.
func (w *rawWriter) write(fd uintptr) bool {
	for {
		w.n, w.errno = sysWrite(fd, w.b)
		if w.errno != unix.EINTR {
			return true
		}
	}
}

// try writes what the descriptor takes now: n < len(b) (0 when it is
// full) leaves the rest to the caller.
func (w *rawWriter) try(b []byte) (int, error) {
	w.b = b
	err := w.rc.Write(w.fn)
	w.b = nil
	switch {
	case err != nil:
		return 0, err
	case w.errno == unix.EAGAIN:
		return 0, nil
	case w.errno != 0:
		return 0, &os.PathError{Op: "write", Path: "pipe", Err: w.errno}
	}
	return int(w.n), nil
}

// tryWriter returns a write that takes what conn's descriptor accepts now
// and never blocks, or nil when conn is not a non-blocking descriptor (a
// blocking write from the caller could deadlock two peers that each wait
// for the other to read).
func tryWriter(conn io.Writer) func([]byte) (int, error) {
	rc := rawConn(conn, "write")
	if rc == nil {
		return nil
	}
	w := &rawWriter{rc: rc}
	w.fn = w.write
	return w.try
}
