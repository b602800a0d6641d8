//go:build unix

// Command gopoll is gorelay without Go's poller: one goroutine on a locked
// thread runs the server (its arguments) on pipes and copies bytes both
// ways with poll(2), read(2) and write(2), as the C relay does, through
// Go's system calls. A floor BenchmarkWrapHover and
// BenchmarkWrapThroughput compare `agentls serve --wrap` with
// (docs/performance.md):
//
//	go build -o /tmp/gopoll ./bench/relayfloor/gopoll
//	AGENTLS_BENCH_RELAY=/tmp/gopoll go test ./internal/frontend/lsp \
//	  -run '^$' -bench '^BenchmarkWrap(Hover|Throughput)$'
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gopoll SERVER [ARGS…]")
		os.Exit(2)
	}
	runtime.LockOSThread()
	var in, out [2]int
	if err := unix.Pipe(in[:]); err != nil {
		fmt.Fprintln(os.Stderr, "gopoll:", err)
		os.Exit(2)
	}
	if err := unix.Pipe(out[:]); err != nil {
		fmt.Fprintln(os.Stderr, "gopoll:", err)
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin = os.NewFile(uintptr(in[0]), "stdin")
	cmd.Stdout = os.NewFile(uintptr(out[1]), "stdout")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "gopoll:", err)
		os.Exit(2)
	}
	_ = unix.Close(in[0])
	_ = unix.Close(out[1])
	buf := make([]byte, 1<<16)
	copyOnce := func(from, to int) bool {
		n, err := unix.Read(from, buf)
		if n <= 0 || err != nil {
			return false
		}
		for off := 0; off < n; {
			w, err := unix.Write(to, buf[off:n])
			if w <= 0 || err != nil {
				return false
			}
			off += w
		}
		return true
	}
	fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}, {Fd: int32(out[0]), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			continue
		}
		if fds[0].Revents != 0 && !copyOnce(0, in[1]) {
			break
		}
		if fds[1].Revents != 0 && !copyOnce(out[0], 1) {
			break
		}
	}
	_ = unix.Close(in[1])
	_ = cmd.Wait()
}
