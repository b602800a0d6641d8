package permission

import (
	"encoding/json"
	"strings"
)

// Request describes one tool call for the gate. Tools build it from their
// input; the gate never sees the tool itself. Zero values are the safe
// ones: a field a tool forgets never loosens a decision.
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
	// A call that is not read-only and reaches outside is blocked.
	OutsideRoots bool `json:"outside_roots,omitempty"`
	// Blocked is a hard block raised by the tool (e.g. a banned command);
	// the gate denies it whatever the mode.
	Blocked string `json:"blocked,omitempty"`
	// Command is the full shell command line, for inspectors, scoped rules
	// and the event's scope. Empty for tools that run no command.
	Command string `json:"command,omitempty"`
	// Argvs are the simple commands the shell judge found in Command
	// (tools/shell Verdict.Commands); they sharpen deny and ask rules.
	Argvs [][]string `json:"argvs,omitempty"`
	// Fingerprint is what a session grant for a shell command remembers
	// ("go test"); empty means the command is not grantable and no
	// command-scoped allow rule can match it.
	Fingerprint string `json:"fingerprint,omitempty"`
	// GrantEnv is a digest of what shapes the granted program beyond its
	// words (tools/shell GrantEnv: GOFLAGS and the go env file, .npmrc and
	// package.json's scripts, the makefile …). Session and "Always" grants
	// are kept with it, so a grant lapses when it changes: "Allow go test"
	// does not cover go test after go env -w GOFLAGS=-toolexec=….
	GrantEnv string `json:"grant_env,omitempty"`
	// NoGrant says why a shell command is not grantable; the question
	// shows it ("not offered: …") instead of the grant choices.
	NoGrant string `json:"no_grant,omitempty"`
	// Deletes are the absolute, expanded files and folders the call deletes
	// or moves away; the security inspector denies catastrophic ones.
	Deletes []string `json:"deletes,omitempty"`
	// Destinations are the outbound hosts, URLs and remotes the call names
	// (tools/shell Verdict.Destinations), for the egress inspector.
	Destinations []string `json:"destinations,omitempty"`
	// Egress are the ways a command sends data off the machine, as the
	// shell judge read its words (tools/shell Verdict.Egress); the egress
	// inspector asks about each.
	Egress []Egress `json:"egress,omitempty"`
	// Input is the raw tool input; when set it identifies "the same call"
	// for the repetition inspector.
	Input json.RawMessage `json:"input,omitempty"`
	// ParentAllowed are the capability patterns (rule-key syntax) the
	// parent session allows a subagent; nil means no parent. A non-nil
	// empty list allows nothing.
	ParentAllowed []string `json:"parent_allowed,omitempty"`
	// Hook is the PreToolUse hooks' verdict, when hooks ran.
	Hook HookVerdict `json:"hook,omitzero"`
	// Diff is the unified diff of an edit, offered as "Show diff".
	Diff string `json:"diff,omitempty"`
	// Change is the whole proposal of a change to one file, for a
	// reviewing asker (review.go); not recorded. Changes are those of a
	// call that changes several files (lsp_rename), for askers that show
	// them (ACP's diff content).
	Change  *Change  `json:"-"`
	Changes []Change `json:"-"`
	// Summary is the human sentence shown when asking, e.g.
	// "agentls wants to run `go test ./...` in internal/".
	Summary string `json:"summary,omitempty"`
	// OpenWorld is the tool's word that the call may reach services
	// outside this machine (an MCP tool whose server does not mark it
	// closed-world); the egress inspector asks for it, read-only or not.
	OpenWorld bool `json:"open_world,omitempty"`
	// WholeTool makes a call that names no paths and runs no command
	// grantable as a whole: "Allow for session" and "Always allow" then
	// cover every later call of the same tool (an MCP tool, whose
	// arguments the gate cannot read). False leaves such calls
	// ungrantable.
	WholeTool bool `json:"whole_tool,omitempty"`
	// Confined is the tool's word that the call is a known build or test
	// command in a trusted workspace whose programs the kernel's sandbox
	// confines (writes in the workspace, no network but the proxy, which
	// asks): smart mode runs it without asking.
	Confined bool `json:"confined,omitempty"`
	// NoAlways says why "Always allow" is not offered for this call (an
	// MCP tool its server marks destructive); the question shows it, and a
	// stored grant does not cover the call. A session grant may still be.
	NoAlways string `json:"no_always,omitempty"`
}

