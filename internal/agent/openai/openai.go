// Package openai implements agent.Provider over an OpenAI-compatible chat
// completions endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, ...),
// streaming text and tool calls through the official SDK
// github.com/openai/openai-go/v3.
//
// Retries are done by package remote's loop, shared with the other
// providers, and the SDK's own retries are switched off
// (option.WithMaxRetries(0)).
//
// The provider reads no environment variables: the SDK client is built from
// Config alone, so a local server never receives an OPENAI_API_KEY or
// OPENAI_ORG_ID that the caller did not pass on purpose.
package openai

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/remote"
)

// DefaultBaseURL is OpenAI's API root.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures an OpenAI-compatible endpoint: BaseURL is the API
// root, e.g. https://api.openai.com/v1 or, for Ollama,
// http://localhost:11434/v1; APIKey is sent as a bearer token. Zero fields
// take defaults (DefaultBaseURL, remote's policy), so
// Config{Endpoint: remote.Endpoint{Model: "gpt-4.1", APIKey: key}} is
// enough for OpenAI itself.
type Config struct {
	remote.Endpoint
}

// Provider is an agent.Provider for one model at one OpenAI-compatible
// endpoint. It is safe for concurrent use.
type Provider struct {
	remote.Model
	cfg  Config
	call remote.Call
	chat sdk.ChatCompletionService
}

var (
	_ agent.Provider = (*Provider)(nil)
	_ agent.Windowed = (*Provider)(nil)
)

// New checks cfg, fills in defaults and builds the SDK client. It makes no
// network call, so a wrong key or model shows up on the first Complete.
func New(cfg Config) (*Provider, error) {
	var err error
	if cfg.Endpoint, err = cfg.Resolve("openai", DefaultBaseURL, "gpt-4.1", 0); err != nil {
		return nil, err
	}
	// NewChatCompletionService, unlike NewClient, adds no options read
	// from the environment.
	chat := sdk.NewChatCompletionService(
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	)
	return &Provider{Model: cfg.Describe(), cfg: cfg, call: cfg.Call("openai", "chat completions", contextLength), chat: chat}, nil
}

// Complete streams one chat completion for req. st.Text receives every
// text delta as it arrives. Transient failures are retried while no text
// has been streamed; after that a failure is returned, since a retry would
// repeat what the user already saw.
func (p *Provider) Complete(ctx context.Context, req agent.Request, st agent.Stream) (agent.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return agent.Response{}, fmt.Errorf("openai %s: %w", p.cfg.Model, err)
	}
	return p.call.Do(ctx, st, func(ctx context.Context, st agent.Stream) (agent.Response, *remote.Failure) {
		return p.attempt(ctx, params, st.Text)
	})
}

// errStreamEnded marks a stream that ended cleanly but without a finish
// reason.
var errStreamEnded = fmt.Errorf("%w (no finish_reason)", remote.ErrStreamEnded)

// attempt makes one request and reads its stream to the end.
func (p *Provider) attempt(ctx context.Context, params sdk.ChatCompletionNewParams, emit func(string)) (agent.Response, *remote.Failure) {
	var httpResp *http.Response
	stream := p.chat.NewStreaming(ctx, params, option.WithResponseInto(&httpResp))
	defer stream.Close()

	acc := accumulator{byIndex: map[int64]*toolAcc{}}
	for stream.Next() {
		chunk := stream.Current()
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // only one choice is requested
			}
			// A refusal is the model's answer too; show it like text.
			for _, s := range []string{ch.Delta.Content, ch.Delta.Refusal} {
				if s != "" {
					acc.text.WriteString(s)
					acc.size += len(s)
					if emit != nil {
						emit(s)
					}
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				acc.addTool(tc)
			}
			if ch.FinishReason != "" {
				acc.finished = true
			}
		}
		if u := chunk.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
			acc.usage = agent.Usage{Input: int(u.PromptTokens), Output: int(u.CompletionTokens),
				CacheRead: int(u.PromptTokensDetails.CachedTokens)}
		}
		if f := p.call.Policy.Over(acc.size); f != nil {
			return agent.Response{}, f
		}
	}
	if f := remote.StreamEnd(stream.Err(), acc.finished, httpResp, errStreamEnded, streamError); f != nil {
		return agent.Response{}, f
	}
	return acc.response(), nil
}

