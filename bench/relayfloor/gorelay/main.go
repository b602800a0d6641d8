// Command gorelay is the least a Go process between an editor and its
// language server can do: run the server (its arguments) on pipes and
// copy bytes both ways with io.Copy — no framing, no parsing, no ids. A
// floor BenchmarkWrapHover and BenchmarkWrapThroughput compare `agentls
// serve --wrap` with (docs/performance.md):
//
//	go build -o /tmp/gorelay ./bench/relayfloor/gorelay
//	AGENTLS_BENCH_RELAY=/tmp/gorelay go test ./internal/frontend/lsp \
//	  -run '^$' -bench '^BenchmarkWrap(Hover|Throughput)$'
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gorelay SERVER [ARGS…]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gorelay:", err)
		os.Exit(2)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gorelay:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "gorelay:", err)
		os.Exit(2)
	}
	go func() {
		_, _ = io.Copy(in, os.Stdin)
		_ = in.Close()
	}()
	_, _ = io.Copy(os.Stdout, out)
	_ = cmd.Wait()
}