// HookVerdict is the aggregated PreToolUse hook outcome. Decision "" means
// no hook had an opinion; allow skips the prompt, ask forces one, deny
// denies. Any other value denies (fail closed).
type HookVerdict struct {
	Decision Kind   `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// isShell reports whether the call is a shell command: scoped rules then
// match command words instead of paths, and grants remember the fingerprint.
func (r *Request) isShell() bool {
	return r.Command != "" || r.Fingerprint != "" || r.Capability == "shell.exec"
}

// scope is what the event and explain show: the command for shell calls,
// else the paths.
func (r *Request) scope() string {
	if r.Command != "" {
		return r.Command
	}
	if r.Fingerprint != "" {
		return r.Fingerprint
	}
	if len(r.Paths) == 1 {
		return r.Paths[0]
	}
	return strings.Join(r.Paths, " ")
}

// Sources say which step decided. They are stable strings: events, logs
// and `permission explain` use them.
const (
	SourceMode            = "mode"
	SourceScope           = "scope"
	SourceBlock           = "block"
	SourceInspector       = "inspector:" // + inspector name
	SourceRule            = "rule"
	SourceAllowedTools    = "allowed_tools"
	SourceHook            = "hook"
	SourceSessionGrant    = "session-grant"
	SourcePersistentGrant = "persistent-grant"
	SourceUser            = "user"
	SourceDefault         = "default"
	SourceSandbox         = "sandbox"
)

// Decision is the gate's verdict and where it came from. It stays a
// comparable value so callers can keep and compare it.
type Decision struct {
	Kind   Kind   `json:"decision"`
	Source string `json:"source"`
	Reason string `json:"reason,omitempty"`
	// Rule is the rule key, ask_always entry or allowed_tools entry that
	// matched, if one did.
	Rule string `json:"rule,omitempty"`
	// Scope is the command or the paths judged.
	Scope string `json:"scope,omitempty"`
	// Channel is where a person would be or was asked: editor, terminal
	// or headless.
	Channel string `json:"channel,omitempty"`
	// Grant is "session" or "always" when the person's answer granted more
	// than this call.
	Grant string `json:"grant,omitempty"`
	// StopTurn is set for a person's deny (and failed asks): the turn ends
	// and the model must not retry.
	StopTurn bool `json:"stop_turn,omitempty"`
	// Skipped is set in chat mode: the call was not run and the model
	// should be told so, not told it failed.
	Skipped bool `json:"skipped,omitempty"`
	// Revision, after a review, is what the person accepted instead of
	// the proposed change (review.go); nil means the call as asked.
	Revision *Revision `json:"-"`
}

// Event is the record of one decision, emitted exactly once per Check.
type Event struct {
	SessionID  string `json:"session_id,omitempty"`
	Tool       string `json:"tool"`
	Capability string `json:"capability"`
	Action     string `json:"action,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Decision   string `json:"decision"`
	Source     string `json:"source"`
	Rule       string `json:"rule,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Channel    string `json:"channel,omitempty"`
	Grant      string `json:"grant,omitempty"`
}

// NewEvent builds the event record of a decision.
func NewEvent(r Request, d Decision) Event {
	return Event{
		SessionID: r.SessionID, Tool: r.Tool, Capability: string(r.Capability), Action: string(r.Action),
		Scope: d.Scope, Decision: string(d.Kind), Source: d.Source, Rule: d.Rule, Reason: d.Reason,
		Channel: d.Channel, Grant: d.Grant,
	}
}

// Egress is one way a call sends data off the machine: Kind is push,
// upload, publish, copy, connect or send; Dest where to; What the words
// that do it, as the person reads them.
type Egress struct {
	Kind string `json:"kind"`
	Dest string `json:"dest"`
	What string `json:"what"`
}
