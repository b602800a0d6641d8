package anthropictest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// toolIDRE is what the API accepts as a tool_use block's id.
var toolIDRE = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// check returns the API's complaint about req, or "".
func (s *Server) check(req Request) string {
	if req.MaxTokens <= 0 {
		return "max_tokens: Field required"
	}
	if len(req.Messages) == 0 {
		return "messages: at least one message is required"
	}
	if n := breakpoints(req); n > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", n)
	}
	for i, t := range req.Tools {
		var schema struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(t.InputSchema, &schema) != nil || schema.Type != "object" {
			return fmt.Sprintf("tools.%d.input_schema.type: Input should be 'object'", i)
		}
	}
	thinking := req.Thinking != nil && req.Thinking.Type == "enabled"
	if thinking {
		if req.Thinking.BudgetTokens < 1024 {
			return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		}
		if req.Thinking.BudgetTokens >= req.MaxTokens {
			return "`max_tokens` must be greater than `thinking.budget_tokens`"
		}
	}
	prompt := -1 // the last user message that is a prompt, not tool results
	for i, m := range req.Messages {
		if msg := s.checkMessage(req, i); msg != "" {
			return msg
		}
		if m.Role == "user" && !hasType(m.Content, "tool_result") {
			prompt = i
		}
	}
	if thinking {
		for i := prompt + 1; i < len(req.Messages); i++ {
			m := req.Messages[i]
			if m.Role == "assistant" && hasType(m.Content, "tool_use") {
				if t := m.Content[0].Type; t != "thinking" && t != "redacted_thinking" {
					return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).", i, t)
				}
			}
		}
	}
	return ""
}

// checkMessage checks message i: its role, order, blocks and the answers
// to the previous message's tool calls.
func (s *Server) checkMessage(req Request, i int) string {
	m := req.Messages[i]
	switch {
	case m.Role != "user" && m.Role != "assistant":
		return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
	case i == 0 && m.Role != "user":
		return `messages: first message must use the "user" role`
	case i > 0 && req.Messages[i-1].Role == m.Role:
		return fmt.Sprintf("messages.%d: roles must alternate between \"user\" and \"assistant\", but found multiple %q roles in a row", i, m.Role)
	case len(m.Content) == 0:
		return fmt.Sprintf("messages.%d: all messages must have non-empty content", i)
	}
	pending := map[string]bool{}
	if i > 0 {
		for _, b := range req.Messages[i-1].Content {
			if b.Type == "tool_use" {
				pending[b.ID] = true
			}
		}
	}
	results := true // still in the leading run of tool_result blocks
	for j, b := range m.Content {
		at := fmt.Sprintf("messages.%d.content.%d", i, j)
		if b.Type != "tool_result" {
			results = false
		}
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				return at + ": text content blocks must contain non-whitespace text"
			}
		case "tool_use":
			if m.Role != "assistant" || len(b.Input) == 0 || b.Input[0] != '{' {
				return at + ": tool_use blocks belong to assistant messages and their input must be an object"
			}
			if !toolIDRE.MatchString(b.ID) {
				return at + ".id: String should match pattern '^[a-zA-Z0-9_-]+$'"
			}
		case "tool_result":
			if m.Role != "user" || !results {
				return at + ": tool_result blocks must come first in a user message, before any other content"
			}
			if !pending[b.ToolUseID] {
				return fmt.Sprintf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", at, b.ToolUseID)
			}
			delete(pending, b.ToolUseID)
		case "thinking":
			s.mu.Lock()
			text, ok := s.signed[b.Signature]
			s.mu.Unlock()
			if m.Role != "assistant" || !ok || text != b.Thinking {
				return at + ": Invalid `signature` in `thinking` block"
			}
		case "redacted_thinking":
			if m.Role != "assistant" || b.Data == "" {
				return at + ": Invalid `data` in `redacted_thinking` block"
			}
		default:
			return fmt.Sprintf("%s.type: unexpected block type %q", at, b.Type)
		}
	}
	if len(pending) > 0 {
		var ids []string
		for id := range pending {
			ids = append(ids, id)
		}
		return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(ids, ", "))
	}
	return ""
}

func hasType(bs []Block, typ string) bool {
	for _, b := range bs {
		if b.Type == typ {
			return true
		}
	}
	return false
}

// breakpoints counts the cache_control marks of req.
func breakpoints(req Request) int {
	n := 0
	for _, u := range prefixUnits(req) {
		if u.breakpoint {
			n++
		}
	}
	return n
}

// unit is one piece of the prompt in cache order (tools, system, then
// message blocks) with the hash and token count of the prefix ending
// with it.
type unit struct {
	hash       string
	tokens     int
	breakpoint bool
}

// prefixUnits cuts req into units; the last one's tokens is the prompt's
// size (three bytes a token, plus a little per message).
func prefixUnits(req Request) []unit {
	h := sha256.New()
	units := []unit{{}}
	tokens := 0
	add := func(kind string, v any, cc *CacheControl) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(h, "%s:%s\n", kind, b)
		tokens += len(b) / 3
		units = append(units, unit{hash: hex.EncodeToString(h.Sum(nil)), tokens: tokens, breakpoint: cc != nil})
	}
	for _, t := range req.Tools {
		cc := t.CacheControl
		t.CacheControl = nil
		add("tool", t, cc)
	}
	for _, b := range req.System {
		cc := b.CacheControl
		b.CacheControl = nil
		add("system", b, cc)
	}
	for _, m := range req.Messages {
		tokens += 12
		for _, b := range m.Content {
			cc := b.CacheControl
			b.CacheControl = nil
			add(m.Role, b, cc)
		}
	}
	units[len(units)-1].tokens = tokens
	return units
}

// playCache reads the longest cached prefix ending at a breakpoint and
// writes every breakpoint's prefix; it returns the tokens read from and
// written to the cache.
func (s *Server) playCache(units []unit) (read, write int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := 0
	for _, u := range units {
		if !u.breakpoint {
			continue
		}
		if s.cache[u.hash] {
			read = u.tokens
		}
		last = u.tokens
		s.cache[u.hash] = true
	}
	return read, max(last-read, 0)
}
