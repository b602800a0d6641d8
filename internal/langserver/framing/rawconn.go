package framing

import "syscall"

// ReadConner is a connection whose reading end is a file descriptor (a
// pipe), which a Stream may read with raw system calls (rawio_unix.go).
type ReadConner interface {
	ReadConn() (syscall.RawConn, error)
}

// WriteConner is a connection whose writing end is a file descriptor (a
// pipe), whose writes a Stream may try without blocking.
type WriteConner interface {
	WriteConn() (syscall.RawConn, error)
}
