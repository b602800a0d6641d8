package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/textclip"

	"github.com/agentls/agentls/internal/tools/shell"
	"mvdan.cc/sh/v3/syntax"
)

// Exit codes with a meaning; any other non-zero code is a broken hook.
const (
	// ExitDeny refuses the action; stderr is the reason.
	ExitDeny = 2
	// ExitHalt ends the whole turn; stderr is the reason. 49 is outside
	// the ranges of common errors, sysexits and signals, so it is never
	// hit by accident.
	ExitHalt = 49
)

const (
	// abandonGrace is how long a timed-out hook gets to stop before it is
	// abandoned, so one stuck hook cannot hold up the agent.
	abandonGrace = time.Second
	// maxOutput bounds the bytes kept per stream of one hook.
	maxOutput = 1 << 20
	// exitAbandoned is the exit code reported for an abandoned hook.
	exitAbandoned = -1
	// maxStderrInWarning bounds the stderr quoted by a warning.
	maxStderrInWarning = 500
)

// Options configures a Runner.
type Options struct {
	// Dir returns the working directory of hooks (the workspace root,
	// absolute); it is asked on every run because editors can change it.
	Dir func() string
	// Env is the base environment; nil means the server's, through the
	// sandbox's allow-list. The shell removes secrets from it as it does
	// for the bash tool.
	Env []string
	// Start starts the hooks' programs (a sandbox's Start, which confines
	// them); nil means exec.Cmd.Start.
	Start func(*exec.Cmd) error
	// OnEvent, if set, receives a TypeRun event for every hook run and a
	// TypeWarning event for every problem with a hook. It is called from
	// the goroutine calling Run, after its hooks are done, in
	// configuration order; concurrent Runs call it concurrently.
	OnEvent func(Event)
}

// Input is what a hook is told about the event. Fields that do not apply to
// the event are left out of the payload.
type Input struct {
	Event     EventName
	SessionID string
	TurnID    string
	// ToolName and ToolInput (the call's JSON arguments): tool events.
	ToolName  string
	ToolInput json.RawMessage
	// ToolResult and IsError: PostToolUse and PostToolUseFailure.
	ToolResult string
	IsError    bool
	// Prompt is the user's message: UserPromptSubmit.
	Prompt string
	// StopReason is why the model stopped: Stop.
	StopReason string
}

// Result is the merged answer of every hook that ran for one event. Check
// Halt first, then Decision.
//
//   - Halt: end the turn now, showing HaltReason (Decision is then Deny too,
//     so a caller that looks only at Decision still runs nothing more).
//   - UserPromptSubmit: Deny means the turn does not start and the user sees
//     Reason; Context is added to the prompt.
//   - PreToolUse (the gate's hook step): Allow skips only the person's ask,
//     never a hard block; Deny refuses this call with Reason as its result
//     and the turn goes on; UpdatedInput rewrites the call (see ApplyInput),
//     which the gate then judges again.
//   - PostToolUse, PostToolUseFailure: Context is appended to the result.
//   - Stop: Deny tells the model Reason and lets it continue, within a
//     StopLimit.
//   - SessionStart: Context is added to the session's first prompt.
type Result struct {
	Decision Decision
	// Reason joins, in configuration order, the reasons given for Decision.
	Reason string
	// Context joins every hook's additional context in order.
	Context string
	// UpdatedInput is the merged top-level rewrite of the tool input; nil
	// when no hook rewrote it. Meaningless when Decision is Deny.
	UpdatedInput map[string]json.RawMessage
	Halt         bool
	HaltReason   string
	// Ran counts the hooks run (after removing duplicates).
	Ran int
}

// Runner runs the configured hooks. It is safe for concurrent use and
// holds no state between runs except the goroutines of abandoned hooks.
type Runner struct {
	hooks []hook
	opts  Options
	// procs tracks every hook's shell goroutine, abandoned ones included.
	procs sync.WaitGroup
}

// hook is a validated Config ready to run.
type hook struct {
	Config
	re      *regexp.Regexp
	timeout time.Duration
}

