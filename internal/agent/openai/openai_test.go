package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/providertest"
	"github.com/agentls/agentls/internal/agent/remote"
)

// ---- helpers: a loopback server speaking chat-completions SSE ----

// sse writes one "data:" event and flushes it to the client.
func sse(w http.ResponseWriter, data string) {
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	sse(w, chunk(`{"role":"assistant","content":""}`, ""))
}

// chunk is one chat.completion.chunk with the given delta and finish reason.
func chunk(delta, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, fr)
}

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return chunk(fmt.Sprintf(`{"content":%s}`, b), "")
}

// streamText answers with the given text deltas, a finish chunk and [DONE].
func streamText(w http.ResponseWriter, parts ...string) {
	startSSE(w)
	for _, p := range parts {
		sse(w, textChunk(p))
	}
	sse(w, chunk(`{}`, "stop"))
	sse(w, "[DONE]")
}

// breakConn drops the connection without finishing the chunked body, the
// way a crashed server or a cut proxy does.
func breakConn(t *testing.T, w http.ResponseWriter) {
	w.(http.Flusher).Flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// jsonError writes an error response the way OpenAI does.
func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"error","code":null,"param":null}}`, msg)
}

// server starts an httptest server; n counts requests to it.
func server(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var count atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(count.Add(1))
		// Read the whole body so the server notices a client that hangs up
		// (it watches the connection only once the body is consumed).
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		}
		h(w, r, n)
	}))
	t.Cleanup(srv.Close)
	return srv, &count
}

func newProvider(t *testing.T, baseURL string, mod ...func(*Config)) *Provider {
	t.Helper()
	return providertest.Configure(t, New, Config{Endpoint: remote.Endpoint{
		BaseURL: baseURL + "/v1",
		APIKey:  "test-key",
		Model:   "test-model",
		Policy:  providertest.FastRetries(),
	}}, mod...)
}

var simpleReq = agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}

// collect returns an onText that records deltas.
func collect() (func(string), *[]string) {
	var got []string
	return func(s string) { got = append(got, s) }, &got
}

// ---- streaming ----

func TestStreamText(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
			t.Errorf("Authorization = %q", got)
		}
		streamText(w, "Hel", "lo", " world")
	})
	onText, got := collect()
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{Text: onText})
	if err != nil {
		t.Fatal(err)
	}
	if want := (agent.Response{Text: "Hello world"}); !reflect.DeepEqual(resp, want) {
		t.Errorf("resp = %#v, want %#v", resp, want)
	}
	if want := []string{"Hel", "lo", " world"}; !reflect.DeepEqual(*got, want) {
		t.Errorf("onText got %q, want %q", *got, want)
	}
	if count.Load() != 1 {
		t.Errorf("requests = %d, want 1", count.Load())
	}
}

func TestNoAPIKeyNoAuthHeader(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "must-not-leak")
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if got := r.Header.Get("Authorization"); got != "" {
			t.Errorf("Authorization = %q, want none", got)
		}
		streamText(w, "ok")
	})
	p := newProvider(t, srv.URL, func(c *Config) { c.APIKey = "" })
	if _, err := p.Complete(context.Background(), simpleReq, agent.Stream{}); err != nil {
		t.Fatal(err)
	}
}

func TestStreamToolCallsAndRequestBody(t *testing.T) {
	bodies := make(chan []byte, 1)
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
		startSSE(w)
		sse(w, textChunk("Let me look."))
		sse(w, chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}`, ""))
		sse(w, chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}`, ""))
		sse(w, chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"grep","arguments":"{\"pattern\":"}}]}`, ""))
		sse(w, chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.go\"}"}}]}`, ""))
		sse(w, chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"TODO\"}"}}]}`, ""))
		sse(w, chunk(`{}`, "tool_calls"))
		sse(w, "[DONE]")
	})

	schema := `{"type":"object","properties":{"path":{"type":"string","maxLength":4096}},"required":["path"]}`
	req := agent.Request{
		System: "You are terse.",
		Messages: []agent.Message{
			{Role: agent.RoleUser, Content: "Where is TODO?"},
			{Role: agent.RoleAssistant, Content: "Searching.", ToolCalls: []agent.ToolCall{
				{ID: "call_1", Name: "grep", Input: json.RawMessage(`{"pattern":"TODO"}`)},
			}},
			{Role: agent.RoleTool, ToolCallID: "call_1", Name: "grep", Content: "a.go:3: // TODO"},
			// A call whose arguments were invalid JSON goes back as the model wrote it.
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
				{ID: "call_2", Name: "read_file", Input: json.RawMessage(`"{\"path\":"`)},
			}},
			{Role: agent.RoleTool, ToolCallID: "call_2", Name: "read_file", Content: "invalid arguments"},
		},
		Tools: []agent.ToolDef{{Name: "read_file", Description: "Read a file.", Schema: json.RawMessage(schema)}},
	}
	onText, got := collect()
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), req, agent.Stream{Text: onText})
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Response{
		Text: "Let me look.",
		ToolCalls: []agent.ToolCall{
			{ID: "call_a", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "call_b", Name: "grep", Input: json.RawMessage(`{"pattern":"TODO"}`)},
		},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("resp = %s\nwant   %s", dump(resp), dump(want))
	}
	if !reflect.DeepEqual(*got, []string{"Let me look."}) {
		t.Errorf("onText got %q", *got)
	}

	wantBody := `{
	  "model": "test-model",
	  "stream": true,
	  "stream_options": {"include_usage": true},
	  "messages": [
	    {"role": "system", "content": "You are terse."},
	    {"role": "user", "content": "Where is TODO?"},
	    {"role": "assistant", "content": "Searching.", "tool_calls": [
	      {"id": "call_1", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\":\"TODO\"}"}}]},
	    {"role": "tool", "tool_call_id": "call_1", "content": "a.go:3: // TODO"},
	    {"role": "assistant", "tool_calls": [
	      {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":"}}]},
	    {"role": "tool", "tool_call_id": "call_2", "content": "invalid arguments"}
	  ],
	  "tools": [
	    {"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": ` + schema + `}}
	  ]
	}`
	assertJSON(t, <-bodies, wantBody)
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.MarshalIndent(g, "", "  ")
		wb, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("request body:\n%s\nwant:\n%s", gb, wb)
	}
}

