// Package permission is the one gate every tool call passes before it runs.
//
// Tools describe a call as a Request (capability, action, paths, command,
// whether it is read-only); the Gate runs that description through a fixed,
// fail-closed chain (docs/security.md) and, only when it must, asks a person
// through an Asker. The package never imports tools or agent: it judges
// descriptions, not code. Anything it does not understand is denied.
package permission

import (
	"context"
	"errors"
	"fmt"
	"regexp"
)

// Capability names what a tool call may do, e.g. "fs.read" or "shell.exec".
// Every tool declares one; rules, grants and defaults are keyed by it.
type Capability string

var capabilityRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_][a-z0-9_-]*)+$`)

// Valid reports whether c is a well-formed capability id: dot-separated
// lowercase segments, at least two ("fs.read", "mcp.github.create_issue").
func (c Capability) Valid() bool { return capabilityRE.MatchString(string(c)) }

// Action is the coarse kind of effect a call has, used in grants and
// allowed_tools ("view:read", "edit:write").
type Action string

// Actions a tool call can declare.
const (
	ActionRead    Action = "read"
	ActionWrite   Action = "write"
	ActionExecute Action = "execute"
)

func (a Action) valid() bool {
	return a == "" || a == ActionRead || a == ActionWrite || a == ActionExecute
}

// Kind is the outcome of a decision or a rule's value.
type Kind string

// Decision kinds, from most to least permissive.
const (
	Allow Kind = "allow"
	Ask   Kind = "ask"
	Deny  Kind = "deny"
)

// ParseKind reads a rule value; anything but allow, ask or deny is an error,
// so a typo never becomes a silent allow.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Allow, Ask, Deny:
		return k, nil
	}
	return "", fmt.Errorf("%q is not a rule value: use allow, ask or deny", s)
}

// strictness orders kinds so the strictest verdict can win.
func (k Kind) strictness() int {
	switch k {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2 // deny and anything unknown
}

// Mode is the user's overall stance, from config `permissions.mode`,
// --mode or --yolo.
type Mode string

// Modes, from the most to the least strict. Smart is the default.
const (
	// ModeChat runs no tool at all; the model is told the call was skipped.
	ModeChat Mode = "chat"
	// ModeApprove asks before every call no explicit rule allows and
	// ignores remembered grants.
	ModeApprove Mode = "approve"
	// ModeSmart runs read-only calls inside the roots and asks for the rest.
	ModeSmart Mode = "smart"
	// ModeAuto runs everything that is not blocked, denied or flagged.
	ModeAuto Mode = "auto"
)

// ParseMode turns a config or flag value into a Mode; "" means smart.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeSmart, nil
	case ModeChat, ModeApprove, ModeSmart, ModeAuto:
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use chat, approve, smart or auto", s)
}

// Strictness orders modes: chat 3 > approve 2 > smart 1 > auto 0. An
// unknown mode is the strictest (-> denies), so a comparison never loosens
// by accident.
func (m Mode) Strictness() int {
	switch m {
	case ModeAuto:
		return 0
	case ModeSmart:
		return 1
	case ModeApprove:
		return 2
	}
	return 3
}

// Answer is a person's reply to a Question.
type Answer string

// Answers an Asker may return. Only an answer among the question's Choices
// counts; anything else, including "", is a deny.
const (
	// AnswerAllow allows this one call.
	AnswerAllow Answer = "allow"
	// AnswerAllowSession allows this call and identical-scope calls for
	// the rest of the session.
	AnswerAllowSession Answer = "allow_session"
	// AnswerAllowAlways allows this call and remembers the grant for the
	// workspace (GrantStore).
	AnswerAllowAlways Answer = "allow_always"
	// AnswerDeny refuses the call and ends the turn.
	AnswerDeny Answer = "deny"
)

// Choice is one button of a question: what it answers and its title.
type Choice struct {
	Answer Answer `json:"answer"`
	Title  string `json:"title"`
	// Scope names what a grant covers ("go test" quoted, edits in
	// internal/), for front-ends that word their own choices; empty on
	// Allow and Deny.
	Scope string `json:"scope,omitempty"`
}

// Question is what an Asker shows: a sentence, the inspectors' warnings
// (already part of Message) and the choices on offer, in display order.
type Question struct {
	// ID names the pending question for Gate.Resolve.
	ID      string   `json:"id"`
	Request Request  `json:"request"`
	Message string   `json:"message"`
	Choices []Choice `json:"choices"`
	// Warnings are the inspector findings that caused or joined the ask.
	Warnings []string `json:"warnings,omitempty"`
}

// Title returns the title offered for answer a, or "" when a is not on offer.
func (q Question) Title(a Answer) string {
	for _, c := range q.Choices {
		if c.Answer == a {
			return c.Title
		}
	}
	return ""
}

// Asker reaches a person. The editor implements it with
// window/showMessageRequest, the CLI with the terminal.
type Asker interface {
	// Ask shows the question and returns the chosen answer. It must return
	// when ctx is done. An error, "" or an answer not in q.Choices denies.
	Ask(ctx context.Context, q Question) (Answer, error)
}

// ErrNoAsker is the reason when a call needs a person but nobody can be asked.
var ErrNoAsker = errors.New("no one to ask: run with --mode auto or open the workspace in an editor")

// ErrCannotAsk is what an Asker returns when its client cannot show a
// prompt (e.g. no window/showMessageRequest support); the call is denied.
var ErrCannotAsk = errors.New("the client cannot show permission prompts")
