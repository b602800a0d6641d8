package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/tools"
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
	// EventTextDelta carries answer text as it streams (at most ~20 a
	// second); the step's EventText still follows with the whole text.
	EventTextDelta EventType = "text_delta"
	// EventThinkingDelta carries the model's reasoning as it streams;
	// EventThinking has a step's whole reasoning.
	EventThinkingDelta EventType = "thinking_delta"
	EventThinking      EventType = "thinking"
	// EventUsage reports one model call's tokens, with the turn's and the
	// session's totals.
	EventUsage EventType = "usage"
	// EventCompaction says the conversation was compacted and what was
	// kept (Message, and the numbers in Input).
	EventCompaction EventType = "compaction"
	// EventWarning is something the person should know that does not end
	// the turn.
	EventWarning EventType = "warning"
	// EventTodos carries the agent's todo list (Todos) whenever it changes,
	// and a one-line progress (Message: "2/5: writing the fix").
	EventTodos EventType = "todos"
	// EventInstructions names the project instruction files (AGENTS.md
	// …) the model gets, when they change: at the first turn that has
	// any, and when one is added, removed or cut.
	EventInstructions EventType = "instructions"
	// EventModel says the session runs another model from its next turn
	// on (Model), the conversation kept; it comes between turns, from the
	// switch (Session.SwitchModel).
	EventModel EventType = "model"
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
	// ParentID is set on a subagent's events: the id of the agent tool
	// call that started it.
	ParentID string `json:"parent_id,omitempty"`
	Text     string `json:"text,omitempty"`
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	// Title is a short human label of a tool call ("view main.go").
	Title   string          `json:"title,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	IsError *bool           `json:"is_error,omitempty"`
	Content *string         `json:"content,omitempty"`
	// Diff is the unified diff of a file change (tool_result), for editors;
	// Hunks is the same change as data.
	Diff  string       `json:"diff,omitempty"`
	Hunks []tools.Hunk `json:"hunks,omitempty"`
	// Kind is what a tool call does (tool_call and permission events):
	// read, edit, delete, move, search, execute, fetch, think or other.
	Kind    string `json:"kind,omitempty"`
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
	// Usage events: the model call's tokens (Usage), the turn's so far
	// (TurnUsage, subagents' included) and the session's (SessionUsage);
	// turn_end has the last two. Each carries its cost when the model's
	// price is known (Usage.Cost).
	Usage        *Usage `json:"usage,omitempty"`
	TurnUsage    *Usage `json:"turn_usage,omitempty"`
	SessionUsage *Usage `json:"session_usage,omitempty"`
	// Todos is the todo list of a todos event.
	Todos []tools.Todo `json:"todos,omitempty"`
	// Instructions events: the files, as the prompt names them.
	Files []string `json:"files,omitempty"`
	// Model is the "provider:model" a turn runs (turn_start) or the
	// session switched to (model).
	Model string `json:"model,omitempty"`
}

// String renders the event as one plain-text transcript line.
func (e Event) String() string {
	switch e.Type {
	case EventTurnStart:
		if e.Model != "" {
			return "turn started (" + e.Model + ")"
		}
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
		if e.TurnUsage != nil {
			return fmt.Sprintf("turn ended: %s (%d tokens in, %d out%s)", e.Reason, e.TurnUsage.Input, e.TurnUsage.Output, costSuffix(e.TurnUsage))
		}
		return "turn ended: " + e.Reason
	case EventTextDelta, EventThinkingDelta:
		return e.Text
	case EventThinking:
		return "thinking: " + e.Text
	case EventUsage:
		if e.Usage != nil {
			return fmt.Sprintf("usage: %d tokens in (%d cached), %d out%s", e.Usage.Input, e.Usage.CacheRead, e.Usage.Output, costSuffix(e.Usage))
		}
	case EventCompaction, EventWarning, EventModel:
		return e.Message
	case EventTodos:
		return "todos " + e.Message + "\n" + tools.FormatTodos(e.Todos)
	case EventInstructions:
		if len(e.Files) == 0 {
			return "project instructions: none"
		}
		return "project instructions: " + strings.Join(e.Files, ", ")
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

// costSuffix is ", $0.012" when u's cost is known, else nothing.
func costSuffix(u *Usage) string {
	if u.Cost == nil {
		return ""
	}
	return ", " + FormatCost(*u.Cost)
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
