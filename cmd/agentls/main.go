// Command agentls is a language server that brings a coding agent into any
// editor, and the same agent headless for scripts and CI.
//
//	agentls serve [--stdio]     language server on stdin/stdout
//	agentls acp                 Agent Client Protocol agent on stdin/stdout
//	agentls run PROMPT          one headless turn
//	agentls trust [DIR]         trust a workspace folder (untrust, trust --list)
//	agentls sandbox             what the kernel enforces for the programs agentls starts
//	agentls version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// Version is set at build time with -ldflags "-X main.Version=…"
// (scripts/release does); unset, it is the module version the go command
// recorded (`go install github.com/agentls/agentls/cmd/agentls@v1.2.3`:
// v1.2.3), else 0.1.0-dev.
var Version string

func init() {
	if Version == "" {
		info, _ := debug.ReadBuildInfo()
		Version = moduleVersion(info)
	}
}

// moduleVersion is the main module's version in info, or 0.1.0-dev when
// the go command recorded none (a build outside a module cache or VCS
// checkout: "(devel)").
func moduleVersion(info *debug.BuildInfo) string {
	if info == nil || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "0.1.0-dev"
	}
	return info.Main.Version
}

const usage = `agentls — a coding agent as a language server.

Usage:
  agentls serve [--stdio] [flags]   run the language server on stdin/stdout
  agentls acp [flags]               run as an Agent Client Protocol agent (Zed, JetBrains, …)
  agentls run [flags] PROMPT        run one agent turn headless
  agentls sessions [list|show ID|export ID|delete ID]
                                    the workspace's stored sessions (run --continue resumes)
  agentls revert [flags]            undo the files a turn changed
  agentls checkpoints [list|restore ID|undo]
                                    restore the workspace to before any step, bash's too
  agentls permission explain|grants|revoke
                                    see which rule decides a call; manage "Always allow"
  agentls trust [--subfolders] [DIR] | trust --list | untrust [DIR]
                                    let a workspace folder run its own code (language
                                    servers' full form, its .agentls.json), or stop
  agentls sandbox [--json] [-- COMMAND ARGS]
                                    what the sandbox enforces here; run a command in it
  agentls version                   print the version

Run "agentls COMMAND --help" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a command line and returns the exit code: 0 success,
// 1 failure, 2 bad usage.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return cmdServe(ctx, args[1:], stdin, stdout, stderr)
	case "acp":
		return cmdACP(ctx, args[1:], stdin, stdout, stderr)
	case "run":
		return cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "permission":
		return cmdPermission(ctx, args[1:], stdout, stderr)
	case "sessions":
		return cmdSessions(ctx, args[1:], stdout, stderr)
	case "revert":
		return cmdRevert(ctx, args[1:], stdout, stderr)
	case "checkpoints":
		return cmdCheckpoints(ctx, args[1:], stdout, stderr)
	case "trust":
		return cmdTrust(args[1:], stdout, stderr)
	case "sandbox":
		return cmdSandbox(args[1:], stdout, stderr)
	case "exec":
		return cmdExec(ctx, args[1:], stdout, stderr)
	case "untrust":
		return cmdUntrust(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "agentls", Version)
		return 0
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "agentls: unknown command %q\n\n%s", args[0], usage)
	return 2
}
