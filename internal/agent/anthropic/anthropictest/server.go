// Package anthropictest is a loopback Anthropic Messages API server for
// tests: real HTTP, the real server-sent-events stream (message_start,
// ping, content_block_start/delta/stop with text_delta, input_json_delta,
// thinking_delta and signature_delta, message_delta with usage,
// message_stop, error events) and the real error bodies, including
// "prompt is too long" for a request longer than the server's window.
//
// It checks what the API checks, so a provider bug fails a test the way
// it would fail against Anthropic: roles alternate starting with user,
// every tool_use is answered by a tool_result at the start of the next
// user message, text blocks are not empty, at most four cache_control
// breakpoints, max_tokens is set, a thinking budget is at least 1024 and
// below max_tokens, and with thinking on the assistant messages of the
// tool-use loop in progress start with a thinking block whose signature
// this server issued. It also plays the prompt cache: a prefix up to a
// breakpoint is written once and read by later requests that share it.
//
// A test scripts the model's answers as a function of the request.
package anthropictest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/providertest"
)

// Request is a Messages API request as the server decoded it.
type Request struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	System    []Block   `json:"system"`
	Messages  []Message `json:"messages"`
	Tools     []Tool    `json:"tools"`
	Thinking  *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Stream bool `json:"stream"`
	// Tokens is the server's count of the request's prompt tokens.
	Tokens int `json:"-"`
	// Body is the request body as sent; Header its headers.
	Body   json.RawMessage `json:"-"`
	Header http.Header     `json:"-"`
}

// Tool is a tool definition of a request.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *CacheControl   `json:"cache_control"`
}

// CacheControl is a prompt-cache breakpoint.
type CacheControl struct {
	Type string `json:"type"`
}

