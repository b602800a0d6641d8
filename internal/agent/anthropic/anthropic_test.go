package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/anthropic/anthropictest"
	"github.com/agentls/agentls/internal/agent/providertest"
	"github.com/agentls/agentls/internal/agent/remote"
)

const testKey = "sk-ant-test"

// newServer starts a loopback Messages API server that wants testKey.
func newServer(t *testing.T, answer func(anthropictest.Request) anthropictest.Reply) *anthropictest.Server {
	t.Helper()
	srv := anthropictest.New(answer)
	srv.Key = testKey
	t.Cleanup(srv.Close)
	return srv
}

func newProvider(t *testing.T, baseURL string, mod ...func(*Config)) *Provider {
	t.Helper()
	return providertest.Configure(t, New, Config{Endpoint: remote.Endpoint{
		BaseURL:   baseURL,
		APIKey:    testKey,
		Model:     "claude-sonnet-4-5",
		MaxOutput: 64000,
		Policy:    providertest.FastRetries(),
	}}, mod...)
}

func text(parts ...string) func(anthropictest.Request) anthropictest.Reply {
	return func(anthropictest.Request) anthropictest.Reply { return anthropictest.Reply{Parts: parts} }
}

var simpleReq = agent.Request{System: "Be terse.", Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}

// body decodes a request body as generic JSON.
func body(t *testing.T, r anthropictest.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ---- streaming ----

func TestStreamTextAndRequest(t *testing.T) {
	srv := newServer(t, text("Hel", "lo", " world"))
	var got []string
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{Text: func(s string) { got = append(got, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello world" || !reflect.DeepEqual(got, []string{"Hel", "lo", " world"}) {
		t.Errorf("text %q, deltas %q", resp.Text, got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "claude-sonnet-4-5" || !r.Stream || r.MaxTokens != DefaultMaxTokens || r.Thinking != nil {
		t.Errorf("model %q stream %v max_tokens %d thinking %v", r.Model, r.Stream, r.MaxTokens, r.Thinking)
	}
	if len(r.System) != 1 || r.System[0].Text != "Be terse." || r.System[0].CacheControl == nil {
		t.Errorf("system = %s, want the prompt with a cache breakpoint", dump(r.System))
	}
	if len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.Messages[0].Content[0].Text != "hi" {
		t.Errorf("messages = %s", dump(r.Messages))
	}
	if _, ok := body(t, r)["system"].([]any); !ok {
		t.Errorf("system is not the top-level system field: %s", r.Body)
	}
	// The whole prompt was written to the cache: Input counts it.
	if want := (agent.Usage{Input: r.Tokens, Output: srv.Usage().Output, CacheWrite: r.Tokens}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
}

func TestNoKeySendsNoCredentials(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "must-not-leak")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "must-not-leak")
	srv := anthropictest.New(text("ok"))
	defer srv.Close()
	if _, err := newProvider(t, srv.URL+"/v1/", func(c *Config) { c.APIKey = "" }).Complete(context.Background(), simpleReq, agent.Stream{}); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
		t.Errorf("credentials sent: %v", h)
	}
}

// conversation is a history with two tool rounds, a failed result, a
// compaction summary followed by the prompt, and an empty user message.
func conversation() []agent.Message {
	return []agent.Message{
		{Role: agent.RoleUser, Content: "[Summary of the earlier conversation]\nwe read a.go"},
		{Role: agent.RoleUser, Content: "Where is TODO?"},
		{Role: agent.RoleAssistant, Content: "Searching.", ToolCalls: []agent.ToolCall{
			{ID: "toolu_1", Name: "grep", Input: json.RawMessage(`{"pattern":"TODO"}`)},
			{ID: "toolu_2", Name: "view", Input: json.RawMessage(`"{\"path\":"`)}, // garbled by the model
		}},
		{Role: agent.RoleTool, ToolCallID: "toolu_1", Name: "grep", Content: "a.go:3: // TODO"},
		{Role: agent.RoleTool, ToolCallID: "toolu_2", Name: "view", Content: "view: invalid input", IsError: true},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "toolu_3", Name: "view", Input: json.RawMessage(`{"path":"a.go"}`)}}},
		{Role: agent.RoleTool, ToolCallID: "toolu_3", Name: "view", Content: "package a"},
	}
}

