// Package hooks runs the user's lifecycle hooks: shell commands that are
// shown, as JSON on stdin, what the agent is about to do or just did, and
// answer by exit code and JSON on stdout. They let a person enforce their
// own rules (guards, formatters, audit logs) without writing a plugin, in
// the protocol Claude Code and Crush hook authors already know.
//
// The package decides and reports; it applies nothing. The agent loop and
// the permission gate apply a Result as its doc comment describes.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// EventName is a point in the agent's life where hooks run.
type EventName string

// The events hooks can be configured for.
const (
	// SessionStart runs once when a session begins; it can add context.
	SessionStart EventName = "SessionStart"
	// UserPromptSubmit runs before a turn starts; deny keeps it from
	// starting and context is added to the prompt.
	UserPromptSubmit EventName = "UserPromptSubmit"
	// PreToolUse runs before a tool call is judged by the permission gate;
	// it can allow (skip the ask), deny, or rewrite the call.
	PreToolUse EventName = "PreToolUse"
	// PostToolUse runs after a tool call succeeded; context is appended to
	// the result the model sees.
	PostToolUse EventName = "PostToolUse"
	// PostToolUseFailure is PostToolUse for a call that failed.
	PostToolUseFailure EventName = "PostToolUseFailure"
	// Stop runs when the model wants to end the turn; deny makes it go on
	// (see StopLimit).
	Stop EventName = "Stop"
)

// eventNames lists every event, in the order messages show them.
func eventNames() []EventName {
	return []EventName{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop}
}

// IsToolEvent reports whether e concerns one tool call, so that a matcher
// applies to it and the payload names the tool.
func (e EventName) IsToolEvent() bool {
	return e == PreToolUse || e == PostToolUse || e == PostToolUseFailure
}

// canonicalEvent accepts the spellings people copy between tools
// ("pre_tool_use", "pretooluse") for the canonical name.
func canonicalEvent(s string) (EventName, bool) {
	key := strings.ToLower(strings.ReplaceAll(s, "_", ""))
	for _, e := range eventNames() {
		if strings.ToLower(string(e)) == key {
			return e, true
		}
	}
	return "", false
}

// DefaultTimeout is how long a hook may run when its timeout is not set.
const DefaultTimeout = 30 * time.Second

// maxTimeoutSeconds keeps a timeout from overflowing a time.Duration.
const maxTimeoutSeconds = 24 * 60 * 60

// Config is one hook as the user writes it in the "hooks" array.
type Config struct {
	// Event is when the hook runs.
	Event EventName `json:"event"`
	// Matcher is a Go regular expression tested (unanchored) against the
	// tool name; empty matches every tool. Only tool events may set it.
	Matcher string `json:"matcher,omitempty"`
	// Command is shell source run by the embedded shell in the workspace
	// root.
	Command string `json:"command"`
	// Timeout is in seconds; 0 means DefaultTimeout.
	Timeout int `json:"timeout,omitempty"`
}

// Parse decodes and validates the value of the "hooks" key (a JSON array;
// null or empty means none). Unknown keys and every invalid entry are
// errors, all reported at once, so a mistyped guard is never silently
// dropped. The result has canonical event names.
func Parse(data []byte) ([]Config, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var list []Config
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("hooks: %w; write an array of {\"event\", \"matcher\", \"command\", \"timeout\"} objects", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("hooks: unexpected data after the array")
	}
	var errs []error
	for i := range list {
		if _, err := list[i].check(); err != nil {
			errs = append(errs, fmt.Errorf("hooks[%d]: %w", i, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return list, nil
}

// check canonicalizes c's event name and validates c, returning the
// compiled matcher (nil for none).
func (c *Config) check() (*regexp.Regexp, error) {
	if c.Event == "" {
		return nil, fmt.Errorf("event is required; use one of %s", eventList())
	}
	e, ok := canonicalEvent(string(c.Event))
	if !ok {
		return nil, fmt.Errorf("unknown event %q; use one of %s", c.Event, eventList())
	}
	c.Event = e
	if strings.TrimSpace(c.Command) == "" {
		return nil, errors.New("command is required")
	}
	if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(c.Command), ""); err != nil {
		return nil, fmt.Errorf("command %q is not valid shell: %w; fix its syntax", c.Command, err)
	}
	if c.Timeout < 0 || c.Timeout > maxTimeoutSeconds {
		return nil, fmt.Errorf("timeout %d is out of range; give seconds from 1 to %d, or leave it out for %v", c.Timeout, maxTimeoutSeconds, DefaultTimeout)
	}
	if c.Matcher == "" {
		return nil, nil
	}
	if !e.IsToolEvent() {
		return nil, fmt.Errorf("matcher is set but %s is not a tool event; remove the matcher", e)
	}
	re, err := regexp.Compile(c.Matcher)
	if err != nil {
		return nil, fmt.Errorf("matcher %q is not a valid Go regular expression: %w; fix it, or remove it to match every tool", c.Matcher, err)
	}
	return re, nil
}

// timeout is the hook's time limit.
func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout) * time.Second
}

func eventList() string {
	names := make([]string, 0, 6)
	for _, e := range eventNames() {
		names = append(names, string(e))
	}
	return strings.Join(names, ", ")
}
