// Package agent runs turns: it sends the conversation to a model provider,
// passes every tool call through the permission gate, runs the tool and
// feeds results back until the model answers without tool calls.
package agent

import (
	"context"
	"encoding/json"
)

// Role is who wrote a message.
type Role string

// Message roles, as chat-completion APIs name them.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID ties a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name on a tool message.
	Name string `json:"name,omitempty"`
}

// ToolCall is a model's request to run one tool.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolDef is a tool as offered to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one model call: the whole conversation plus the tools.
type Request struct {
	System   string
	Messages []Message
	Tools    []ToolDef
}

// Response is the model's complete answer to one Request.
type Response struct {
	Text      string
	ToolCalls []ToolCall
}

// Provider reaches a model. Implementations: OpenAI-compatible chat
// completions and the replay script.
type Provider interface {
	// Complete sends req and returns the whole answer. onText, when not
	// nil, receives streamed text as it arrives. Errors must say what the
	// user can fix (key, model name, base URL).
	Complete(ctx context.Context, req Request, onText func(string)) (Response, error)
	// Name is the "provider:model" string, for logs and events.
	Name() string
}