func TestRequestShape(t *testing.T) {
	srv := newServer(t, text("It is in a.go."))
	schema := `{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"],"additionalProperties":false}`
	req := agent.Request{
		System:   "You are terse.",
		Messages: conversation(),
		Tools: []agent.ToolDef{
			{Name: "view", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "grep", Description: "Search.", Schema: json.RawMessage(schema)},
			{Name: "ls"}, // no schema: no arguments
		},
	}
	if _, err := newProvider(t, srv.URL).Complete(context.Background(), req, agent.Stream{}); err != nil {
		t.Fatal(err)
	}
	got := body(t, srv.Requests()[0])
	want := `{
	  "model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": true,
	  "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
	  "tools": [
	    {"name": "view", "description": "Read a file.", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}},
	    {"name": "grep", "description": "Search.", "input_schema": ` + schema + `},
	    {"name": "ls", "input_schema": {"type": "object", "properties": {}}, "cache_control": {"type": "ephemeral"}}
	  ],
	  "messages": [
	    {"role": "user", "content": [
	      {"type": "text", "text": "[Summary of the earlier conversation]\nwe read a.go"},
	      {"type": "text", "text": "Where is TODO?"}]},
	    {"role": "assistant", "content": [
	      {"type": "text", "text": "Searching."},
	      {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"pattern": "TODO"}},
	      {"type": "tool_use", "id": "toolu_2", "name": "view", "input": {}}]},
	    {"role": "user", "content": [
	      {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "a.go:3: // TODO"}]},
	      {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": [{"type": "text", "text": "view: invalid input"}],
	       "cache_control": {"type": "ephemeral"}}]},
	    {"role": "assistant", "content": [
	      {"type": "tool_use", "id": "toolu_3", "name": "view", "input": {"path": "a.go"}}]},
	    {"role": "user", "content": [
	      {"type": "tool_result", "tool_use_id": "toolu_3", "content": [{"type": "text", "text": "package a"}], "cache_control": {"type": "ephemeral"}}]}
	  ]
	}`
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		gb, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("request body:\n%s\nwant:\n%s", gb, want)
	}
}

// TestCacheReadEachStep: the second step of a turn reads the first
// step's prompt from the cache and writes only what was added.
func TestCacheReadEachStep(t *testing.T) {
	srv := newServer(t, text("ok"))
	p := newProvider(t, srv.URL)
	tools := []agent.ToolDef{{Name: "view", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object"}`)}}
	msgs := conversation()[1:5]
	first, err := p.Complete(context.Background(), agent.Request{System: "sys", Tools: tools, Messages: msgs}, agent.Stream{})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, conversation()[5:]...)
	second, err := p.Complete(context.Background(), agent.Request{System: "sys", Tools: tools, Messages: msgs}, agent.Stream{})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if first.Usage.CacheRead != 0 || first.Usage.CacheWrite != reqs[0].Tokens || first.Usage.Input != reqs[0].Tokens {
		t.Errorf("first step usage %+v, want all %d prompt tokens written", first.Usage, reqs[0].Tokens)
	}
	if u := second.Usage; u.CacheRead != first.Usage.CacheWrite || u.Input != reqs[1].Tokens || u.CacheRead+u.CacheWrite != reqs[1].Tokens {
		t.Errorf("second step usage %+v, want %d read from the cache and the rest of %d written", u, first.Usage.CacheWrite, reqs[1].Tokens)
	}
}

func TestStreamedToolCalls(t *testing.T) {
	srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.Reply{Parts: []string{"Let me look."}, ToolCalls: []anthropictest.ToolCall{
			{ID: "toolu_a", Name: "view", Input: map[string]any{"path": "a.go"}},
			{ID: "toolu_b", Name: "grep", Input: map[string]any{"pattern": "TODO", "n": 3}},
		}}
	})
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.ToolCall{
		{ID: "toolu_a", Name: "view", Input: json.RawMessage(`{"path":"a.go"}`)},
		{ID: "toolu_b", Name: "grep", Input: json.RawMessage(`{"n":3,"pattern":"TODO"}`)},
	}
	if resp.Text != "Let me look." || !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("resp = %s\nwant calls %s", dump(resp), dump(want))
	}
}

// ---- thinking ----

