package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/remote"
)

// emptyText stands in for a user message without text: the API refuses
// empty text blocks.
const emptyText = "(empty message)"

// params maps an agent.Request to Messages API parameters: the system
// prompt as the top-level system field, strictly alternating messages,
// tools with their input_schema, thinking when on, and cache breakpoints.
// A compaction call (a summary) gets no tools, no thinking, no cache
// breakpoints and a smaller max_tokens.
func (p *Provider) params(req agent.Request) (sdk.MessageNewParams, error) {
	compaction := req.Purpose == agent.PurposeCompaction
	params := sdk.MessageNewParams{Model: sdk.Model(p.cfg.Model), MaxTokens: int64(p.cfg.MaxTokens)}
	thinking := p.cfg.ThinkingBudget > 0 && !compaction && thinkingAllowed(req.Messages)
	msgs, system, err := messages(req.Messages, thinking)
	if err != nil {
		return params, err
	}
	params.Messages = msgs
	if req.System != "" {
		system = append([]sdk.TextBlockParam{{Text: req.System}}, system...)
	}
	params.System = system
	if compaction {
		params.MaxTokens = min(params.MaxTokens, compactionMaxTokens)
		return params, nil
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Schema)
		if err != nil {
			return params, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tool := sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	if thinking {
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(p.cfg.ThinkingBudget))
	}
	markCache(&params)
	return params, nil
}

// thinkingAllowed reports whether thinking may be on for msgs: with
// thinking on, every assistant message of the tool-use loop in progress
// (after the last user prompt) must start with its signed thinking. A
// loop begun without thinking (another model, thinking turned on mid-way)
// goes on without it; the next prompt turns it on again. A prompt right
// after tool results (a turn that ended early) merges with them into one
// message, so it does not end the loop.
func thinkingAllowed(msgs []agent.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		switch {
		case m.Role == agent.RoleUser && (i == 0 || msgs[i-1].Role != agent.RoleTool):
			return true
		case m.Role == agent.RoleAssistant && len(m.ToolCalls) > 0 && !signed(m.Thinking):
			return false
		}
	}
	return true
}

// signed reports whether ths holds a block the API accepts back.
func signed(ths []agent.Thinking) bool {
	for _, t := range ths {
		if t.Signature != "" || t.Redacted != "" {
			return true
		}
	}
	return false
}

// messages maps the conversation to alternating user and assistant
// messages: consecutive tool results, a compaction summary and the prompt
// after it, and any other same-role neighbours merge into one message.
// System messages join the top-level system prompt. With thinking on,
// each assistant message starts with its signed (or redacted) thinking
// blocks, before its text and tool_use blocks.
func messages(in []agent.Message, thinking bool) ([]sdk.MessageParam, []sdk.TextBlockParam, error) {
	var out []sdk.MessageParam
	var system []sdk.TextBlockParam
	add := func(user bool, blocks ...sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 {
			switch last := out[n-1]; {
			case user && last.OfUser != nil:
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
				return
			case !user && last.OfAssistant != nil:
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
				return
			}
		}
		if user {
			out = append(out, sdk.NewUserMessage(blocks...))
		} else {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		}
	}
	for i, m := range in {
		switch m.Role {
		case agent.RoleSystem:
			if strings.TrimSpace(m.Content) != "" {
				system = append(system, sdk.TextBlockParam{Text: m.Content})
			}
		case agent.RoleUser:
			text := m.Content
			if strings.TrimSpace(text) == "" {
				text = emptyText
			}
			add(true, sdk.NewTextBlock(text))
		case agent.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if thinking {
				for _, th := range m.Thinking {
					switch {
					case th.Redacted != "":
						blocks = append(blocks, sdk.NewRedactedThinkingBlock(th.Redacted))
					case th.Signature != "":
						blocks = append(blocks, sdk.NewThinkingBlock(th.Signature, th.Text))
					}
				}
			}
			if strings.TrimSpace(m.Content) != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(toolUseID(tc.ID), toolUseInput(tc.Input), tc.Name))
			}
			add(false, blocks...)
		case agent.RoleTool:
			res := sdk.ToolResultBlockParam{ToolUseID: toolUseID(m.ToolCallID)}
			if m.Content != "" {
				res.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Content}}}
			}
			if m.IsError {
				res.IsError = sdk.Bool(true)
			}
			add(true, sdk.ContentBlockParamUnion{OfToolResult: &res})
		default:
			return nil, nil, fmt.Errorf("message %d has unknown role %q", i, m.Role)
		}
	}
	return out, system, nil
}

// toolUseID is a tool call's id as the API accepts it back: letters,
// digits, _ and - only. A conversation begun with another model (switched
// mid-session) may hold ids other servers made ("functions.view:0"):
// those keep their readable part and gain a hash of the original, so two
// ids never meet in one, and a call and its result still match.
func toolUseID(id string) string {
	valid := id != ""
	for _, r := range id {
		if !idRune(r) {
			valid = false
			break
		}
	}
	if valid {
		return id
	}
	var b strings.Builder
	for _, r := range id {
		if idRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	fmt.Fprintf(&b, "_%08x", h.Sum32())
	return strings.TrimLeft(b.String(), "_")
}

func idRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// toolUseInput is a call's input as sent back: the API wants an object,
// so input the model garbled (kept as a JSON string, see
// remote.ToolInput) goes back as {} — its tool result says what was
// wrong.
func toolUseInput(in json.RawMessage) any {
	s := bytes.TrimSpace(in)
	if len(s) > 0 && s[0] == '{' && json.Valid(s) {
		return json.RawMessage(s)
	}
	return map[string]any{}
}

// inputSchema maps a tool's JSON schema to input_schema: properties and
// required in their fields, every other keyword kept as it is. An empty
// schema means "no arguments".
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var schema sdk.ToolInputSchemaParam
	if len(bytes.TrimSpace(raw)) == 0 {
		schema.Properties = map[string]any{}
		return schema, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return schema, fmt.Errorf("schema is not a JSON object: %s", remote.Clip(string(raw)))
	}
	if t, ok := m["type"]; ok && t != "object" {
		return schema, fmt.Errorf("schema type is %v: a tool's input must be an object", t)
	}
	schema.Properties = map[string]any{}
	if props, ok := m["properties"]; ok {
		schema.Properties = props
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				schema.Required = append(schema.Required, s)
			}
		}
	}
	delete(m, "type")
	delete(m, "properties")
	delete(m, "required")
	if len(m) > 0 {
		schema.ExtraFields = m
	}
	return schema, nil
}

// markCache sets the prompt-cache breakpoints (the API allows four): the
// last tool and the system prompt, so the fixed prefix is cached once,
// then the last user message and the user message before it. Each step
// thus writes the conversation up to its end and reads what the step
// before wrote, whatever was added in between.
func markCache(params *sdk.MessageNewParams) {
	cache := sdk.NewCacheControlEphemeralParam()
	if n := len(params.Tools); n > 0 {
		params.Tools[n-1].OfTool.CacheControl = cache
	}
	if n := len(params.System); n > 0 {
		params.System[n-1].CacheControl = cache
	}
	marked := 0
	for i := len(params.Messages) - 1; i >= 0 && marked < 2; i-- {
		u := params.Messages[i].OfUser
		if u == nil || len(u.Content) == 0 {
			continue
		}
		switch b := u.Content[len(u.Content)-1]; {
		case b.OfText != nil:
			b.OfText.CacheControl = cache
		case b.OfToolResult != nil:
			b.OfToolResult.CacheControl = cache
		default:
			continue
		}
		marked++
	}
}
