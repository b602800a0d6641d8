// Package agent runs turns: it sends the conversation to a model provider,
// passes every tool call through the permission gate, runs the tool and
// feeds results back until the model answers without tool calls.
package agent

import (
	"context"
	"encoding/json"
	"fmt"
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
	// IsError marks a tool message whose call failed, for providers that
	// flag failed results to the model (Anthropic's is_error).
	IsError bool `json:"is_error,omitempty"`
	// Thinking is an assistant message's reasoning, kept for providers
	// that require it back in the conversation (Anthropic's signed
	// thinking blocks).
	Thinking []Thinking `json:"thinking,omitempty"`
}

// Thinking is one block of a model's visible reasoning.
type Thinking struct {
	Text string `json:"text,omitempty"`
	// Signature is the provider's proof that the block is unchanged;
	// Redacted holds an encrypted block the model did not show.
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"`
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
	// Purpose is PurposeCompaction for the call that writes a summary;
	// "" for the conversation's own calls.
	Purpose string
}

// PurposeCompaction marks the model call that summarises the older
// conversation (replay scripts answer it with their summary turns).
const PurposeCompaction = "compaction"

// Response is the model's complete answer to one Request.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	Thinking  []Thinking
	// Usage is what the call cost, as the provider reported it.
	Usage Usage
}

// Usage counts the tokens of model calls.
type Usage struct {
	// Input counts every prompt token, CacheRead and CacheWrite included.
	Input  int `json:"input_tokens"`
	Output int `json:"output_tokens"`
	// CacheRead are prompt tokens read from the provider's prompt cache;
	// CacheWrite are prompt tokens written to it.
	CacheRead  int `json:"cache_read_tokens,omitempty"`
	CacheWrite int `json:"cache_write_tokens,omitempty"`
	// Cost is what the tokens cost in US dollars (an estimate from the
	// model's Price), nil when the price is unknown: a person is shown
	// tokens only, never a cost of 0 that nobody knows. A sum has a cost
	// only when every part with tokens had one. Never written through:
	// usages share it.
	Cost *float64 `json:"cost_usd,omitempty"`
}

// Add sums two usages. The cost is the sum of both costs; it is unknown
// when a part with tokens has none (a usage without tokens or cost adds
// nothing, so Usage{} is where sums start).
func (u Usage) Add(o Usage) Usage {
	sum := Usage{Input: u.Input + o.Input, Output: u.Output + o.Output,
		CacheRead: u.CacheRead + o.CacheRead, CacheWrite: u.CacheWrite + o.CacheWrite}
	switch {
	case o.Cost == nil && !o.hasTokens():
		sum.Cost = u.Cost
	case u.Cost == nil && !u.hasTokens():
		sum.Cost = o.Cost
	case u.Cost != nil && o.Cost != nil:
		c := *u.Cost + *o.Cost
		sum.Cost = &c
	}
	return sum
}

// hasTokens reports whether u counts any token.
func (u Usage) hasTokens() bool {
	return u.Input != 0 || u.Output != 0 || u.CacheRead != 0 || u.CacheWrite != 0
}

// IsZero reports whether u counts nothing: no token and no cost (a
// provider that reports no usage).
func (u Usage) IsZero() bool { return !u.hasTokens() && u.Cost == nil }

// Stream receives what a provider streams while a call runs. Either
// function may be nil. They run on the provider's goroutine and must not
// block for long.
type Stream struct {
	// Text receives answer text as it arrives.
	Text func(delta string)
	// Thinking receives reasoning text as it arrives.
	Thinking func(delta string)
}

// ContextLengthError is a provider's answer that the request is longer
// than the model's context window. Limit is the window the provider
// named (0 when it did not), so the session can learn it.
type ContextLengthError struct {
	Limit int
	Err   error
}

// Error says what happened and what agentls does about it.
func (e *ContextLengthError) Error() string {
	if e.Limit > 0 {
		return fmt.Sprintf("the conversation is longer than the model's context window (%d tokens): %v", e.Limit, e.Err)
	}
	return fmt.Sprintf("the conversation is longer than the model's context window: %v", e.Err)
}

// Unwrap returns the provider's error.
func (e *ContextLengthError) Unwrap() error { return e.Err }

// Windowed is a provider that knows its model's context window and
// longest answer in tokens (0: unknown).
type Windowed interface {
	ContextWindow() int
	MaxOutput() int
}

// Provider reaches a model. Implementations: OpenAI-compatible chat
// completions (openai), Anthropic's Messages API (anthropic) and the
// replay script.
type Provider interface {
	// Complete sends req and returns the whole answer; s receives what is
	// streamed as it arrives. Errors must say what the user can fix (key,
	// model name, base URL); an answer that the request is too long is a
	// *ContextLengthError.
	Complete(ctx context.Context, req Request, s Stream) (Response, error)
	// Name is the "provider:model" string, for logs and events.
	Name() string
}