// Message is one message of a request. Content given as a plain string
// decodes as one text block.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// UnmarshalJSON accepts a string or a list of blocks as content.
func (m *Message) UnmarshalJSON(b []byte) error {
	var v struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	m.Role = v.Role
	var s string
	if json.Unmarshal(v.Content, &s) == nil {
		m.Content = []Block{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(v.Content, &m.Content)
}

// Block is a content block of a message (or of the system prompt).
type Block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      json.RawMessage `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	CacheControl *CacheControl   `json:"cache_control,omitempty"`
}

// ResultText is a tool_result block's content as text.
func (b Block) ResultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []Block
	_ = json.Unmarshal(b.Content, &parts)
	var out strings.Builder
	for _, p := range parts {
		out.WriteString(p.Text)
	}
	return out.String()
}

// Text is the text of every block of the request (system, messages, tool
// results), for scripted answers that look for what the model was shown.
func (r Request) Text() string {
	var b strings.Builder
	for _, s := range r.System {
		b.WriteString(s.Text + "\n")
	}
	for _, m := range r.Messages {
		for _, c := range m.Content {
			b.WriteString(c.Text + c.ResultText() + "\n")
		}
	}
	return b.String()
}

// Thinking is a scripted thinking block: Text is streamed and signed by
// the server, Redacted is sent as a redacted_thinking block instead.
type Thinking struct {
	Text     string
	Redacted string
}

// ToolCall is a scripted tool_use block.
type ToolCall struct {
	ID, Name string
	Input    any
}

// Reply is one scripted answer.
type Reply struct {
	Thinking []Thinking
	// Parts are the text deltas, streamed in order.
	Parts     []string
	ToolCalls []ToolCall
	// BeforePart, when set, runs before part i is sent (i counts from 0),
	// so a test can hold the stream at a point.
	BeforePart func(i int)
	// Status, when set, answers with an error of ErrorType and Message
	// instead; Header is added to that answer (retry-after).
	Status    int
	ErrorType string
	Message   string
	Header    http.Header
	// StreamError, when set, ends the stream after the parts with an
	// error event of that type (e.g. "overloaded_error").
	StreamError string
}

// Server is a running loopback model.
type Server struct {
	// URL is the base URL to configure (requests go to URL/v1/messages).
	URL string
	// Window, when > 0, refuses a request of more prompt tokens with the
	// API's "prompt is too long" error.
	Window int
	// Key, when set, is the API key every request must carry (x-api-key
	// or a bearer token); others get a 401.
	Key string

	// Record keeps the requests, the refusals and the usage reported
	// (Requests, OverWindow, Usage).
	providertest.Record[Request]

	srv    *httptest.Server
	answer func(Request) Reply

	mu     sync.Mutex
	cache  map[string]bool   // prefix hashes written to the cache
	signed map[string]string // signature -> thinking text issued
}

// New starts a server whose answers come from answer. Close it when done.
func New(answer func(Request) Reply) *Server {
	s := &Server{answer: answer, cache: map[string]bool{}, signed: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
		writeError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path), nil)
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad JSON: "+err.Error(), nil)
		return
	}
	req.Body, req.Header = body, r.Header.Clone()
	units := prefixUnits(req)
	req.Tokens = units[len(units)-1].tokens
	s.Received(req)
	if s.Key != "" && r.Header.Get("X-Api-Key") != s.Key && r.Header.Get("Authorization") != "Bearer "+s.Key {
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key", nil)
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required", nil)
		return
	}
	if msg := s.check(req); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", msg, nil)
		return
	}
	if s.Window > 0 && req.Tokens > s.Window {
		s.Refused()
		writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("prompt is too long: %d tokens > %d maximum", req.Tokens, s.Window), nil)
		return
	}
	rep := s.answer(req)
	if rep.Status != 0 {
		writeError(w, rep.Status, rep.ErrorType, rep.Message, rep.Header)
		return
	}
	read, write := s.playCache(units)
	s.stream(w, req, rep, read, write)
}

// stream writes rep as the Messages API's event stream.
func (s *Server) stream(w http.ResponseWriter, req Request, rep Reply, read, write int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		w.(http.Flusher).Flush()
	}
	type obj = map[string]any
	send("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_1", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": req.Tokens - read - write, "output_tokens": 1,
			"cache_read_input_tokens": read, "cache_creation_input_tokens": write},
	}})
	send("ping", obj{"type": "ping"})
	index, output := 0, 1
	startBlock := func(cb obj) {
		send("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": cb})
	}
	delta := func(d obj) {
		send("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": d})
	}
	stopBlock := func() {
		send("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	if req.Thinking != nil && req.Thinking.Type == "enabled" {
		for _, th := range rep.Thinking {
			if th.Redacted != "" {
				startBlock(obj{"type": "redacted_thinking", "data": th.Redacted})
				stopBlock()
				continue
			}
			startBlock(obj{"type": "thinking", "thinking": "", "signature": ""})
			half := len(th.Text) / 2
			for _, part := range []string{th.Text[:half], th.Text[half:]} {
				if part != "" {
					delta(obj{"type": "thinking_delta", "thinking": part})
				}
			}
			delta(obj{"type": "signature_delta", "signature": s.sign(th.Text)})
			stopBlock()
			output += len(th.Text)/3 + 1
		}
	}
	if len(rep.Parts) > 0 {
		startBlock(obj{"type": "text", "text": ""})
		for i, p := range rep.Parts {
			if rep.BeforePart != nil {
				rep.BeforePart(i)
			}
			delta(obj{"type": "text_delta", "text": p})
			output += len(p)/3 + 1
		}
		if rep.StreamError == "" {
			stopBlock()
		}
	}
	if rep.StreamError != "" {
		send("error", obj{"type": "error", "error": obj{"type": rep.StreamError, "message": "Overloaded"}})
		return
	}
	for _, c := range rep.ToolCalls {
		startBlock(obj{"type": "tool_use", "id": c.ID, "name": c.Name, "input": obj{}})
		args, _ := json.Marshal(c.Input)
		half := len(args) / 2
		for _, part := range []string{string(args[:half]), string(args[half:])} {
			delta(obj{"type": "input_json_delta", "partial_json": part})
		}
		stopBlock()
		output += len(args)/3 + 1
	}
	stop := "end_turn"
	if len(rep.ToolCalls) > 0 {
		stop = "tool_use"
	}
	send("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil},
		"usage": obj{"output_tokens": output}})
	s.Billed(agent.Usage{Input: req.Tokens, Output: output, CacheRead: read, CacheWrite: write})
	send("message_stop", obj{"type": "message_stop"})
}

// sign issues a signature for a thinking block, remembered so the block
// can be checked when it comes back.
func (s *Server) sign(text string) string {
	h := sha256.Sum256([]byte("thinking:" + text))
	sig := "sig-" + hex.EncodeToString(h[:8])
	s.mu.Lock()
	s.signed[sig] = text
	s.mu.Unlock()
	return sig
}

// writeError answers the way the API does.
func writeError(w http.ResponseWriter, status int, typ, msg string, h http.Header) {
	for k, vs := range h {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_test")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	w.Write(b)
}
