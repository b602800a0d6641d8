package anthropic

import (
	"crypto/rand"
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/remote"
)

// block is one streamed content block.
type block struct {
	kind string // "text", "tool_use", "thinking", "redacted_thinking", or one agentls ignores
	// text is the block's text, thinking, or tool input JSON as streamed.
	text      strings.Builder
	id, name  string
	input     string // a tool_use block's input at its start, used when no delta follows
	signature string
	data      string // a redacted_thinking block's encrypted data
}

// accumulator collects one attempt's streamed answer.
type accumulator struct {
	order  []*block
	blocks map[int64]*block
	// Tokens as the API counts them: input excludes the cached ones.
	input, output, cacheRead, cacheWrite int64
	finished                             bool // a stop_reason or message_stop arrived
	size                                 int  // bytes of text, thinking and tool input so far (Policy.Over)
}

// add takes one event of the stream (the SDK drops ping events and turns
// error events into the stream's error).
func (a *accumulator) add(ev sdk.MessageStreamEventUnion, st agent.Stream) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		a.input, a.output = u.InputTokens, u.OutputTokens
		a.cacheRead, a.cacheWrite = u.CacheReadInputTokens, u.CacheCreationInputTokens
	case "content_block_start":
		cb := ev.ContentBlock
		b := &block{kind: cb.Type, id: cb.ID, name: cb.Name, signature: cb.Signature, data: cb.Data}
		if cb.Type == "tool_use" && cb.Input != nil {
			if in, err := json.Marshal(cb.Input); err == nil {
				b.input = string(in)
			}
		}
		a.blocks[ev.Index] = b
		a.order = append(a.order, b)
		switch cb.Type {
		case "text":
			a.write(b, cb.Text, st.Text)
		case "thinking":
			a.write(b, cb.Thinking, st.Thinking)
		}
	case "content_block_delta":
		b := a.blocks[ev.Index]
		if b == nil {
			return // a delta for a block that never started: nothing to add it to
		}
		switch d := ev.Delta; d.Type {
		case "text_delta":
			a.write(b, d.Text, st.Text)
		case "thinking_delta":
			a.write(b, d.Thinking, st.Thinking)
		case "input_json_delta":
			b.text.WriteString(d.PartialJSON)
			a.size += len(d.PartialJSON)
		case "signature_delta":
			b.signature += d.Signature
		}
	case "message_delta":
		// Usage here is cumulative; a field the event leaves out stays.
		u := ev.Usage
		if u.OutputTokens > 0 {
			a.output = u.OutputTokens
		}
		if u.InputTokens > 0 {
			a.input = u.InputTokens
		}
		if u.CacheReadInputTokens > 0 {
			a.cacheRead = u.CacheReadInputTokens
		}
		if u.CacheCreationInputTokens > 0 {
			a.cacheWrite = u.CacheCreationInputTokens
		}
		if ev.Delta.StopReason != "" {
			a.finished = true
		}
	case "message_stop":
		a.finished = true
	}
}

// write adds streamed text to b and passes it on.
func (a *accumulator) write(b *block, s string, emit func(string)) {
	if s == "" {
		return
	}
	b.text.WriteString(s)
	a.size += len(s)
	if emit != nil {
		emit(s)
	}
}

// response is the answer: text blocks joined, thinking blocks in order
// (kept for the next request), tool calls, and usage with Input counting
// every prompt token, cached ones included.
func (a *accumulator) response() agent.Response {
	var r agent.Response
	var text strings.Builder
	for _, b := range a.order {
		switch b.kind {
		case "text":
			text.WriteString(b.text.String())
		case "thinking":
			if b.text.Len() > 0 || b.signature != "" {
				r.Thinking = append(r.Thinking, agent.Thinking{Text: b.text.String(), Signature: b.signature})
			}
		case "redacted_thinking":
			r.Thinking = append(r.Thinking, agent.Thinking{Redacted: b.data})
		case "tool_use":
			args := b.text.String()
			if strings.TrimSpace(args) == "" {
				args = b.input
			}
			id := b.id
			if id == "" {
				id = "toolu_" + rand.Text()
			}
			r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: id, Name: b.name, Input: remote.ToolInput(args)})
		}
	}
	r.Text = text.String()
	r.Usage = agent.Usage{
		Input:      int(a.input + a.cacheRead + a.cacheWrite),
		Output:     int(a.output),
		CacheRead:  int(a.cacheRead),
		CacheWrite: int(a.cacheWrite),
	}
	return r
}