func TestThinkingStreamedAndPassedBackSigned(t *testing.T) {
	srv := newServer(t, func(r anthropictest.Request) anthropictest.Reply {
		if len(r.Messages) == 1 {
			return anthropictest.Reply{
				Thinking:  []anthropictest.Thinking{{Text: "The user wants a.go."}, {Redacted: "ENCRYPTED"}},
				ToolCalls: []anthropictest.ToolCall{{ID: "toolu_1", Name: "view", Input: map[string]any{"path": "a.go"}}},
			}
		}
		return anthropictest.Reply{Thinking: []anthropictest.Thinking{{Text: "Done."}}, Parts: []string{"a.go is a package."}}
	})
	p := newProvider(t, srv.URL, func(c *Config) { c.ThinkingBudget = 4096 })
	var thought []string
	st := agent.Stream{Thinking: func(s string) { thought = append(thought, s) }}
	msgs := []agent.Message{{Role: agent.RoleUser, Content: "what is a.go?"}}
	resp, err := p.Complete(context.Background(), agent.Request{Messages: msgs}, st)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(thought, "") != "The user wants a.go." || len(thought) < 2 {
		t.Errorf("thinking deltas %q", thought)
	}
	if len(resp.Thinking) != 2 || resp.Thinking[0].Text != "The user wants a.go." || !strings.HasPrefix(resp.Thinking[0].Signature, "sig-") ||
		resp.Thinking[1] != (agent.Thinking{Redacted: "ENCRYPTED"}) {
		t.Fatalf("thinking %+v", resp.Thinking)
	}
	if r := srv.Requests()[0]; r.Thinking == nil || r.Thinking.Type != "enabled" || r.Thinking.BudgetTokens != 4096 || r.MaxTokens <= 4096 {
		t.Errorf("thinking param %+v with max_tokens %d", r.Thinking, r.MaxTokens)
	}
	msgs = append(msgs,
		agent.Message{Role: agent.RoleAssistant, ToolCalls: resp.ToolCalls, Thinking: resp.Thinking},
		agent.Message{Role: agent.RoleTool, ToolCallID: "toolu_1", Name: "view", Content: "package a"})
	resp, err = p.Complete(context.Background(), agent.Request{Messages: msgs}, st)
	if err != nil {
		t.Fatalf("second step (the server checks the signature): %v", err)
	}
	if resp.Text != "a.go is a package." {
		t.Errorf("text %q", resp.Text)
	}
	a := srv.Requests()[1].Messages[1]
	if len(a.Content) != 3 || a.Content[0].Type != "thinking" || a.Content[0].Signature != msgs[1].Thinking[0].Signature ||
		a.Content[1].Type != "redacted_thinking" || a.Content[1].Data != "ENCRYPTED" || a.Content[2].Type != "tool_use" {
		t.Errorf("assistant message sent back = %s, want signed thinking, redacted thinking, then tool_use", dump(a))
	}
}

// TestThinkingThroughTheAgentLoop: a real session streams the thinking
// as events, keeps the signed blocks in its history and sends them back
// before the tool call of their step; the server checks the signature.
func TestThinkingThroughTheAgentLoop(t *testing.T) {
	srv := newServer(t, func(r anthropictest.Request) anthropictest.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Content[0].Type != "tool_result" {
			return anthropictest.Reply{Thinking: []anthropictest.Thinking{{Text: "I should read a.go first."}},
				ToolCalls: []anthropictest.ToolCall{{ID: "toolu_1", Name: "echo", Input: map[string]any{"path": "a.go"}}}}
		}
		return anthropictest.Reply{Thinking: []anthropictest.Thinking{{Text: "Now I know."}}, Parts: []string{"a.go was read."}}
	})
	sess, ran := providertest.NewSession(t, newProvider(t, srv.URL, func(c *Config) { c.ThinkingBudget = 2048 }))
	var mu sync.Mutex
	var thinking, deltas []string
	res := providertest.RunTurn(t, sess, "read a.go", func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Type {
		case agent.EventThinking:
			thinking = append(thinking, e.Text)
		case agent.EventThinkingDelta:
			deltas = append(deltas, e.Text)
		}
	})
	if res.Reason != agent.ReasonCompleted || res.Text != "a.go was read." || !reflect.DeepEqual(ran(), []string{"echo a.go"}) {
		t.Fatalf("turn ended %s with %q (%v) after running %q", res.Reason, res.Text, res.Err, ran())
	}
	mu.Lock()
	if want := []string{"I should read a.go first.", "Now I know."}; !reflect.DeepEqual(thinking, want) || strings.Join(deltas, "") != strings.Join(want, "") {
		t.Errorf("thinking events %q, deltas %q; want %q", thinking, deltas, want)
	}
	mu.Unlock()
	hist := sess.History()
	if len(hist) != 4 || len(hist[1].Thinking) != 1 || !strings.HasPrefix(hist[1].Thinking[0].Signature, "sig-") {
		t.Fatalf("history %+v, want the signed thinking on the assistant's tool call", hist)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	a := reqs[1].Messages[1]
	if a.Content[0].Type != "thinking" || a.Content[0].Signature != hist[1].Thinking[0].Signature || a.Content[1].Type != "tool_use" {
		t.Errorf("assistant message sent back = %s, want the signed thinking before the tool_use", dump(a))
	}
}

