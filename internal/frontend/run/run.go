package run

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/term"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
)

// Options are what `agentls run` was asked on its command line.
type Options struct {
	// Prompt is the person's message; it may be empty with Compact.
	Prompt string
	// Model is the model the command line names (--model): the session
	// runs it, a continued one too (the conversation kept), and keeps it.
	Model string
	// OnAskDeny denies (and reports) what would be asked when there is no
	// terminal to ask on.
	OnAskDeny bool
	// JSON prints one event per line instead of the answer.
	JSON bool
	// MaxSteps bounds the model calls of the turn; 0 is the default.
	MaxSteps int
	// Continue and Session continue the workspace's latest session or the
	// stored one with this id.
	Continue bool
	Session  string
	// Compact compacts the conversation before the turn.
	Compact bool
	// Record writes the session as a replay script to this file when the
	// turn ends.
	Record string
	// Dir is where the command was typed: a replay path on the command
	// line is relative to it.
	Dir string
	// ConfigPath is the user's config file, named in advice.
	ConfigPath string
}

// Streams are the run's standard input and outputs: the answer goes to
// Out, questions, notices and errors to Err.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// Turn runs one turn in env and returns the exit status: 0 when the turn
// ended normally (completed, denied or cancelled), 1 on an agent or
// provider error, 2 when it could not start.
func Turn(ctx context.Context, env *app.Env, o Options, s Streams) int {
	// --model on a continued session switches it to that model, the
	// conversation kept; without it the session goes on with the model
	// chosen in it, else the defaults.
	spec, err := env.SessionModel(ctx, app.SessionOptions{Continue: o.Continue, Resume: o.Session, Model: o.Model, ModelChosen: o.Model != ""})
	if err != nil {
		return Fail(s, o.JSON, 2, err)
	}
	set, err := env.Settings(config.Config{})
	if err != nil {
		return Fail(s, o.JSON, 2, err)
	}
	prov, err := env.Provider(spec, o.Dir, set)
	if err != nil {
		return Fail(s, o.JSON, 2, err)
	}
	var asker permission.Asker
	channel := "headless"
	pmode := set.Policy.Mode
	if pmode == "" {
		pmode = permission.ModeSmart
	}
	if f, ok := s.In.(*os.File); ok && isTerminal(f) {
		asker = &terminalAsker{in: bufio.NewReader(f), out: s.Err}
		channel = "terminal"
	} else if (pmode == permission.ModeSmart || pmode == permission.ModeApprove) && !o.OnAskDeny {
		return Fail(s, o.JSON, 2, fmt.Errorf("%s mode asks before edits and commands, and there is no terminal to ask on: "+
			"use --mode auto (or --yolo) to let the agent act without asking, add allow rules to \"permissions.rules\" in %s, "+
			"or pass --on-ask deny to deny and report whatever would be asked", pmode, o.ConfigPath))
	}
	sess, err := env.NewSession(ctx, app.SessionOptions{Asker: asker, Channel: channel, MaxSteps: o.MaxSteps, Provider: prov,
		Model: spec, ModelChosen: o.Model != "", Settings: &set, Continue: o.Continue, Resume: o.Session})
	if err != nil {
		return Fail(s, o.JSON, 2, err)
	}
	if o.Record != "" {
		defer func() {
			if err := writeReplay(ctx, env, sess.ID, o.Record); err != nil {
				fmt.Fprintln(s.Err, "agentls run: --record:", err)
			}
		}()
	}
	for _, w := range sess.Settings.Warnings {
		fmt.Fprintln(s.Err, "agentls run: warning:", w)
	}
	defer sess.CloseHooks()
	// On a terminal the answer streams as it is written.
	streaming := false
	if f, ok := s.Out.(*os.File); ok && !o.JSON && isTerminal(f) {
		streaming = true
	}
	emit := printer(s, o.JSON, streaming)
	if o.Compact {
		if err := sess.Compact(ctx, emit); err != nil {
			return Fail(s, o.JSON, 1, err)
		}
		if o.Prompt == "" {
			return 0
		}
	}
	sess.SetFolder(o.Dir) // where the command was typed: its AGENTS.md files count
	turn, err := sess.Start(ctx, o.Prompt, emit)
	if err != nil {
		return Fail(s, o.JSON, 2, err)
	}
	res := turn.Wait()
	switch {
	case streaming:
		fmt.Fprintln(s.Out)
	case !o.JSON && res.Text != "":
		fmt.Fprintln(s.Out, res.Text)
	}
	switch res.Reason {
	case agent.ReasonCompleted, agent.ReasonDenied, agent.ReasonCancelled:
		if res.Reason == agent.ReasonDenied && asker == nil && !o.JSON {
			fmt.Fprintln(s.Err, "agentls run: a call needed permission and was denied (--on-ask deny); use --mode auto or allow rules to let the agent act")
		}
		return 0
	}
	return 1
}

// Fail reports err the way the run reports everything (an error event
// with JSON, and a line on stderr) and returns code.
func Fail(s Streams, jsonOut bool, code int, err error) int {
	if jsonOut {
		_ = json.NewEncoder(s.Out).Encode(agent.Event{Type: agent.EventError, Message: err.Error()})
	}
	fmt.Fprintln(s.Err, "agentls run:", err)
	return code
}

// printer is the run's event sink: every event as a JSON line, or the
// answer streamed to stdout with tool calls, errors, warnings and
// refusals on stderr.
func printer(s Streams, jsonOut, streaming bool) func(agent.Event) {
	var mu sync.Mutex
	enc := json.NewEncoder(s.Out)
	return func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		if jsonOut {
			_ = enc.Encode(e)
			return
		}
		switch e.Type {
		case agent.EventTextDelta:
			if streaming {
				fmt.Fprint(s.Out, e.Text)
			}
		case agent.EventToolCall, agent.EventError, agent.EventCompaction, agent.EventWarning:
			if streaming {
				fmt.Fprintln(s.Out)
			}
			fmt.Fprintln(s.Err, e.String())
		case agent.EventPermission:
			if e.Decision != string(permission.Allow) {
				fmt.Fprintln(s.Err, e.String())
			}
		}
	}
}

// isTerminal reports whether f is a terminal (on every system).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
