//go:build unix

package shell

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// errNoExec marks a file the kernel will not execute (a script without #!).
var errNoExec = syscall.ENOEXEC

// proc is one program to run.
type proc struct {
	path   string
	args   []string
	env    []string
	dir    string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// start starts the command (the sandbox's Start); nil means cmd.Start.
	start func(*exec.Cmd) error
}

// runProcess runs p in a new session (hence its own process group, with no
// controlling terminal to prompt on). When ctx ends the group gets SIGINT,
// then SIGKILL after grace. When the program exits, whatever it left running
// in its group is killed: a command's processes never outlive it (use Jobs
// for long-running work). It returns the exit code, or an error if the
// program could not run or was stopped by ctx.
func runProcess(ctx context.Context, p proc, grace time.Duration) (int, error) {
	stdout, closeOut, err := fileFor(p.stdout)
	if err != nil {
		return 0, err
	}
	defer closeOut()
	stderr, closeErr, err := fileFor(p.stderr)
	if err != nil {
		return 0, err
	}
	defer closeErr()

	newCmd := func() *exec.Cmd {
		cmd := exec.Command(p.path)
		cmd.Args = p.args
		cmd.Env = p.env
		cmd.Dir = p.dir
		cmd.Stdin = p.stdin
		cmd.Stdout = stdout
		cmd.Stderr = stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		return cmd
	}
	start := p.start
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	cmd := newCmd()
	err = start(cmd)
	// A file just written by a concurrent fork may briefly be busy (ETXTBSY).
	for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
		time.Sleep(delay)
		cmd = newCmd()
		err = start(cmd)
	}
	if err != nil {
		if errors.Is(err, syscall.ENOEXEC) {
			return 0, errNoExec
		}
		return 0, err
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-pgid, syscall.SIGINT)
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-t.C:
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			case <-done:
			}
		case <-done:
		}
	}()
	werr := cmd.Wait()
	close(done)
	_ = syscall.Kill(-pgid, syscall.SIGKILL)

	if werr == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		return 0, werr
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 128 + int(ws.Signal()), nil
	}
	return ee.ExitCode(), nil
}

// fileFor gives the child a real file for w, so Wait returns when the child
// exits rather than when the last process holding a pipe end does. For a
// non-file writer it copies from a pipe; the returned func waits (briefly)
// for the copy to drain once the process group is gone.
func fileFor(w io.Writer) (*os.File, func(), error) {
	if w == nil {
		return nil, func() {}, nil
	}
	if f, ok := w.(*os.File); ok {
		return f, func() {}, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(w, pr)
	}()
	return pw, func() {
		pw.Close()
		select {
		case <-copied:
		case <-time.After(time.Second):
			// A process that left the group still holds the pipe.
		}
		pr.Close()
	}, nil
}
