//go:build !unix

package shell

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"time"
)

// errNoExec is never returned where the kernel has no ENOEXEC.
var errNoExec = errors.New("not executable")

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

// runProcess runs p; without process groups, cancellation kills the
// program itself after grace.
func runProcess(ctx context.Context, p proc, grace time.Duration) (int, error) {
	cmd := exec.CommandContext(ctx, p.path)
	cmd.Args, cmd.Env, cmd.Dir = p.args, p.env, p.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.stdin, p.stdout, p.stderr
	cmd.WaitDelay = grace
	start := p.start
	if start == nil {
		start = (*exec.Cmd).Start
	}
	err := start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err == nil {
		return 0, nil
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
