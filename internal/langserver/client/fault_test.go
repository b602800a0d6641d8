package client

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// The fault suite's language-server faults (docs/faults.md), on the fake
// server this test binary becomes (main_test.go): each fault is reported
// with what to do, and the next request is answered.

// TestFaultServerCrashesMidRequest: the server dies while answering.
// Once: the request is sent again to a restarted server and answered.
// Every time: the request fails at once, not at its timeout, naming the
// server, the request and the crash's last words.
func TestFaultServerCrashesMidRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode    string
		answers bool
	}{{"echo,crash=once", true}, {"echo,crash", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			m, dir, logPath := fakeManager(t, tc.mode, func(c *Config) { c.RequestTimeout = time.Minute })
			ctx := context.Background()
			path := fakeFile(t, dir, "hello\n")
			c, err := m.ClientFor(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			pid := c.PID()
			locs, err := c.Definition(ctx, path, 1, 1)
			if _, crashed := os.Stat(logPath + ".crashed"); crashed != nil {
				t.Fatal("the server did not crash")
			}
			if tc.answers {
				if err != nil || len(locs) != 1 {
					t.Fatalf("Definition across a crash: %v, %v", locs, err)
				}
				if c.PID() == pid || c.PID() == 0 {
					t.Errorf("pid %d after the crash (was %d): not restarted", c.PID(), pid)
				}
				return
			}
			if err == nil || errors.Is(err, ErrTimeout) {
				t.Fatalf("Definition on a server that crashes: %v, want the crash at once", err)
			}
			for _, want := range []string{"fake exited while answering textDocument/definition", "index out of range", "restarts on next use"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestRunningOnlyDoesNotRestart: a request made with RunningOnly (inline
// completion's symbol lookups) on a server that dies under it fails with
// ErrNotRunning and starts nothing; the next ordinary request restarts
// the server and is answered.
func TestRunningOnlyDoesNotRestart(t *testing.T) {
	t.Parallel()
	m, dir, logPath := fakeManager(t, "echo,crash=once", func(c *Config) { c.RequestTimeout = time.Minute })
	ctx := context.Background()
	path := fakeFile(t, dir, "hello\n")
	c, err := m.ClientFor(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if c.PID() == 0 {
		t.Fatal("the server is not running")
	}
	_, err = c.Definition(RunningOnly(ctx), path, 1, 1)
	if _, crashed := os.Stat(logPath + ".crashed"); crashed != nil {
		t.Fatal("the server did not crash")
	}
	if !errors.Is(err, ErrNotRunning) {
		t.Fatalf("a running-only request across a crash: %v, want ErrNotRunning", err)
	}
	if pid := c.PID(); pid != 0 {
		t.Fatalf("a running-only request restarted the server (pid %d)", pid)
	}
	if _, err := c.Hover(RunningOnly(ctx), path, 1, 1); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("a running-only request with no server running: %v, want ErrNotRunning", err)
	}
	if c.PID() != 0 {
		t.Fatal("a running-only request started the server")
	}
	locs, err := c.Definition(ctx, path, 1, 1)
	if err != nil || len(locs) != 1 {
		t.Fatalf("an ordinary request after the crash: %v, %v", locs, err)
	}
	if c.PID() == 0 {
		t.Fatal("an ordinary request did not restart the server")
	}
}

// TestFaultServerHangs: the server never answers. The request ends at
// its timeout with the server, the request and lsp_restart named, the
// server is told to drop it ($/cancelRequest), and it stays up (a hang is
// not a crash).
func TestFaultServerHangs(t *testing.T) {
	t.Parallel()
	m, dir, logPath := fakeManager(t, "silent", func(c *Config) { c.RequestTimeout = 300 * time.Millisecond })
	ctx := context.Background()
	path := fakeFile(t, dir, "hello\n")
	c, err := m.ClientFor(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Definition(ctx, path, 1, 1)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("Definition on a silent server: %v, want ErrTimeout", err)
	}
	for _, want := range []string{"fake", "textDocument/definition", "300ms", "lsp_restart"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	waitFor(t, "$/cancelRequest", func() bool { return len(framesWith(t, logPath, "$/cancelRequest")) == 1 })
	if pid := c.PID(); pid == 0 {
		t.Error("server not running after a timeout")
	}
}

// TestFaultServerFloodsOutput: the server prints 32 MiB without a newline
// and megabytes of lines on stdout and stderr, and sends thousands of log
// notifications. It starts, answers, and what is kept of its stderr is
// its end, bounded.
func TestFaultServerFloodsOutput(t *testing.T) {
	t.Parallel()
	m, dir, _ := fakeManager(t, "echo,flood", nil)
	ctx := context.Background()
	path := fakeFile(t, dir, "hello\n")
	c, err := m.ClientFor(ctx, path)
	if err != nil {
		t.Fatalf("start a flooding server: %v", err)
	}
	for range 2 {
		if locs, err := c.Definition(ctx, path, 1, 1); err != nil || len(locs) != 1 {
			t.Fatalf("Definition on a flooding server: %v, %v", locs, err)
		}
	}
	// What is kept of the 8 MiB of stderr, for error messages, is its end.
	if st := c.current().proc.ExitStatus(); len(st) > 9<<10 || !strings.Contains(st, "trace: xxx") {
		t.Errorf("kept of stderr: %d bytes (%.40q…), want its end, at most 8 KiB", len(st), st)
	}
}