func TestThinkingOffForALoopBegunWithoutIt(t *testing.T) {
	srv := newServer(t, text("ok"))
	p := newProvider(t, srv.URL, func(c *Config) { c.ThinkingBudget = 2048 })
	msgs := conversation()[1:5] // a tool call without thinking, then its results
	if _, err := p.Complete(context.Background(), agent.Request{Messages: msgs}, agent.Stream{}); err != nil {
		t.Fatal(err)
	}
	// The next prompt starts a loop of its own: thinking is on again.
	msgs = append(msgs, agent.Message{Role: agent.RoleAssistant, Content: "Found it."}, agent.Message{Role: agent.RoleUser, Content: "thanks"})
	if _, err := p.Complete(context.Background(), agent.Request{Messages: msgs}, agent.Stream{}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[0].Thinking != nil || reqs[1].Thinking == nil {
		t.Errorf("thinking %v then %v, want off then on", reqs[0].Thinking, reqs[1].Thinking)
	}
}

func TestCompactionCall(t *testing.T) {
	srv := newServer(t, text("summary"))
	p := newProvider(t, srv.URL, func(c *Config) { c.ThinkingBudget = 2048 })
	req := agent.Request{System: "Summarise.", Purpose: agent.PurposeCompaction,
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "transcript"}},
		Tools:    []agent.ToolDef{{Name: "view", Schema: json.RawMessage(`{"type":"object"}`)}}}
	resp, err := p.Complete(context.Background(), req, agent.Stream{})
	if err != nil || resp.Text != "summary" {
		t.Fatalf("resp %q, err %v", resp.Text, err)
	}
	r := srv.Requests()[0]
	if r.Thinking != nil || len(r.Tools) != 0 || r.MaxTokens > compactionMaxTokens || strings.Contains(string(r.Body), "cache_control") {
		t.Errorf("compaction request %s: want no thinking, tools or cache breakpoints and a small max_tokens", r.Body)
	}
}

// ---- retries and errors ----

func TestOverloadedThenOK(t *testing.T) {
	var n atomic.Int32
	srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
		if n.Add(1) == 1 {
			return anthropictest.Reply{Status: 529, ErrorType: "overloaded_error", Message: "Overloaded"}
		}
		return anthropictest.Reply{Parts: []string{"ok"}}
	})
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	if err != nil || resp.Text != "ok" || len(srv.Requests()) != 2 {
		t.Fatalf("resp %q err %v after %d requests, want ok after 2", resp.Text, err, len(srv.Requests()))
	}
}

func TestOverloadedAfterRetries(t *testing.T) {
	srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.Reply{Status: 529, ErrorType: "overloaded_error", Message: "Overloaded"}
	})
	_, err := newProvider(t, srv.URL, func(c *Config) { c.MaxRetries = 1 }).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "anthropic claude-sonnet-4-5: the service is overloaded (529) after 2 attempts: try again later (server said: Overloaded)")
}

func TestRetryAfterHonoured(t *testing.T) {
	var first time.Time
	var gap atomic.Int64
	srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
		if first.IsZero() {
			first = time.Now()
			return anthropictest.Reply{Status: 429, ErrorType: "rate_limit_error", Message: "slow down", Header: http.Header{"Retry-After": {"0.3"}}}
		}
		gap.Store(int64(time.Since(first)))
		return anthropictest.Reply{Parts: []string{"ok"}}
	})
	if _, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{}); err != nil {
		t.Fatal(err)
	}
	if g := time.Duration(gap.Load()); g < 300*time.Millisecond {
		t.Errorf("retried after %s, want >= 300ms", g)
	}
}