func TestToolCallEdgeCases(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		startSSE(w)
		// No id, empty arguments.
		sse(w, chunk(`{"tool_calls":[{"index":0,"type":"function","function":{"name":"list_files","arguments":""}}]}`, ""))
		// No id, truncated (invalid) arguments.
		sse(w, chunk(`{"tool_calls":[{"index":1,"type":"function","function":{"name":"read_file","arguments":"{\"path\": \"a."}}]}`, ""))
		// Two whole calls, both at index 2 but with different ids (some servers do this).
		sse(w, chunk(`{"tool_calls":[{"index":2,"id":"x1","type":"function","function":{"name":"grep","arguments":"{\"pattern\":\"a\"}"}}]}`, ""))
		sse(w, chunk(`{"tool_calls":[{"index":2,"id":"x2","type":"function","function":{"name":"grep","arguments":"{\"pattern\":\"b\"}"}}]}`, ""))
		sse(w, chunk(`{}`, "tool_calls"))
		sse(w, "[DONE]")
	})
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 4 {
		t.Fatalf("got %d tool calls, want 4: %s", len(resp.ToolCalls), dump(resp))
	}
	c0, c1 := resp.ToolCalls[0], resp.ToolCalls[1]
	if !strings.HasPrefix(c0.ID, "call_") || !strings.HasPrefix(c1.ID, "call_") || c0.ID == c1.ID {
		t.Errorf("generated ids %q, %q: want distinct call_ ids", c0.ID, c1.ID)
	}
	if c0.Name != "list_files" || string(c0.Input) != `{}` {
		t.Errorf("empty arguments: got %s", dump(c0))
	}
	// Invalid JSON is kept as a JSON string: valid for logs, and the tool's
	// decoder reports it to the model.
	if c1.Name != "read_file" || string(c1.Input) != `"{\"path\": \"a."` {
		t.Errorf("invalid arguments: got Input %s", c1.Input)
	}
	var obj map[string]any
	if err := json.Unmarshal(c1.Input, &obj); err == nil {
		t.Errorf("invalid arguments decoded into an object without error")
	}
	if got := remote.ToolArguments(c1.Input); got != `{"path": "a.` {
		t.Errorf("toolArguments round trip = %q", got)
	}
	want := []agent.ToolCall{
		{ID: "x1", Name: "grep", Input: json.RawMessage(`{"pattern":"a"}`)},
		{ID: "x2", Name: "grep", Input: json.RawMessage(`{"pattern":"b"}`)},
	}
	if !reflect.DeepEqual(resp.ToolCalls[2:], want) {
		t.Errorf("same-index calls = %s, want %s", dump(resp.ToolCalls[2:]), dump(want))
	}
}

