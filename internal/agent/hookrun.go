package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/internal/agent/hooks"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// Turn end reasons added by hooks.
const (
	// ReasonBlocked: a UserPromptSubmit hook refused the prompt.
	ReasonBlocked = "blocked"
	// ReasonHalted: a hook halted the turn (exit 49 or halt: true).
	ReasonHalted = "halted"
)

// Event types for hooks.
const (
	EventHook        EventType = "hook"
	EventHookWarning EventType = "hook_warning"
)

func (s *Session) initHooks() {
	if len(s.cfg.Hooks) == 0 {
		return
	}
	dir := s.cfg.HookDir
	if dir == nil {
		dir = func() string { return "." }
	}
	l, err := s.cfg.HookSandbox.Launch("", nil)
	if err != nil {
		s.hookErr = fmt.Errorf("hooks: %w", err)
		return
	}
	s.hookRelease = l.Release
	r, err := hooks.New(s.cfg.Hooks, hooks.Options{Dir: dir, OnEvent: s.hookEvent, Env: l.Env, Start: l.Start})
	if err != nil {
		s.hookErr = fmt.Errorf("hooks: %w", err)
		return
	}
	s.hooks = r
}

// CloseHooks waits for every hook the session started (abandoned ones
// included) to end; for shutdown.
func (s *Session) CloseHooks() {
	if s.hooks != nil {
		s.hooks.Wait()
	}
	if s.hookRelease != nil {
		s.hookRelease()
	}
}

func (s *Session) setHookSend(send func(Event)) {
	s.mu.Lock()
	s.hookSend = send
	s.mu.Unlock()
}

// hookEvent turns a hook run or warning into a turn event.
func (s *Session) hookEvent(e hooks.Event) {
	s.mu.Lock()
	send := s.hookSend
	s.mu.Unlock()
	if send == nil {
		return
	}
	if e.Type == hooks.TypeWarning {
		send(Event{Type: EventHookWarning, HookEvent: string(e.Event), Command: e.Command, Message: e.Message})
		return
	}
	code, ms := e.ExitCode, e.DurationMS
	send(Event{Type: EventHook, HookEvent: string(e.Event), Command: e.Command, ExitCode: &code, Decision: e.Decision, DurationMS: &ms})
}

func (s *Session) hookInput(t *Turn, ev hooks.EventName) hooks.Input {
	return hooks.Input{Event: ev, SessionID: s.ID, TurnID: t.ID}
}

// promptHooks runs SessionStart (once per session) and UserPromptSubmit.
// A deny or halt means the turn does not start; context is added to the
// prompt.
func (s *Session) promptHooks(ctx context.Context, t *Turn, prompt string) (string, *Result) {
	if s.hooks == nil {
		return prompt, nil
	}
	var extra []string
	s.mu.Lock()
	first := !s.started
	s.started = true
	s.mu.Unlock()
	if first && s.hooks.Matches(hooks.SessionStart, "") {
		r := s.hooks.Run(ctx, s.hookInput(t, hooks.SessionStart))
		if r.Halt {
			return prompt, &Result{Reason: ReasonHalted, Err: fmt.Errorf("a SessionStart hook halted: %s", r.HaltReason)}
		}
		if r.Context != "" {
			extra = append(extra, r.Context)
		}
	}
	if s.hooks.Matches(hooks.UserPromptSubmit, "") {
		in := s.hookInput(t, hooks.UserPromptSubmit)
		in.Prompt = prompt
		r := s.hooks.Run(ctx, in)
		switch {
		case r.Halt:
			return prompt, &Result{Reason: ReasonBlocked, Err: fmt.Errorf("a UserPromptSubmit hook halted the turn: %s", r.HaltReason)}
		case r.Decision == hooks.Deny:
			return prompt, &Result{Reason: ReasonBlocked, Err: fmt.Errorf("a UserPromptSubmit hook refused the prompt: %s", r.Reason)}
		}
		if r.Context != "" {
			extra = append(extra, r.Context)
		}
	}
	for _, c := range extra {
		prompt += "\n\n<hook-context>\n" + c + "\n</hook-context>"
	}
	return prompt, nil
}

