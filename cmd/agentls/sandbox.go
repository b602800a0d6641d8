package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
)

const sandboxUsage = `Usage:
  agentls sandbox [--workspace DIR] [--json]         what this machine enforces for DIR's programs
  agentls sandbox [--workspace DIR] -- COMMAND ARGS  run COMMAND confined as agentls runs programs

Every program agentls starts (commands, background jobs, hooks, language servers, MCP servers)
runs confined: it writes only in the workspace, the session's temporary folder and the build
caches, reads no secret in your home folder, gets only allow-listed environment variables, and
reaches the network only through agentls's proxy, which asks before each new host. The first
form prints the kernel's mechanism, the read and write lists and the environment allow-list;
the second runs a command as agentls runs a server program (its network: the package registries
and the hosts your net.fetch rules allow), to see what the sandbox refuses.
Configure it under "sandbox" in the user config file (docs/security.md#sandbox).
`

func cmdSandbox(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sandboxUsage) }
	workspace := fs.String("workspace", ".", "the workspace folder")
	jsonOut := fs.Bool("json", false, "print the status as one JSON object")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	env, closeEnv, err := headlessEnv(stderr, appFlags{}, *workspace)
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return exitCode(err)
	}
	defer closeEnv()
	sb := env.Sandbox()
	if fs.NArg() > 0 {
		l, err := sb.Launch(fs.Arg(0), nil)
		if err != nil {
			fmt.Fprintln(stderr, "agentls sandbox:", err)
			return 1
		}
		defer l.Release()
		cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
		cmd.Dir = env.Workspace().Roots()[0]
		cmd.Env = l.Env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
		if err := l.Start(cmd); err != nil {
			fmt.Fprintln(stderr, "agentls sandbox:", err)
			return 1
		}
		if err := cmd.Wait(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode()
			}
			fmt.Fprintln(stderr, "agentls sandbox:", err)
			return 1
		}
		return 0
	}
	st := sb.Status()
	if sb == nil {
		st.Reason = `sandbox.mode is "off" in the user config file: programs run unconfined`
	}
	if *jsonOut {
		b, _ := json.MarshalIndent(st, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	fmt.Fprint(stdout, st.String())
	return 0
}