// ---- retries ----

func TestRetry429ThenOK(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			jsonError(w, http.StatusTooManyRequests, "slow down")
			return
		}
		streamText(w, "ok")
	})
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "ok" || count.Load() != 2 {
		t.Errorf("text %q after %d requests, want \"ok\" after 2", resp.Text, count.Load())
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	for _, tc := range []struct {
		header, value string
		min           time.Duration
	}{
		{"Retry-After-Ms", "200", 200 * time.Millisecond},
		{"Retry-After", "1", time.Second},
	} {
		t.Run(tc.header, func(t *testing.T) {
			var first time.Time
			var gap atomic.Int64
			srv, count := server(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					first = time.Now()
					w.Header().Set(tc.header, tc.value)
					jsonError(w, http.StatusTooManyRequests, "slow down")
					return
				}
				gap.Store(int64(time.Since(first)))
				streamText(w, "ok")
			})
			if _, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{}); err != nil {
				t.Fatal(err)
			}
			if count.Load() != 2 {
				t.Fatalf("requests = %d, want 2", count.Load())
			}
			if g := time.Duration(gap.Load()); g < tc.min {
				t.Errorf("retried after %s, want >= %s", g, tc.min)
			}
		})
	}
}

func TestRetryAfterTooLongFailsAtOnce(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Retry-After", "120")
		jsonError(w, http.StatusTooManyRequests, "quota")
	})
	start := time.Now()
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "rate limited (429)", "wait 2m0s", "try again later", "quota")
	if count.Load() != 1 || time.Since(start) > time.Second {
		t.Errorf("%d requests in %s, want 1 at once", count.Load(), time.Since(start))
	}
}

func TestRateLimitedAfterRetries(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		jsonError(w, http.StatusTooManyRequests, "slow down")
	})
	_, err := newProvider(t, srv.URL, func(c *Config) { c.MaxRetries = 2 }).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "openai test-model: rate limited (429) after 3 attempts: try again later")
	if count.Load() != 3 {
		t.Errorf("requests = %d, want 3", count.Load())
	}
}

func TestServerErrorRetriedThenFails(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "<html>\n  <body>Internal   Server Error</body>\n</html>")
	})
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "server error (500) after 4 attempts: try again later", "Internal Server Error")
	if count.Load() != 4 {
		t.Errorf("requests = %d, want 4 (1 + MaxRetries 3)", count.Load())
	}
}

func TestNoRetriesWhenNegative(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		jsonError(w, http.StatusServiceUnavailable, "overloaded")
	})
	_, err := newProvider(t, srv.URL, func(c *Config) { c.MaxRetries = -1 }).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "server error (503): try again later (server said: overloaded)")
	if count.Load() != 1 {
		t.Errorf("requests = %d, want 1", count.Load())
	}
}

func TestConnectionRefusedRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now

	var dials atomic.Int32
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, a)
	}
	t.Cleanup(tr.CloseIdleConnections)
	p := newProvider(t, "http://"+addr, func(c *Config) { c.HTTPClient = &http.Client{Transport: tr} })
	_, err = p.Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "cannot reach http://"+addr+"/v1 after 4 attempts", "check the base URL and that the server is running")
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("err does not wrap ECONNREFUSED: %v", err)
	}
	if dials.Load() != 4 {
		t.Errorf("dials = %d, want 4", dials.Load())
	}
}

// ---- broken streams ----

func TestBrokenStreamBeforeOutputRetried(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 1: // role chunk only, then the connection drops
			startSSE(w)
			breakConn(t, w)
		case 2: // body ends cleanly but before any finish_reason or [DONE]
			startSSE(w)
		default:
			streamText(w, "fine")
		}
	})
	onText, got := collect()
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{Text: onText})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "fine" || count.Load() != 3 || !reflect.DeepEqual(*got, []string{"fine"}) {
		t.Errorf("text %q, onText %q after %d requests; want \"fine\" once after 3", resp.Text, *got, count.Load())
	}
}

func TestBrokenStreamAfterTextIsError(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		startSSE(w)
		sse(w, textChunk("Hel"))
		breakConn(t, w)
	})
	onText, got := collect()
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{Text: onText})
	providertest.WantErr(t, err, "stream from", "broke after part of the answer was shown", "incomplete")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err does not wrap io.ErrUnexpectedEOF: %v", err)
	}
	if count.Load() != 1 || !reflect.DeepEqual(*got, []string{"Hel"}) {
		t.Errorf("%d requests, onText %q; want 1 request, [\"Hel\"]", count.Load(), *got)
	}
}

func TestBrokenStreamAfterTextRetriedWhenNothingShown(t *testing.T) {
	// With a nil onText no text reached the user, so a retry is safe.
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			startSSE(w)
			sse(w, textChunk("Hel"))
			breakConn(t, w)
			return
		}
		streamText(w, "Hello")
	})
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello" || count.Load() != 2 {
		t.Errorf("text %q after %d requests", resp.Text, count.Load())
	}
}

func TestBrokenStreamAlwaysFails(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		startSSE(w)
		breakConn(t, w)
	})
	_, err := newProvider(t, srv.URL, func(c *Config) { c.MaxRetries = 1 }).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "stream from", "broke before any output after 2 attempts")
	if count.Load() != 2 {
		t.Errorf("requests = %d, want 2", count.Load())
	}
}

func TestDropAfterFinishReasonKeepsAnswer(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		startSSE(w)
		sse(w, textChunk("done"))
		sse(w, chunk(`{}`, "stop"))
		breakConn(t, w) // no [DONE]
	})
	resp, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	if err != nil || resp.Text != "done" {
		t.Fatalf("resp %q, err %v", resp.Text, err)
	}
}

func TestErrorEventInStream(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		startSSE(w)
		sse(w, `{"error":{"message":"context length exceeded","type":"invalid_request_error"}}`)
	})
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "error mid-stream: context length exceeded")
	if count.Load() != 1 {
		t.Errorf("requests = %d, want 1", count.Load())
	}
}

// ---- errors the user must fix ----

func TestServerThatDoesNotStream(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[]}`)
	})
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "answered with application/json instead of an event stream")
	if count.Load() != 1 {
		t.Errorf("requests = %d, want 1", count.Load())
	}
}

func TestAuthFailed(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				jsonError(w, status, "Incorrect API key provided")
			})
			_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
			providertest.WantErr(t, err, fmt.Sprintf("openai test-model: authentication failed (%d): check the API key (server said: Incorrect API key provided)", status))
			if count.Load() != 1 {
				t.Errorf("requests = %d, want 1 (no retry)", count.Load())
			}
		})
	}
}

func TestModelNotFound(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		// Ollama's shape: "error" is a string.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"model \"nope\" not found, try pulling it first"}`)
	})
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, fmt.Sprintf(`openai test-model: model "test-model" not found at %s/v1 (404): check the model name and base URL`, srv.URL),
		`server said: model "nope" not found, try pulling it first`)
	if count.Load() != 1 {
		t.Errorf("requests = %d, want 1 (no retry)", count.Load())
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		jsonError(w, http.StatusBadRequest, "test-model does not support tools")
	})
	_, err := newProvider(t, srv.URL).Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, "request rejected (400) (server said: test-model does not support tools)")
	if count.Load() != 1 {
		t.Errorf("requests = %d, want 1", count.Load())
	}
}

