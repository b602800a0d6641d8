package client

import (
	"errors"
	"fmt"
)

// Error kinds, for errors.Is. Every error the package returns also says in
// words what happened and what to do.
var (
	// ErrNoServer: no configured language server handles the file.
	ErrNoServer = errors.New("no language server for this file type")
	// ErrNotInstalled: the server's program is not on PATH.
	ErrNotInstalled = errors.New("language server not installed")
	// ErrCrashLoop: the server crashed too often to restart it again.
	ErrCrashLoop = errors.New("language server keeps crashing")
	// ErrTimeout: the server did not answer in time.
	ErrTimeout = errors.New("language server request timed out")
	// ErrUnsupported: the server does not offer the request.
	ErrUnsupported = errors.New("language server does not support the request")
	// ErrUntrusted: the server would run code from a workspace folder the
	// person has not trusted, and has no safe form there.
	ErrUntrusted = errors.New("workspace folder not trusted")
	// ErrShutDown: the Manager has been shut down.
	ErrShutDown = errors.New("language servers are shut down")
	// ErrStale: a server's edits are not for the file's current text.
	ErrStale = errors.New("file changed since the server computed its edits")
	// ErrNotRunning: a request made with RunningOnly found no server
	// running (it ended, or was never started).
	ErrNotRunning = errors.New("language server not running")
)

// errExited marks a request that failed because the server process ended
// under it; the Client restarts the server and retries once.
var errExited = errors.New("language server exited")

// kindError is an error whose text is msg and which matches kind (and
// cause, when set) with errors.Is.
type kindError struct {
	kind  error
	msg   string
	cause error
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

func kindErrorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &kindError{kind: kind, msg: err.Error(), cause: errors.Unwrap(err)}
}

// ServerError is an error the server answered a request with.
type ServerError struct {
	Server  string
	Method  string
	Code    int64
	Message string
}

// Error names the server and the request.
func (e *ServerError) Error() string {
	return fmt.Sprintf("%s: %s failed: %s", e.Server, e.Method, e.Message)
}

// LSP error codes the client reacts to.
const (
	codeContentModified = -32801
	codeServerCancelled = -32802
	codeRequestFailed   = -32803
)