func TestOverloadedEventMidStream(t *testing.T) {
	t.Run("before any output: retried", func(t *testing.T) {
		var n atomic.Int32
		srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
			if n.Add(1) == 1 {
				return anthropictest.Reply{StreamError: "overloaded_error"}
			}
			return anthropictest.Reply{Parts: []string{"ok"}}
		})
		resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{Text: func(string) {}})
		if err != nil || resp.Text != "ok" || n.Load() != 2 {
			t.Fatalf("resp %q err %v after %d requests", resp.Text, err, n.Load())
		}
	})
	t.Run("after text was shown: not retried", func(t *testing.T) {
		srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
			return anthropictest.Reply{Parts: []string{"Hel"}, StreamError: "overloaded_error"}
		})
		var shown []string
		_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{Text: func(s string) { shown = append(shown, s) }})
		providertest.WantErr(t, err, "the server reported an error mid-stream: Overloaded")
		if len(srv.Requests()) != 1 || !reflect.DeepEqual(shown, []string{"Hel"}) {
			t.Errorf("%d requests, shown %q", len(srv.Requests()), shown)
		}
	})
}

func TestAuthFailedOnce(t *testing.T) {
	srv := newServer(t, text("never"))
	p := newProvider(t, srv.URL, func(c *Config) { c.APIKey = "sk-ant-wrong" })
	_, err := p.Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "anthropic claude-sonnet-4-5: authentication failed (401): check the API key in ANTHROPIC_API_KEY (server said: invalid x-api-key)")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry)", n)
	}
	var aerr *sdk.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != http.StatusUnauthorized {
		t.Errorf("err does not wrap the SDK's API error: %v", err)
	}
}

func TestBadRequestAndNotFoundNotRetried(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{400, "request rejected (400) (server said: tools.0.name: String should match pattern)"},
		{404, `model "claude-sonnet-4-5" not found at ` + "%s (404): check the model name and base URL"},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
				return anthropictest.Reply{Status: tc.status, ErrorType: "invalid_request_error", Message: "tools.0.name: String should match pattern"}
			})
			_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
			want := tc.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, srv.URL)
			}
			providertest.WantErr(t, err, want)
			var tooLong *agent.ContextLengthError
			if errors.As(err, &tooLong) || len(srv.Requests()) != 1 {
				t.Errorf("err %v after %d requests: want one request and no context-length error", err, len(srv.Requests()))
			}
		})
	}
}

func TestPromptTooLong(t *testing.T) {
	srv := newServer(t, text("never"))
	srv.Window = 5
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	var tooLong *agent.ContextLengthError
	if !errors.As(err, &tooLong) || tooLong.Limit != 5 {
		t.Fatalf("err = %v, want a *agent.ContextLengthError with limit 5", err)
	}
	providertest.WantErr(t, err, "prompt is too long")
	if len(srv.Requests()) != 1 {
		t.Errorf("%d requests, want 1", len(srv.Requests()))
	}
}

// TestInputPlusMaxTokensOverWindow: the API refuses input + max_tokens
// over the window; the request goes again at once with the room left,
// or, when too little is left, is a context-length error to compact on.
func TestInputPlusMaxTokensOverWindow(t *testing.T) {
	overflow := func(input int) anthropictest.Reply {
		return anthropictest.Reply{Status: 400, ErrorType: "invalid_request_error",
			Message: fmt.Sprintf("input length and `max_tokens` exceed context limit: %d + 32000 > 200000, decrease input length or `max_tokens` and try again", input)}
	}
	t.Run("room left", func(t *testing.T) {
		srv := newServer(t, func(r anthropictest.Request) anthropictest.Reply {
			if r.MaxTokens == 32000 {
				return overflow(190000)
			}
			return anthropictest.Reply{Parts: []string{"ok"}}
		})
		resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
		if err != nil || resp.Text != "ok" {
			t.Fatalf("resp %q err %v", resp.Text, err)
		}
		if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].MaxTokens != 200000-190000-64 {
			t.Errorf("%d requests, last max_tokens %d", len(reqs), reqs[len(reqs)-1].MaxTokens)
		}
	})
	t.Run("no room left", func(t *testing.T) {
		srv := newServer(t, func(anthropictest.Request) anthropictest.Reply { return overflow(199500) })
		_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
		var tooLong *agent.ContextLengthError
		if !errors.As(err, &tooLong) || tooLong.Limit != 200000 || len(srv.Requests()) != 1 {
			t.Fatalf("err = %v after %d requests, want a context-length error with limit 200000 after 1", err, len(srv.Requests()))
		}
	})
}