// New validates hooks (as Parse does) and returns a Runner for them.
func New(hooks []Config, o Options) (*Runner, error) {
	if o.Dir == nil {
		return nil, errors.New("hooks: Options.Dir is required; pass a function returning the workspace root")
	}
	r := &Runner{opts: o}
	var errs []error
	for i, c := range hooks {
		re, err := c.check()
		if err != nil {
			errs = append(errs, fmt.Errorf("hooks[%d]: %w", i, err))
			continue
		}
		r.hooks = append(r.hooks, hook{Config: c, re: re, timeout: c.timeout()})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return r, nil
}

// Matches reports whether any hook would run for event and tool, so a
// caller can skip building an Input.
func (r *Runner) Matches(event EventName, tool string) bool {
	for _, h := range r.hooks {
		if h.matches(event, tool) {
			return true
		}
	}
	return false
}

func (h hook) matches(event EventName, tool string) bool {
	return h.Event == event && (h.re == nil || !event.IsToolEvent() || h.re.MatchString(tool))
}

// Wait blocks until every hook started by this Runner has ended, including
// abandoned ones (which end when the shell's kill grace has passed). For
// shutdown and tests: call it once no Run is in progress or will start.
func (r *Runner) Wait() { r.procs.Wait() }

// Run runs the hooks for in.Event (and in.ToolName, for tool events)
// concurrently, each command once, and merges their answers in
// configuration order. Hooks that fail, time out or print malformed output
// have no opinion; they are reported to OnEvent. Cancelling ctx stops the
// hooks still running; they have no opinion.
func (r *Runner) Run(ctx context.Context, in Input) Result {
	var selected []hook
	seen := map[string]bool{}
	for _, h := range r.hooks {
		key := strings.TrimSpace(h.Command)
		if h.matches(in.Event, in.ToolName) && !seen[key] {
			seen[key] = true
			selected = append(selected, h)
		}
	}
	if len(selected) == 0 {
		return Result{}
	}
	dir := r.opts.Dir()
	stdin, err := payload(in, dir)
	if err != nil {
		// Only an unencodable string can get here; run nothing rather than
		// hand hooks a payload they cannot parse.
		r.emit(Event{Type: TypeWarning, Event: in.Event, Message: fmt.Sprintf("hooks not run: %v", err)})
		return Result{}
	}
	outs := make([]ran, len(selected))
	var wg sync.WaitGroup
	for i, h := range selected {
		wg.Go(func() { outs[i] = r.runOne(ctx, h, in, dir, stdin) })
	}
	wg.Wait()

	vs := make([]verdict, len(outs))
	for i, o := range outs {
		vs[i] = o.verdict
		h := selected[i]
		r.emit(Event{
			Type: TypeRun, Event: in.Event, Command: h.Command,
			ExitCode: o.exit, Decision: o.verdict.label(), DurationMS: o.dur.Milliseconds(),
		})
		for _, w := range o.warnings {
			r.emit(Event{Type: TypeWarning, Event: in.Event, Command: h.Command, Message: w})
		}
	}
	res := merge(vs)
	res.Ran = len(selected)
	return res
}

func (r *Runner) emit(e Event) {
	if r.opts.OnEvent != nil {
		r.opts.OnEvent(e)
	}
}

// ran is the outcome of one hook.
type ran struct {
	verdict  verdict
	exit     int
	dur      time.Duration
	warnings []string
}

// runOne runs one hook to a verdict. Its shell runs on a goroutine that
// alone owns the output buffers until it sends the finished result on a
// buffered channel; once a hook is abandoned that channel is never read,
// so the goroutine may go on writing without racing anyone.
func (r *Runner) runOne(ctx context.Context, h hook, in Input, dir string, stdin []byte) ran {
	start := time.Now()
	hctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	type finished struct {
		res shell.Result
		err error
	}
	done := make(chan finished, 1)
	opts := shell.Options{
		Dir: dir, Env: r.opts.Env, Start: r.opts.Start, Unrestricted: true,
		MaxOutput: maxOutput, Stdin: bytes.NewReader(stdin),
	}
	script := withEnv(in, h.Command)
	r.procs.Go(func() {
		res, err := shell.Run(hctx, script, opts)
		done <- finished{res, err}
	})
	var f finished
	select {
	case f = <-done:
	case <-hctx.Done():
		t := time.NewTimer(abandonGrace)
		select {
		case f = <-done:
			t.Stop()
		case <-t.C:
			out := ran{exit: exitAbandoned, dur: time.Since(start)}
			if ctx.Err() == nil {
				out.warnings = []string{fmt.Sprintf(
					"timed out after %v and did not stop within %v; abandoned and its output ignored (it is killed when the shell's kill grace ends); make it faster or raise its timeout",
					h.timeout, abandonGrace)}
			}
			return out
		}
	}
	out := ran{exit: f.res.ExitCode, dur: time.Since(start)}
	switch {
	case f.err != nil:
		out.warnings = []string{fmt.Sprintf("could not run: %v", f.err)}
	case f.res.Interrupted:
		if ctx.Err() == nil {
			out.warnings = []string{fmt.Sprintf("timed out after %v; its result is ignored; make it faster or raise its timeout", h.timeout)}
		}
	case f.res.ExitCode == 0:
		v, warnings, err := parseOutput(in.Event, f.res.Stdout)
		if err != nil {
			warnings = append(warnings, "output ignored: "+err.Error())
		}
		out.verdict, out.warnings = v, warnings
	case f.res.ExitCode == ExitDeny:
		out.verdict = verdict{decision: Deny, reason: firstNonEmpty(strings.TrimSpace(f.res.Stderr), defaultDenyReason)}
	case f.res.ExitCode == ExitHalt:
		why := firstNonEmpty(strings.TrimSpace(f.res.Stderr), defaultHaltReason)
		out.verdict = verdict{decision: Deny, reason: why, halt: true, haltReason: why}
	default:
		msg := fmt.Sprintf("exited with status %d, so its result is ignored; a hook exits 0 (JSON answer on stdout), %d (deny) or %d (halt the turn)", f.res.ExitCode, ExitDeny, ExitHalt)
		if s := strings.TrimSpace(f.res.Stderr); s != "" {
			msg += ": stderr: " + clip(s, maxStderrInWarning)
		}
		out.warnings = []string{msg}
	}
	return out
}

// label is a verdict as the run event shows it.
func (v verdict) label() string {
	switch {
	case v.halt:
		return "halt"
	case v.decision == NoOpinion:
		return "none"
	}
	return string(v.decision)
}

// withEnv prefixes command with exports of the hook variables. They cannot
// come through Options.Env: the shell removes every AGENTLS_* variable.
// The prefix shares the command's first line so line numbers in its error
// messages stay right.
func withEnv(in Input, command string) string {
	vars := []string{"AGENTLS_HOOK_EVENT", string(in.Event)}
	if in.Event.IsToolEvent() {
		vars = append(vars, "AGENTLS_TOOL_NAME", in.ToolName)
	}
	var b strings.Builder
	for i := 0; i < len(vars); i += 2 {
		q, err := syntax.Quote(vars[i+1], syntax.LangBash)
		if err != nil {
			continue // a NUL byte: leave the variable unset
		}
		fmt.Fprintf(&b, "export %s=%s; ", vars[i], q)
	}
	return b.String() + command
}

// hookPayload is the JSON object a hook reads on stdin.
type hookPayload struct {
	Event      EventName       `json:"event"`
	SessionID  string          `json:"session_id"`
	TurnID     string          `json:"turn_id"`
	Cwd        string          `json:"cwd"`
	ToolName   *string         `json:"tool_name,omitempty"`
	ToolInput  json.RawMessage `json:"tool_input,omitempty"`
	ToolResult *string         `json:"tool_result,omitempty"`
	IsError    *bool           `json:"is_error,omitempty"`
	Prompt     *string         `json:"prompt,omitempty"`
	StopReason *string         `json:"stop_reason,omitempty"`
}

// payload encodes in for the hook's stdin, with only the fields of its
// event. Tool input that is not valid JSON is passed as a string so the
// hook still sees what the model sent.
func payload(in Input, dir string) ([]byte, error) {
	p := hookPayload{Event: in.Event, SessionID: in.SessionID, TurnID: in.TurnID, Cwd: dir}
	if in.Event.IsToolEvent() {
		p.ToolName = &in.ToolName
		switch raw := bytes.TrimSpace(in.ToolInput); {
		case len(raw) == 0:
			p.ToolInput = json.RawMessage("{}")
		case json.Valid(raw):
			p.ToolInput = raw
		default:
			s, err := json.Marshal(string(raw))
			if err != nil {
				return nil, fmt.Errorf("encode tool input: %w", err)
			}
			p.ToolInput = s
		}
	}
	switch in.Event {
	case PostToolUse, PostToolUseFailure:
		isErr := in.IsError || in.Event == PostToolUseFailure
		p.ToolResult, p.IsError = &in.ToolResult, &isErr
	case UserPromptSubmit:
		p.Prompt = &in.Prompt
	case Stop:
		p.StopReason = &in.StopReason
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode hook payload: %w", err)
	}
	return append(b, '\n'), nil
}

// clip shortens s to at most n bytes, on a character boundary.
func clip(s string, n int) string { return textclip.Bytes(s, n, "…") }
