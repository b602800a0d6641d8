// Package proc runs a server program with its standard streams on pipes:
// the language servers of lsp/client and the stdio MCP servers of package
// mcp. The pipes are os.Pipe files rather than exec's copying goroutines,
// so Wait returns when the program exits even if a child it spawned still
// holds them open; the program leads its own process group, so Kill ends
// what it started too; the end of its stderr is kept for error messages.
package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one running server process with its pipes. It is an
// io.ReadWriteCloser: reads are its stdout, writes its stdin.
type Proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // our write end
	stdout *os.File // our read end
	stderr *tail
	// stderrDone is closed when stderr reached end of input.
	stderrDone chan struct{}
	exited     chan struct{} // closed when the process has exited
	err        error         // exit status, set before exited closes
}

// Start runs argv in dir with the environment env (nil: agentls's own),
// started by start (a sandbox's Start, which confines it; nil:
// exec.Cmd.Start).
func Start(argv []string, dir string, env []string, start func(*exec.Cmd) error) (*Proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("create stderr pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	setProcAttr(cmd)
	if start == nil {
		start = (*exec.Cmd).Start
	}
	err = start(cmd)
	// The child has its own copies now.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &Proc{cmd: cmd, stdin: inW, stdout: outR, stderr: &tail{max: 8 << 10}, stderrDone: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		errR.Close()
		close(p.stderrDone)
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Read reads the server's stdout.
func (p *Proc) Read(b []byte) (int, error) { return p.stdout.Read(b) }

// Write writes the server's stdin.
func (p *Proc) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close closes both pipes; a server reading stdin then sees end of input.
func (p *Proc) Close() error {
	return errors.Join(p.stdin.Close(), p.stdout.Close())
}

// Kill kills the process and the processes it started.
func (p *Proc) Kill() {
	killTree(p.cmd.Process)
}

// ExitStatus describes how the process ended ("still running" while it
// runs), with the end of its stderr.
func (p *Proc) ExitStatus() string {
	status := "still running"
	select {
	case <-p.exited:
		status = "exit status 0"
		if p.err != nil {
			status = p.err.Error()
		}
		// Let the last words on stderr arrive (a child still holding
		// the pipe open must not delay the message much).
		select {
		case <-p.stderrDone:
		case <-time.After(100 * time.Millisecond):
		}
	default:
	}
	if t := strings.TrimSpace(p.stderr.String()); t != "" {
		status += "; its stderr ends with:\n" + t
	}
	return status
}

// MergeEnv returns base with extra's entries set, replacing same-named ones.
func MergeEnv(base []string, extra map[string]string) []string {
	if len(extra) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := extra[name]; !over {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

// tail keeps the last max bytes written to it, for error messages about
// a crashed server.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write implements io.Writer.
func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// String is the last lines kept.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	// Keep the last few lines: enough to show a panic's first frames.
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}

// WriteConn is the server's stdin as a raw descriptor, so that a framing
// stream can try writes that never block.
func (p *Proc) WriteConn() (syscall.RawConn, error) { return p.stdin.SyscallConn() }

// ReadConn is the server's stdout as a raw descriptor, which a framing
// stream reads with raw system calls.
func (p *Proc) ReadConn() (syscall.RawConn, error) { return p.stdout.SyscallConn() }
