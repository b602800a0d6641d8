package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/tools/shell"
)

const (
	// terminalOutputLimit is how much of a terminal's output agentls
	// reads back (the end of it); the person sees all of it there.
	terminalOutputLimit = 1 << 20
	// terminalMaxRun bounds a command in a terminal: it cannot move to the
	// background as it does in agentls, so a server started without
	// run_in_background would hold the turn.
	terminalMaxRun = 10 * time.Minute
)

// runInTerminal runs a foreground command in the session's terminal as
// `agentls exec`, with the judge's run-time checks (opts.ReadOnly), the
// call's sandbox and its proxy token (conf) carried in an ExecSpec. ok is
// false when the session has no terminal: the command then runs in
// agentls. opts.Done is called once the command has ended.
func (t *BashTool) runInTerminal(ctx context.Context, call Call, command string, opts shell.Options, conf *confinement) (Result, bool) {
	done := func() {
		if opts.Done != nil {
			opts.Done()
		}
	}
	spec := ExecSpec{Command: command, Dir: opts.Dir, Roots: opts.Roots, ReadOnly: opts.ReadOnly, Sandbox: conf.sb.Spec()}
	if conf.token != "" && t.env.proxy != nil {
		sock, stop, err := t.env.proxy.ServeSocket()
		if err != nil {
			done()
			return Errorf("bash: %v", err), true
		}
		defer stop()
		spec.ProxySocket, spec.ProxyToken = sock, conf.token
	}
	b, err := json.Marshal(spec)
	if err != nil {
		done()
		return Errorf("bash: %v", err), true
	}
	runCtx, cancel := context.WithTimeout(ctx, terminalMaxRun)
	defer cancel()
	res, err := t.env.terminals.RunInTerminal(runCtx, TerminalCommand{
		SessionID: call.SessionID, TurnID: call.TurnID, CallID: call.ID,
		Program: t.env.exe, Args: []string{"exec", "--", command},
		Env: []string{ExecSpecEnv + "=" + string(b)}, Dir: opts.Dir, OutputLimit: terminalOutputLimit,
	})
	var refused *TerminalRefusedError
	switch {
	case errors.Is(err, ErrNoTerminal):
		return Result{}, false
	case errors.As(err, &refused):
		done()
		return Result{Content: "bash: " + refused.Error() + "; the command did not run, and the turn ends here: do not retry", IsError: true, Stop: true}, true
	}
	defer done()
	output := res.Output
	if res.Truncated {
		output = "(the start of the output was cut; the whole output is in the editor's terminal)\n" + output
	}
	text := "<output>\n" + strings.TrimRight(output, "\n") + "\n</output>"
	if strings.TrimSpace(res.Output) == "" {
		text = "(no output)"
	}
	switch {
	case ctx.Err() != nil:
		return Result{Content: text + "\nThe command was cancelled.", IsError: true}, true
	case runCtx.Err() != nil:
		return Result{Content: text + fmt.Sprintf("\nThe command ran for %s in the editor's terminal and was stopped; start servers and watchers with run_in_background.", terminalMaxRun), IsError: true}, true
	case err != nil:
		return Errorf("bash: the editor's terminal: %v", err), true
	}
	exit := res.ExitCode
	if res.Signal != "" {
		text += "\nKilled by signal " + res.Signal + "."
	}
	return conf.result(t.format(text, exit), res.Output, exit), true
}
