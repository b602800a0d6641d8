package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// EventType names an agent event; the values are the "type" field of
// `agentls run --json` lines and of `agentls/event` notifications.
type EventType string

// Event types.
const (
	EventTurnStart  EventType = "turn_start"
	EventText       EventType = "text"
	EventToolCall   EventType = "tool_call"
	EventToolResult EventType = "tool_result"
	EventPermission EventType = "permission"
	EventTurnEnd    EventType = "turn_end"
	EventError      EventType = "error"
)

// Turn end reasons.
const (
	ReasonCompleted = "completed"
	ReasonCancelled = "cancelled"
	ReasonDenied    = "denied"
	ReasonMaxSteps  = "max_steps"
	ReasonError     = "error"
)

// Event is one thing that happened in a turn. One JSON object per event is
// a line of `run --json` and the params of an `agentls/event` notification.
type Event struct {
	Type      EventType `json:"type"`
	SessionID string    `json:"session_id,omitempty"`
	TurnID    string    `json:"turn_id,omitempty"`
	Text      string    `json:"text,omitempty"`
	ID        string    `json:"id,omitempty"`
	Name      string    `json:"name,omitempty"`
	// Title is a short human label of a tool call ("view main.go").
	Title   string          `json:"title,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	IsError *bool           `json:"is_error,omitempty"`
	Content *string         `json:"content,omitempty"`
	// Diff is the unified diff of a file change (tool_result), for editors.
	Diff    string `json:"diff,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Permission events.
	Tool       string `json:"tool,omitempty"`
	Capability string `json:"capability,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Decision   string `json:"decision,omitempty"`
	Source     string `json:"source,omitempty"`
	Rule       string `json:"rule,omitempty"`
	Channel    string `json:"channel,omitempty"`
	// Hook events.
	HookEvent  string `json:"event,omitempty"`
	Command    string `json:"command,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	DurationMS *int64 `json:"duration_ms,omitempty"`
}

// String renders the event as one plain-text transcript line.
func (e Event) String() string {
	switch e.Type {
	case EventTurnStart:
		return "turn started"
	case EventText:
		return "agent: " + e.Text
	case EventToolCall:
		return fmt.Sprintf("→ %s %s", e.Name, compact(e.Input))
	case EventToolResult:
		status := "ok"
		if e.IsError != nil && *e.IsError {
			status = "error"
		}
		content := ""
		if e.Content != nil {
			content = *e.Content
		}
		return fmt.Sprintf("← %s (%s): %s", e.Name, status, firstLines(content, 3))
	case EventPermission:
		return fmt.Sprintf("permission %s: %s %s (%s)", e.Decision, e.Tool, e.Scope, e.Source)
	case EventTurnEnd:
		return "turn ended: " + e.Reason
	case EventError:
		return "error: " + e.Message
	case EventHook:
		code := 0
		if e.ExitCode != nil {
			code = *e.ExitCode
		}
		return fmt.Sprintf("hook %s `%s`: exit %d, %s", e.HookEvent, e.Command, code, e.Decision)
	case EventHookWarning:
		return fmt.Sprintf("hook warning (%s): %s", e.HookEvent, e.Message)
	}
	b, _ := json.Marshal(e)
	return string(b)
}

func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