// streamError recognises an error event in the stream.
func streamError(err error) *remote.Failure {
	var streamErr *ssestream.StreamError
	if !errors.As(err, &streamErr) {
		return nil
	}
	detail, code := remote.BodyDetail(streamErr.Event.Data)
	return &remote.Failure{Kind: remote.KindStreamError, Detail: detail, Code: code, RetryAfter: -1, Err: err}
}

// contextLength recognises a "too long" answer: OpenAI's
// context_length_exceeded code, or the messages of OpenAI-compatible
// servers (vLLM, llama.cpp, Ollama, LiteLLM), and the window it names.
func contextLength(f *remote.Failure) (int, bool) {
	if f.Kind != remote.KindStatus && f.Kind != remote.KindStreamError {
		return 0, false
	}
	if f.Kind == remote.KindStatus && f.Status != http.StatusBadRequest && f.Status != http.StatusRequestEntityTooLarge {
		return 0, false
	}
	d := strings.ToLower(f.Detail + " " + f.Code)
	for _, k := range []string{"context_length_exceeded", "context length", "context window", "maximum context",
		"too many tokens", "prompt is too long", "exceeds the available context", "input is too long"} {
		if strings.Contains(d, k) {
			return firstTokenCount(d), true
		}
	}
	return 0, false
}

// firstTokenCount finds "N tokens" (the window) in a server's message
// such as "This model's maximum context length is 8192 tokens."
func firstTokenCount(s string) int {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '(' || r == ')' || r == '.' })
	for i := 0; i+1 < len(fields); i++ {
		if strings.HasPrefix(fields[i+1], "token") {
			if n, err := strconv.Atoi(fields[i]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// toolAcc collects one streamed tool call.
type toolAcc struct {
	id, name string
	args     strings.Builder
}

// accumulator collects one attempt's streamed answer.
type accumulator struct {
	text     strings.Builder
	calls    []*toolAcc // in order of first appearance
	byIndex  map[int64]*toolAcc
	finished bool // a finish_reason arrived
	usage    agent.Usage
	size     int // bytes of text and tool calls so far (Policy.Over)
}

// addTool merges one tool-call delta. Deltas are keyed by index; a delta
// that carries a different id at a known index starts a new call, for
// servers that send every call whole at index 0.
func (a *accumulator) addTool(d sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	c := a.byIndex[d.Index]
	if c == nil || (d.ID != "" && c.id != "" && d.ID != c.id) {
		c = &toolAcc{}
		a.calls = append(a.calls, c)
		a.byIndex[d.Index] = c
	}
	if c.id == "" {
		c.id = d.ID
	}
	c.name += d.Function.Name
	c.args.WriteString(d.Function.Arguments)
	a.size += len(d.Function.Name) + len(d.Function.Arguments)
}

func (a *accumulator) response() agent.Response {
	r := agent.Response{Text: a.text.String(), Usage: a.usage}
	for _, c := range a.calls {
		id := c.id
		if id == "" {
			id = "call_" + rand.Text()
		}
		r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: id, Name: c.name, Input: remote.ToolInput(c.args.String())})
	}
	return r
}

// params maps an agent.Request to chat-completion parameters.
func (p *Provider) params(req agent.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{Model: shared.ChatModel(p.cfg.Model),
		// The last chunk then carries the call's token usage.
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case agent.RoleSystem:
			params.Messages = append(params.Messages, sdk.SystemMessage(m.Content))
		case agent.RoleUser:
			params.Messages = append(params.Messages, sdk.UserMessage(m.Content))
		case agent.RoleAssistant:
			var am sdk.ChatCompletionAssistantMessageParam
			if m.Content != "" || len(m.ToolCalls) == 0 {
				am.Content.OfString = param.NewOpt(m.Content)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID: tc.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      tc.Name,
							Arguments: remote.ToolArguments(tc.Input),
						},
					},
				})
			}
			params.Messages = append(params.Messages, sdk.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case agent.RoleTool:
			params.Messages = append(params.Messages, sdk.ToolMessage(m.Content, m.ToolCallID))
		default:
			return params, fmt.Errorf("message %d has unknown role %q", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		schema, err := toolSchema(t.Schema)
		if err != nil {
			return params, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	return params, nil
}

// toolSchema decodes a tool's JSON schema; an empty schema means "no
// arguments", which servers want spelled as an empty object schema.
func toolSchema(raw json.RawMessage) (shared.FunctionParameters, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	// Plain float64 numbers: the SDK's encoder would write json.Number
	// values as strings.
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil || schema == nil {
		return nil, fmt.Errorf("schema is not a JSON object: %s", remote.Clip(string(raw)))
	}
	return schema, nil
}
