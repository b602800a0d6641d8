// Package replay is a scripted model: each model request plays the next
// turn of a JSON script. It drives tests, demos and bug reports without a
// network or an API key.
//
// Script format:
//
//	{"turns":[{"text":"…","tool_calls":[{"name":"view","input":{"file_path":"main.go"}}]},{"text":"done"}]}
//
// A turn with "summary": true answers the call that compacts the
// conversation, and only that call; the others play in order. A turn's
// "usage" ({"input_tokens":…,"output_tokens":…}) is reported as the
// step's usage, for scripts that exercise token displays.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

// Script is a parsed replay file.
type Script struct {
	Turns []Turn `json:"turns"`
}

// Turn is one scripted model answer.
type Turn struct {
	Text      string     `json:"text"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Summary marks the answer to a compaction's summary call.
	Summary bool `json:"summary,omitempty"`
	// Usage is reported as the step's usage (none when absent).
	Usage *agent.Usage `json:"usage,omitempty"`
}

// ToolCall is one scripted tool call.
type ToolCall struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ErrExhausted is returned for a request after the script's last turn.
var ErrExhausted = errors.New("replay script exhausted")

// Provider plays a Script. It is safe for concurrent use; requests consume
// turns in the order they arrive.
type Provider struct {
	name   string
	script Script

	mu          sync.Mutex
	next        int // the next conversation turn to look at
	nextSummary int // the next summary turn to look at
	ids         int
}

// Load reads and validates a script file.
func Load(path string) (*Provider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay script: %w", err)
	}
	return Parse("replay:"+path, data)
}

// Parse validates a script given as bytes; name is reported by Name.
func Parse(name string, data []byte) (*Provider, error) {
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("replay script %s: %w (format: {\"turns\":[{\"text\":…,\"tool_calls\":[{\"name\":…,\"input\":{…}}]}]})", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("replay script %s: unexpected data after the top-level JSON object", name)
	}
	if len(s.Turns) == 0 {
		return nil, fmt.Errorf("replay script %s has no turns", name)
	}
	for i, t := range s.Turns {
		if t.Summary && len(t.ToolCalls) > 0 {
			// The compaction call takes only the summary's text: calls
			// there would be dropped without a word.
			return nil, fmt.Errorf("replay script %s: turn %d is a summary turn with tool calls: a summary answers with text only; move the calls to a turn of their own", name, i+1)
		}
		for j, c := range t.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("replay script %s: turn %d, tool call %d has no name", name, i+1, j+1)
			}
			if len(c.Input) > 0 {
				var obj map[string]json.RawMessage
				// null decodes into a nil map without error, but is no object.
				if err := json.Unmarshal(c.Input, &obj); err != nil || obj == nil {
					return nil, fmt.Errorf("replay script %s: turn %d, tool call %d: input must be a JSON object", name, i+1, j+1)
				}
			}
		}
	}
	return &Provider{name: name, script: s}, nil
}

// take returns the next turn of the kind asked for (p.mu held).
func (p *Provider) take(summary bool) (Turn, bool) {
	next := &p.next
	if summary {
		next = &p.nextSummary
	}
	for *next < len(p.script.Turns) {
		t := p.script.Turns[*next]
		*next++
		if t.Summary == summary {
			return t, true
		}
	}
	return Turn{}, false
}

// Name implements agent.Provider.
func (p *Provider) Name() string { return p.name }

// Complete implements agent.Provider: it returns the next scripted turn.
func (p *Provider) Complete(ctx context.Context, req agent.Request, st agent.Stream) (agent.Response, error) {
	if err := ctx.Err(); err != nil {
		return agent.Response{}, err
	}
	p.mu.Lock()
	summary := req.Purpose == agent.PurposeCompaction
	t, ok := p.take(summary)
	if !ok {
		p.mu.Unlock()
		if summary {
			return agent.Response{Text: "(replay: the script has no summary turn here; the earlier conversation was dropped)"}, nil
		}
		return agent.Response{}, fmt.Errorf("%w after %d turns", ErrExhausted, len(p.script.Turns))
	}
	resp := agent.Response{Text: t.Text}
	if t.Usage != nil {
		resp.Usage = *t.Usage
	}
	for _, c := range t.ToolCalls {
		p.ids++
		in := c.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{ID: "call_" + strconv.Itoa(p.ids), Name: c.Name, Input: in})
	}
	p.mu.Unlock()
	if st.Text != nil && t.Text != "" {
		st.Text(t.Text)
	}
	return resp, nil
}
