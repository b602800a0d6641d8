package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools/shell"
)

// Terminals runs the bash tool's commands in the person's own terminal (an
// ACP client's terminal/*), where they watch them live. The command the
// terminal runs is agentls itself (`agentls exec`), which judges and
// confines the command's programs exactly as the bash tool does in
// agentls: the terminal shows the command, agentls keeps the gate and the
// sandbox.
type Terminals interface {
	// RunInTerminal runs c in a terminal of the call's session until it
	// exits or ctx ends (the terminal is then killed), and returns its
	// output. ErrNoTerminal means the session has none: the command runs
	// in agentls.
	RunInTerminal(ctx context.Context, c TerminalCommand) (TerminalResult, error)
}

// ErrNoTerminal is RunInTerminal's answer for a session without a
// terminal.
var ErrNoTerminal = errors.New("this session has no terminal")

// TerminalRefusedError is a front-end's report that the person's editor
// refused to run the command in its terminal (its own policy said no).
// The command does not run, and the turn ends as after a denial.
type TerminalRefusedError struct{ Reason string }

func (e *TerminalRefusedError) Error() string {
	return "the editor refused to run the command in its terminal: " + e.Reason
}

// TerminalCommand is one program for a terminal to run.
type TerminalCommand struct {
	// SessionID, TurnID and CallID name the bash call the terminal runs
	// for (the client shows the terminal in that call).
	SessionID, TurnID, CallID string
	// Program and Args are what the terminal starts.
	Program string
	Args    []string
	// Env is added to the terminal's environment (NAME=value).
	Env []string
	// Dir is the working folder.
	Dir string
	// OutputLimit is how many bytes of output the terminal keeps (the
	// end of it).
	OutputLimit int
}

// TerminalResult is what a terminal's program left.
type TerminalResult struct {
	// Output is the terminal's output (stdout and stderr together), its
	// end when Truncated.
	Output    string
	Truncated bool
	// ExitCode is the program's exit status; -1 when a signal ended it
	// (Signal names it).
	ExitCode int
	Signal   string
}

// ExecSpec is one bash command as `agentls exec` runs it in a terminal:
// the command, where and how it runs, the sandbox it is confined in, and
// the relay through which its programs reach agentls's proxy, whose
// checker asks the person about each new host in the call's turn.
type ExecSpec struct {
	Command  string       `json:"command"`
	Dir      string       `json:"dir"`
	Roots    []string     `json:"roots"`
	ReadOnly bool         `json:"read_only,omitempty"`
	Sandbox  sandbox.Spec `json:"sandbox"`
	// ProxySocket and ProxyToken reach agentls's proxy (sandbox.RelayDial);
	// empty without a network.
	ProxySocket string `json:"proxy_socket,omitempty"`
	ProxyToken  string `json:"proxy_token,omitempty"`
}

// ExecSpecEnv is the variable that carries an ExecSpec (as JSON) to
// `agentls exec`: set by agentls in the terminal's environment, never
// passed on to the command's programs.
const ExecSpecEnv = "AGENTLS_EXEC_SPEC"

// RunExec is `agentls exec`: it runs spec's command in the embedded shell
// with the bash tool's run-time checks (read-only, writes inside the
// roots, the block list), its programs confined by spec's sandbox and
// their network relayed to agentls's proxy, its output written to stdout
// and stderr as it comes. It returns the exit status (130 when ctx ended
// it).
func RunExec(ctx context.Context, spec ExecSpec, stdout, stderr io.Writer) int {
	var proxy *sandbox.Proxy
	if spec.ProxySocket != "" {
		proxy = sandbox.NewProxy(sandbox.ProxyOptions{Dial: sandbox.RelayDial(spec.ProxySocket, spec.ProxyToken)})
	}
	sb, err := sandbox.FromSpec(spec.Sandbox, proxy)
	if err != nil {
		fmt.Fprintf(stderr, "agentls exec: %v\n", err)
		return 126
	}
	opts := shell.Options{Dir: spec.Dir, Roots: spec.Roots, ReadOnly: spec.ReadOnly, Env: spec.Sandbox.Env}
	if sb != nil {
		defer sb.Close()
		token := ""
		if proxy != nil && sb.Confined() && sb.ProxyURL() != "" {
			// agentls's proxy judges every host; this one only relays.
			var release func()
			token, release = proxy.Register(ctx, func(context.Context, string, int) error { return nil })
			defer release()
		}
		opts.Start, opts.Env, opts.Git = killedWithParent(sb.Start), sb.Env(token), gitRunner(sb)
	}
	code, interrupted, err := shell.RunTo(ctx, spec.Command, opts, stdout, stderr)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "agentls exec: %v\n", err)
		if code == 0 {
			code = 1
		}
	case interrupted:
		return 130
	}
	return code
}

const execUsage = `Usage:
  agentls exec -- COMMAND

Runs one command of the agent's bash tool in an editor's terminal, for an
agentls process that asked the editor to (ACP terminal/create). The command
is judged and confined as agentls runs it; agentls passes how in the
environment. It is not meant to be run by hand.
`

// ExecMain is `agentls exec -- COMMAND` with its command line (after
// "exec"). The command comes twice — on the command line, where the
// terminal shows it, and in the spec agentls put in the environment
// (ExecSpecEnv), which says how it is confined — and runs only when both
// agree. The spec's variable is removed from this process's environment
// before anything runs.
func ExecMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 || args[0] != "--" {
		fmt.Fprint(stderr, execUsage)
		return 2
	}
	raw, ok := os.LookupEnv(ExecSpecEnv)
	if !ok {
		fmt.Fprintf(stderr, "agentls exec: no %s in the environment: this command runs commands for agentls in an editor's terminal, not by hand\n", ExecSpecEnv)
		return 2
	}
	os.Unsetenv(ExecSpecEnv)
	var spec ExecSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintf(stderr, "agentls exec: %s is not a spec agentls wrote: %v\n", ExecSpecEnv, err)
		return 2
	}
	if spec.Command != args[1] {
		fmt.Fprintln(stderr, "agentls exec: the command line and the spec name different commands; nothing was run")
		return 2
	}
	return RunExec(ctx, spec, stdout, stderr)
}