func TestTooLong(t *testing.T) {
	for _, tc := range []struct {
		f     remote.Failure
		limit int
		ok    bool
	}{
		{remote.Failure{Kind: remote.KindStatus, Status: 400, Detail: "prompt is too long: 210000 tokens > 200000 maximum"}, 200000, true},
		{remote.Failure{Kind: remote.KindStatus, Status: 400, Detail: "prompt is too long"}, 0, true},
		{remote.Failure{Kind: remote.KindStreamError, Detail: "prompt is too long: 9 tokens > 5 maximum"}, 5, true},
		{remote.Failure{Kind: remote.KindStatus, Status: 413, Code: "request_too_large", Detail: "Request exceeds the maximum size"}, 0, true},
		{remote.Failure{Kind: remote.KindStatus, Status: 400, Detail: "input length and `max_tokens` exceed context limit: 1 + 2 > 3"}, 3, true},
		{remote.Failure{Kind: remote.KindStatus, Status: 500, Detail: "prompt is too long"}, 0, false},
		{remote.Failure{Kind: remote.KindStatus, Status: 400, Detail: "tools.0.name: invalid"}, 0, false},
	} {
		if limit, ok := tooLong(&tc.f); limit != tc.limit || ok != tc.ok {
			t.Errorf("tooLong(%+v) = %d, %v; want %d, %v", tc.f, limit, ok, tc.limit, tc.ok)
		}
	}
}

// rawServer answers with h; n counts requests.
func rawServer(t *testing.T, h func(w http.ResponseWriter, n int)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, int(n.Add(1))) }))
	t.Cleanup(srv.Close)
	return srv, &n
}

const messageStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"

// fineStream is a whole answer "fine" as raw server-sent events.
const fineStream = messageStart +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"fine\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

func TestBrokenStreamBeforeOutputRetried(t *testing.T) {
	srv, n := rawServer(t, func(w http.ResponseWriter, n int) {
		w.Header().Set("Content-Type", "text/event-stream")
		switch n {
		case 1: // the stream ends before any block or message_stop
			fmt.Fprint(w, messageStart)
		case 2: // the connection drops mid-stream
			fmt.Fprint(w, messageStart)
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		default:
			fmt.Fprint(w, fineStream)
		}
	})
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{Text: func(string) {}})
	if err != nil || resp.Text != "fine" || n.Load() != 3 {
		t.Fatalf("resp %q err %v after %d requests, want \"fine\" after 3", resp.Text, err, n.Load())
	}
	if resp.Usage != (agent.Usage{Input: 3, Output: 2}) {
		t.Errorf("usage %+v", resp.Usage)
	}
}

func TestStreamWithoutStopFailsAfterRetries(t *testing.T) {
	srv, n := rawServer(t, func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, messageStart)
	})
	_, err := newProvider(t, srv.URL, func(c *Config) { c.MaxRetries = 1 }).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "broke before any output after 2 attempts", "no message_stop")
	if n.Load() != 2 {
		t.Errorf("%d requests, want 2", n.Load())
	}
}

func TestCancelMidStream(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := newServer(t, func(anthropictest.Request) anthropictest.Reply {
		return anthropictest.Reply{Parts: []string{"Hel", "lo"}, BeforePart: func(i int) {
			if i == 1 {
				select {
				case <-release:
				case <-time.After(5 * time.Second):
				}
			}
		}}
	})
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	_, err := newProvider(t, srv.URL).Complete(ctx, simpleReq, agent.Stream{Text: func(string) { cancel() }})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("err = %v after %s, want context.Canceled promptly", err, time.Since(start))
	}
}

// ---- configuration ----