// ---- hanging servers ----

// hang blocks until the client goes away, or at most 5s so a failing
// test cannot wedge the server's Close.
func hang(w http.ResponseWriter, r *http.Request, _ int) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

func TestTimeoutBoundsHangingServer(t *testing.T) {
	srv, _ := server(t, hang)
	p := newProvider(t, srv.URL, func(c *Config) { c.Timeout = 200 * time.Millisecond })
	start := time.Now()
	_, err := p.Complete(context.Background(), simpleReq, agent.Stream{})
	providertest.WantErr(t, err, fmt.Sprintf("no answer from %s/v1 within 200ms", srv.URL))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s, want about 200ms", d)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout must not look like the caller's cancellation: %v", err)
	}
}

func TestTimeoutMidStream(t *testing.T) {
	srv, count := server(t, func(w http.ResponseWriter, r *http.Request, n int) {
		startSSE(w)
		sse(w, textChunk("Hel"))
		hang(w, r, n)
	})
	p := newProvider(t, srv.URL, func(c *Config) { c.Timeout = 200 * time.Millisecond })
	start := time.Now()
	onText, _ := collect()
	_, err := p.Complete(context.Background(), simpleReq, agent.Stream{Text: onText})
	providertest.WantErr(t, err, "no complete answer from", "within 200ms")
	if d := time.Since(start); d > 2*time.Second || count.Load() != 1 {
		t.Errorf("took %s with %d requests", d, count.Load())
	}
}

func TestCancelWhileInFlight(t *testing.T) {
	srv, _ := server(t, hang)
	p := newProvider(t, srv.URL) // Timeout 5s
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Complete(ctx, simpleReq, agent.Stream{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	providertest.WantErr(t, err, "openai test-model:")
	if d := time.Since(start); d > time.Second {
		t.Errorf("returned after %s, want promptly", d)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Retry-After", "1")
		jsonError(w, http.StatusTooManyRequests, "slow down")
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := newProvider(t, srv.URL).Complete(ctx, simpleReq, agent.Stream{})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("err = %v after %s, want context.Canceled promptly", err, time.Since(start))
	}
}

// ---- units ----

func TestNewDefaults(t *testing.T) {
	p, err := New(Config{Endpoint: remote.Endpoint{Model: "gpt-4.1", KeyEnv: "OPENAI_API_KEY"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "openai:gpt-4.1" || p.cfg.BaseURL != DefaultBaseURL || p.cfg.Timeout != remote.DefaultTimeout || p.call.Target.KeyEnv != "OPENAI_API_KEY" {
		t.Errorf("defaults not applied: %+v", p.cfg)
	}
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "openai: no model configured: set the model name, e.g. gpt-4.1") {
		t.Errorf("New without model: err = %v", err)
	}
}

func TestBadRequestInputs(t *testing.T) {
	p := newProvider(t, "http://127.0.0.1:1")
	_, err := p.Complete(context.Background(), agent.Request{Tools: []agent.ToolDef{{Name: "t", Schema: json.RawMessage(`[1]`)}}}, agent.Stream{})
	providertest.WantErr(t, err, `tool "t": schema is not a JSON object`)
	_, err = p.Complete(context.Background(), agent.Request{Messages: []agent.Message{{Role: "robot"}}}, agent.Stream{})
	providertest.WantErr(t, err, `unknown role "robot"`)
}
