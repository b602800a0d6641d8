package framing

import (
	"errors"
	"os"
	"syscall"
)

// Stdio is a process's own stdin and stdout as one connection for a
// Stream (agentls serve). Where stdin and stdout are pipes or sockets they
// are read and written through the runtime's poller in non-blocking mode
// (stdio_unix.go), so that a Stream can read and write them with raw
// system calls and never blocks on them; otherwise they are used as they
// are.
type Stdio struct {
	in, out *os.File
	// restore puts back the descriptors' blocking mode.
	restore func()
}

// OpenStdio makes the connection over in and out (os.Stdin, os.Stdout).
// Close the Stdio, then call Restore when the process is done with them.
func OpenStdio(in, out *os.File) *Stdio {
	s := &Stdio{in: in, out: out}
	var undo []func()
	if f, u := pollable(in); f != nil {
		s.in, undo = f, append(undo, u)
	}
	if f, u := pollable(out); f != nil {
		s.out, undo = f, append(undo, u)
	}
	s.restore = func() {
		for _, u := range undo {
			u()
		}
	}
	return s
}

// Read reads stdin.
func (s *Stdio) Read(b []byte) (int, error) { return s.in.Read(b) }

// Write writes stdout.
func (s *Stdio) Write(b []byte) (int, error) { return s.out.Write(b) }

// Close closes stdin, so that a read waiting on it returns; stdout stays
// for the last words.
func (s *Stdio) Close() error {
	err := s.in.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// Restore puts stdin and stdout back in the mode they came in, for
// whatever shares them after this process.
func (s *Stdio) Restore() { s.restore() }

// ReadConn is stdin's raw descriptor.
func (s *Stdio) ReadConn() (syscall.RawConn, error) { return s.in.SyscallConn() }

// WriteConn is stdout's raw descriptor.
func (s *Stdio) WriteConn() (syscall.RawConn, error) { return s.out.SyscallConn() }