func TestNewDefaults(t *testing.T) {
	p, err := New(Config{Endpoint: remote.Endpoint{Model: "claude-haiku-4-5"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "anthropic:claude-haiku-4-5" || p.cfg.BaseURL != DefaultBaseURL || p.cfg.Timeout != DefaultTimeout ||
		p.call.Target.KeyEnv != DefaultKeyEnv || p.cfg.MaxTokens != FallbackMaxOutput || p.ContextWindow() != 0 || p.MaxOutput() != 0 {
		t.Errorf("defaults not applied: %+v", p.cfg)
	}
	p, err = New(Config{Endpoint: remote.Endpoint{Model: "m", BaseURL: "http://gateway:8080/anthropic/v1/"}})
	if err != nil || p.cfg.BaseURL != "http://gateway:8080/anthropic" || p.call.Target.BaseURL != p.cfg.BaseURL {
		t.Errorf("BaseURL %q (%v), want the trailing /v1 dropped", p.cfg.BaseURL, err)
	}
	if _, err := New(Config{Endpoint: remote.Endpoint{Model: "m"}, ThinkingBudget: 10}); err == nil || !strings.Contains(err.Error(), "anthropic m: thinking budget 10 is too small") {
		t.Errorf("New with a tiny thinking budget: err = %v", err)
	}
}

func TestMaxTokens(t *testing.T) {
	for _, tc := range []struct {
		maxOut, set, budget int
		want                int
		err                 string
	}{
		{maxOut: 64000, want: 32000},
		{maxOut: 4096, want: 4096},
		{maxOut: 0, want: FallbackMaxOutput},
		{maxOut: 64000, budget: 30000, want: 38192},
		{maxOut: 0, budget: 16000, want: 24192},
		{maxOut: 64000, set: 10000, want: 10000},
		{maxOut: 64000, budget: 100, err: "too small"},
		{maxOut: 8192, budget: 10000, err: "leaves no room for an answer"},
		{maxOut: 64000, set: 70000, err: "over the model's longest answer"},
	} {
		got, err := maxTokens(Config{Endpoint: remote.Endpoint{MaxOutput: tc.maxOut}, MaxTokens: tc.set, ThinkingBudget: tc.budget})
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%+v: err %v, want %q", tc, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%+v: %d, %v; want %d", tc, got, err, tc.want)
		}
	}
}

func TestRequestsThatCannotBeBuilt(t *testing.T) {
	p := newProvider(t, "http://127.0.0.1:1")
	for req, want := range map[*agent.Request]string{
		{Tools: []agent.ToolDef{{Name: "t", Schema: json.RawMessage(`[1]`)}}}:               `tool "t": schema is not a JSON object`,
		{Tools: []agent.ToolDef{{Name: "t", Schema: json.RawMessage(`{"type":"string"}`)}}}: `tool "t": schema type is string: a tool's input must be an object`,
		{Messages: []agent.Message{{Role: "robot"}}}:                                        `message 0 has unknown role "robot"`,
	} {
		_, err := p.Complete(context.Background(), *req, agent.Stream{})
		providertest.WantErr(t, err, "anthropic claude-sonnet-4-5: "+want)
	}
}

// TestToolUseID: ids the API accepts pass as they are; others (made by
// another provider before a model switch) keep their readable part and
// gain a hash, so two of them never meet in one.
func TestToolUseID(t *testing.T) {
	pattern := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	tests := []struct{ in, want string }{
		{"toolu_01A09q90qw90lq917835lq9", "toolu_01A09q90qw90lq917835lq9"},
		{"call_abc-123", "call_abc-123"},
		{"functions.view:0", ""},
		{"functions.view:1", ""},
		{"functions_view_0", "functions_view_0"},
		{"", ""},
		{"ключ", ""},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := toolUseID(tt.in)
		if !pattern.MatchString(got) {
			t.Errorf("toolUseID(%q) = %q, which the API refuses", tt.in, got)
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("toolUseID(%q) = %q, want it unchanged", tt.in, got)
		}
		if other, ok := seen[got]; ok && other != tt.in {
			t.Errorf("%q and %q both become %q", other, tt.in, got)
		}
		seen[got] = tt.in
		if again := toolUseID(tt.in); again != got {
			t.Errorf("toolUseID(%q) is %q, then %q: a call and its result would not match", tt.in, got, again)
		}
	}
	if got := toolUseID("functions.view:0"); !strings.HasPrefix(got, "functions_view_0_") {
		t.Errorf("toolUseID(functions.view:0) = %q, want its readable part kept", got)
	}
}
