// Package openaitest is a loopback OpenAI-compatible chat-completions
// server for tests: real HTTP, the real server-sent-events stream (text
// and tool-call deltas, a usage chunk, [DONE]) and the real error bodies,
// including context_length_exceeded for a request longer than the
// server's window. A test scripts the model's answers as a function of
// the request it receives.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/providertest"
)

// Request is the chat-completions request as the server decoded it.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream bool `json:"stream"`
	// Tokens is the server's count of the request's prompt tokens.
	Tokens int `json:"-"`
}

// Message is one message of a request.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls"`
	ToolCallID string     `json:"tool_call_id"`
}

// ToolCall is a tool call in a message or a reply.
type ToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Call builds a reply's tool call.
func Call(id, name string, args any) ToolCall {
	b, _ := json.Marshal(args)
	var c ToolCall
	c.ID, c.Function.Name, c.Function.Arguments = id, name, string(b)
	return c
}

// Reply is one scripted answer.
type Reply struct {
	// Parts are the text deltas, streamed in order.
	Parts     []string
	ToolCalls []ToolCall
	// BeforePart, when set, runs before part i is sent (i counts from 0),
	// so a test can hold the stream at a point.
	BeforePart func(i int)
	// Status and ErrorBody, when Status is set, answer with an error
	// instead; Header is added to that answer (Retry-After).
	Status    int
	ErrorBody string
	Header    http.Header
	// Break drops the connection after the parts and tool calls, before
	// the answer is finished: a crashed server or a cut proxy.
	Break bool
	// Stall sends the parts and tool calls, then nothing more until the
	// client gives up: a stuck server.
	Stall bool
}

// Server is a running loopback model.
type Server struct {
	// URL is the base URL to configure (ends in /v1).
	URL string
	// Window, when > 0, refuses a request of more prompt tokens with
	// OpenAI's context_length_exceeded error.
	Window int
	// Also, when set, answers every request but chat completions: a
	// local server's own API (Ollama's /api/show, llama.cpp's /props).
	// Set it before the first request.
	Also http.Handler

	// Record keeps the requests, the refusals and the usage reported
	// (Requests, OverWindow, Usage).
	providertest.Record[Request]

	srv    *httptest.Server
	answer func(Request) Reply
}

// New starts a server whose answers come from answer. Close it when done.
func New(answer func(Request) Reply) *Server {
	s := &Server{answer: answer}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// CountTokens is the server's tokenizer: three bytes of text a token (a
// different rate from agentls's own estimate, which must calibrate).
func CountTokens(r Request) int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Content) + 12
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	return n/3 + 1
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		if s.Also != nil {
			s.Also.ServeHTTP(w, r)
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, r.URL.Path), "not_found")
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error(), "invalid_request_error")
		return
	}
	req.Tokens = CountTokens(req)
	s.Received(req)
	if s.Window > 0 && req.Tokens > s.Window {
		s.Refused()
		// OpenAI's own wording and code.
		writeError(w, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", s.Window, req.Tokens), "context_length_exceeded")
		return
	}
	rep := s.answer(req)
	if rep.Status != 0 {
		for k, vs := range rep.Header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.ErrorBody)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	send := func(data string) {
		fmt.Fprintf(w, "data: %s\n\n", data)
		w.(http.Flusher).Flush()
	}
	send(chunk(`{"role":"assistant","content":""}`, ""))
	completion := 0
	for i, p := range rep.Parts {
		if rep.BeforePart != nil {
			rep.BeforePart(i)
		}
		b, _ := json.Marshal(p)
		send(chunk(fmt.Sprintf(`{"content":%s}`, b), ""))
		completion += len(p)/3 + 1
	}
	for i, c := range rep.ToolCalls {
		d, _ := json.Marshal(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Function.Name, "arguments": c.Function.Arguments},
		}}})
		send(chunk(string(d), ""))
		completion += len(c.Function.Arguments)/3 + 1
	}
	switch {
	case rep.Break:
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	case rep.Stall:
		<-r.Context().Done()
		return
	}
	finish := "stop"
	if len(rep.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	send(chunk(`{}`, finish))
	send(fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":%q,"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0}}}`,
		req.Model, req.Tokens, completion, req.Tokens+completion))
	s.Billed(agent.Usage{Input: req.Tokens, Output: completion})
	send("[DONE]")
}

func chunk(delta, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, fr)
}

// writeError answers the way OpenAI does.
func writeError(w http.ResponseWriter, status int, msg, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": "messages", "code": code}})
	w.Write(b)
}

// Text is the concatenated content of the request's messages, for
// scripted answers that look for what the model was shown.
func (r Request) Text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}
