// Package fimtest is a loopback fill-in-the-middle model for tests: real
// HTTP speaking OpenAI's /v1/completions (prompt and suffix; the
// text_completion event stream ending in [DONE], or one JSON answer) and
// llama.cpp's /infill (its event stream of content pieces ending with
// stop: true), with their real error bodies. A test scripts the answer as
// a function of the request, holds it at a point, and learns when a
// client gave up on a request (its connection closed before the answer
// ended) — what a real server sees when agentls cancels.
package fimtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Request is a request as the server decoded it, of either API.
type Request struct {
	// API is "completions" or "infill".
	API string `json:"-"`
	// Authorization is the request's Authorization header.
	Authorization string `json:"-"`
	// /v1/completions
	Model     string  `json:"model"`
	Prompt    string  `json:"prompt"`
	Suffix    *string `json:"suffix"`
	MaxTokens int     `json:"max_tokens"`
	Stream    bool    `json:"stream"`
	// /infill
	InputPrefix string `json:"input_prefix"`
	InputSuffix string `json:"input_suffix"`
	NPredict    int    `json:"n_predict"`
}

// Reply is one scripted answer.
type Reply struct {
	// Parts are the pieces of text, streamed in order (or joined into one
	// answer when the request did not ask for a stream).
	Parts []string
	// Hold, when set, is waited for before the first part (or until the
	// client gives up): a model still reading the prompt.
	Hold <-chan struct{}
	// Every waits this long before each part: a model generating.
	Every time.Duration
	// Whole answers with one JSON object although a stream was asked
	// for, as some servers do.
	Whole bool
	// Status and ErrorBody, when Status is set, answer with an error.
	Status    int
	ErrorBody string
}

// Server is a running loopback model.
type Server struct {
	// URL is the OpenAI-compatible base URL (ends in /v1); Root is the
	// server's root, where llama.cpp answers /infill.
	URL, Root string
	// OnReceive, when set, runs as a request arrives, before it is
	// answered. Set it before the first request.
	OnReceive func(Request)
	// OnFirstPart, when set, runs as the first part is sent: the model's
	// first token. Set it before the first request.
	OnFirstPart func(Request)
	// OnAbort, when set, runs when a client closes a request's connection
	// before its answer ended, with the time the server saw it.
	OnAbort func(Request, time.Time)

	answer func(Request) Reply
	srv    *httptest.Server

	mu       sync.Mutex
	requests []Request
	aborted  int
}

// New starts a server whose answers come from answer. Close it when done.
func New(answer func(Request) Reply) *Server {
	s := &Server{answer: answer}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.Root = s.srv.URL
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Aborted counts the requests whose client went away before the answer
// ended.
func (s *Server) Aborted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.aborted
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	var req Request
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/completions":
		req.API = "completions"
	case r.Method == http.MethodPost && r.URL.Path == "/infill":
		req.API = "infill"
	default:
		writeError(w, http.StatusNotFound, "", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path), "not_found_error")
		return
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, req.API, "bad JSON: "+err.Error(), "invalid_request_error")
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if s.OnReceive != nil {
		s.OnReceive(req)
	}
	rep := s.answer(req)
	if rep.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.ErrorBody)
		return
	}
	gone := func() {
		s.mu.Lock()
		s.aborted++
		s.mu.Unlock()
		if s.OnAbort != nil {
			s.OnAbort(req, time.Now())
		}
	}
	if rep.Hold != nil {
		select {
		case <-rep.Hold:
		case <-r.Context().Done():
			gone()
			return
		}
	}
	if !req.Stream || rep.Whole {
		text := ""
		for _, p := range rep.Parts {
			text += p
		}
		if s.OnFirstPart != nil {
			s.OnFirstPart(req)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(whole(req, text))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	for i, p := range rep.Parts {
		if rep.Every > 0 {
			t := time.NewTimer(rep.Every)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				gone()
				return
			}
		}
		if i == 0 && s.OnFirstPart != nil {
			s.OnFirstPart(req)
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", event(req, p, false)); err != nil {
			gone()
			return
		}
		fl.Flush()
	}
	fmt.Fprintf(w, "data: %s\n\n", event(req, "", true))
	if req.API != "infill" { // llama.cpp's stream ends with stop: true alone
		io.WriteString(w, "data: [DONE]\n\n")
	}
	fl.Flush()
}

// event is one streamed piece in the API's own shape.
func event(req Request, text string, last bool) []byte {
	if req.API == "infill" {
		b, _ := json.Marshal(map[string]any{"index": 0, "content": text, "tokens": []int{}, "stop": last, "id_slot": 0})
		return b
	}
	var finish any
	if last {
		finish = "stop"
	}
	b, _ := json.Marshal(map[string]any{"id": "cmpl-1", "object": "text_completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"text": text, "index": 0, "logprobs": nil, "finish_reason": finish}}})
	return b
}

// whole is a non-streamed answer in the API's own shape.
func whole(req Request, text string) any {
	if req.API == "infill" {
		return map[string]any{"index": 0, "content": text, "tokens": []int{}, "stop": true, "id_slot": 0, "stop_type": "eos"}
	}
	return map[string]any{"id": "cmpl-1", "object": "text_completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"text": text, "index": 0, "logprobs": nil, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": len(req.Prompt)/3 + 1, "completion_tokens": len(text)/3 + 1, "total_tokens": (len(req.Prompt)+len(text))/3 + 2}}
}

// writeError answers as the API's server does: OpenAI's error object, or
// llama.cpp's (a numeric code and a type).
func writeError(w http.ResponseWriter, status int, api, msg, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var b []byte
	if api == "infill" {
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}})
	} else {
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
	}
	w.Write(b)
}

// OpenAIError is the body OpenAI-compatible servers answer an error with.
func OpenAIError(msg, typ string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
	return string(b)
}

// LlamaError is the body llama.cpp's server answers an error with.
func LlamaError(status int, msg, typ string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}})
	return string(b)
}
