// Package permission is the gate every tool call passes before it runs.
//
// Tools describe a call as a Request (capability, action, paths, whether it
// is read-only); the Gate judges that description and, when it must, asks a
// person through an Asker. The package never imports tools or agent: it
// judges descriptions, not code.
package permission

import (
	"context"
	"errors"
	"fmt"
	"regexp"
)

// Capability names what a tool call may do, e.g. "fs.read" or "shell.exec".
// Every tool declares one; an unknown capability is denied (fail closed).
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

// Kind is the outcome of a decision.
type Kind string

// Decision kinds, from most to least permissive.
const (
	Allow Kind = "allow"
	Ask   Kind = "ask"
	Deny  Kind = "deny"
)

// Mode is the user's overall stance, from config `permissions.mode` or --mode.
type Mode string

// Modes understood today. Smart is the default.
const (
	ModeSmart Mode = "smart"
	ModeAuto  Mode = "auto"
)

// ParseMode turns a config or flag value into a Mode; "" means smart.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeSmart:
		return ModeSmart, nil
	case ModeAuto:
		return ModeAuto, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use smart or auto", s)
}

// Request describes one tool call for the gate. Tools build it from their
// input; the gate never sees the tool itself.
type Request struct {
	SessionID  string     `json:"session_id,omitempty"`
	Tool       string     `json:"tool"`
	Capability Capability `json:"capability"`
	Action     Action     `json:"action"`
	// ReadOnly is the tool's promise that this call changes nothing.
	ReadOnly bool `json:"read_only"`
	// Paths are the absolute files or folders the call touches.
	Paths []string `json:"paths,omitempty"`
	// OutsideRoots is set when any path lies outside every workspace root.
	OutsideRoots bool `json:"outside_roots,omitempty"`
	// Blocked is a hard block raised by the tool (e.g. a banned command);
	// the gate denies it whatever the mode.
	Blocked string `json:"blocked,omitempty"`
	// Fingerprint is what a session grant for a shell command remembers
	// ("go test"); empty means not grantable.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Diff is the unified diff of an edit, offered as "Show diff".
	Diff string `json:"diff,omitempty"`
	// Summary is the human sentence shown when asking, e.g.
	// "agentls wants to edit main.go (+3 −1)".
	Summary string `json:"summary,omitempty"`
}

// Decision is the gate's verdict and which source produced it.
type Decision struct {
	Kind   Kind   `json:"decision"`
	Source string `json:"source"`
	Reason string `json:"reason,omitempty"`
}

// Asker reaches a person. The editor adapter implements it with
// window/showMessageRequest; headless runs use the terminal or deny.
type Asker interface {
	// Ask shows the question and returns the chosen answer. An error or a
	// dismissed prompt must be treated as a deny by the caller.
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Question is what an Asker shows.
type Question struct {
	Request Request
	Message string
}

// Answer is a person's reply to a Question.
type Answer string

// Answers an Asker may return.
const (
	AnswerAllow Answer = "allow"
	AnswerDeny  Answer = "deny"
)

// ErrNoAsker is returned when a call needs a person but nobody can be asked.
var ErrNoAsker = errors.New("no one to ask: run with --mode auto or open the workspace in an editor")