// preToolHooks runs PreToolUse for a call. It may refuse the call (a
// result the model sees, the turn going on), halt the turn, or rewrite the
// input — which is then checked against the tool's schema and judged again
// by the whole gate. An allow skips only the ask, and only for the call
// the hooks saw: a rewritten call gets no allow.
func (s *Session) preToolHooks(ctx context.Context, t *Turn, tool tools.Tool, tc *tools.Call) (permission.HookVerdict, *tools.Result, string) {
	name := tool.Spec().Name
	if s.hooks == nil || !s.hooks.Matches(hooks.PreToolUse, name) {
		return permission.HookVerdict{}, nil, ""
	}
	in := s.hookInput(t, hooks.PreToolUse)
	in.ToolName, in.ToolInput = name, tc.Input
	r := s.hooks.Run(ctx, in)
	switch {
	case r.Halt:
		res := tools.Result{Content: "A hook halted the turn: " + r.HaltReason, IsError: true, Stop: true}
		return permission.HookVerdict{}, &res, ReasonHalted
	case r.Decision == hooks.Deny:
		reason := r.Reason
		if reason == "" {
			reason = "no reason given"
		}
		res := tools.Result{Content: "A PreToolUse hook refused this call: " + reason + ". Choose another way.", IsError: true}
		return permission.HookVerdict{}, &res, ""
	}
	if r.UpdatedInput != nil {
		updated, err := hooks.ApplyInput(tc.Input, r.UpdatedInput)
		if err == nil {
			err = tools.ValidateInput(tool.Spec().Schema, updated)
		}
		if err != nil {
			res := tools.Errorf("A PreToolUse hook rewrote this call's input into something invalid (%v); the call was not run.", err)
			return permission.HookVerdict{}, &res, ""
		}
		tc.Input = updated
		return permission.HookVerdict{}, nil, ""
	}
	if r.Decision == hooks.Allow {
		return permission.HookVerdict{Decision: permission.Allow, Reason: r.Reason}, nil, ""
	}
	return permission.HookVerdict{}, nil, ""
}

// postToolHooks runs PostToolUse or PostToolUseFailure and appends their
// context to the result the model sees.
func (s *Session) postToolHooks(ctx context.Context, t *Turn, name string, input json.RawMessage, res tools.Result) (tools.Result, string) {
	ev := hooks.PostToolUse
	if res.IsError {
		ev = hooks.PostToolUseFailure
	}
	if s.hooks == nil || !s.hooks.Matches(ev, name) {
		return res, ""
	}
	in := s.hookInput(t, ev)
	in.ToolName, in.ToolInput, in.ToolResult, in.IsError = name, input, res.Content, res.IsError
	r := s.hooks.Run(ctx, in)
	if r.Context != "" {
		res.Content += "\n\n<hook-context>\n" + r.Context + "\n</hook-context>"
	}
	if r.Halt {
		res.Content += "\n\nA hook halted the turn: " + r.HaltReason
		return res, ReasonHalted
	}
	return res, ""
}

func (s *Session) newStopLimit() *hooks.StopLimit {
	return hooks.NewStopLimit(s.cfg.MaxStopContinuations)
}

// stopHooks runs Stop when the model answered without tool calls. A deny
// sends the model back to work with the reason (again = true), up to the
// limit; a halt ends the turn.
func (s *Session) stopHooks(ctx context.Context, t *Turn, limit *hooks.StopLimit, send func(Event)) (again bool, end *Result) {
	if s.hooks == nil || !s.hooks.Matches(hooks.Stop, "") {
		return false, nil
	}
	in := s.hookInput(t, hooks.Stop)
	in.StopReason = "end_turn"
	r := s.hooks.Run(ctx, in)
	switch {
	case r.Halt:
		return false, &Result{Reason: ReasonHalted, Err: fmt.Errorf("a Stop hook halted the turn: %s", r.HaltReason)}
	case r.Decision != hooks.Deny:
		return false, nil
	case !limit.Continue():
		send(Event{Type: EventHookWarning, HookEvent: string(hooks.Stop), Message: fmt.Sprintf("Stop hooks asked to continue %d times; the turn ends here (max_stop_continuations)", limit.Max())})
		return false, nil
	}
	reason := r.Reason
	if reason == "" {
		reason = "a Stop hook asked you to continue"
	}
	s.appendHistory(Message{Role: RoleUser, Content: "<hook-feedback>\nYou are not done yet: " + reason + "\n</hook-feedback>"})
	return true, nil
}
