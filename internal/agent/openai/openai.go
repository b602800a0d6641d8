// Package openai implements agent.Provider over an OpenAI-compatible chat
// completions endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, ...),
// streaming text and tool calls through the official SDK
// github.com/openai/openai-go/v3.
//
// Retries are done by this package, and the SDK's own retries are switched
// off (option.WithMaxRetries(0)). The SDK retries only until response
// headers arrive, but a stream can also break before its first delta, and
// that failure needs the same budget, backoff and Retry-After handling. Only
// this package knows whether text already reached the user, after which a
// retry would show it twice. One loop also gives one attempt count for error
// messages, a configurable backoff base (the SDK's is a fixed 0.5s, too slow
// for tests) and a single Timeout over the whole call.
//
// The provider reads no environment variables: the SDK client is built from
// Config alone, so a local server never receives an OPENAI_API_KEY or
// OPENAI_ORG_ID that the caller did not pass on purpose.
package openai

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentls/agentls/internal/agent"
)

// Defaults applied by New for zero Config fields.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultTimeout        = 5 * time.Minute
	DefaultMaxRetries     = 3
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultMaxRetryDelay  = 30 * time.Second
	DefaultMaxAnswerBytes = 4 << 20
)

// Config configures an OpenAI-compatible endpoint. Zero fields take the
// defaults above, so Config{Model: "gpt-4.1", APIKey: key} is enough for
// OpenAI itself.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or, for
	// Ollama, http://localhost:11434/v1.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Model is the model name the server knows, e.g. "gpt-4.1". Required.
	Model string
	// Name is what Name returns, e.g. "openai:gpt-4.1"; default
	// "openai:"+Model.
	Name string
	// Timeout bounds one Complete call as a whole: every attempt, the
	// backoff between them and the streamed body. A hanging server thus
	// costs at most Timeout.
	Timeout time.Duration
	// MaxRetries is how many times a transient failure (429, 5xx,
	// connection error, stream broken before any text was shown) is
	// retried. Zero means DefaultMaxRetries; negative disables retries.
	MaxRetries int
	// RetryBaseDelay is the first backoff; it doubles on each retry (with
	// jitter). Tests set it tiny.
	RetryBaseDelay time.Duration
	// MaxRetryDelay caps the backoff. A Retry-After longer than this ends
	// the call at once instead of sleeping through it.
	MaxRetryDelay time.Duration
	// MaxAnswerBytes bounds one answer: its text and tool-call arguments.
	// A longer one is cut off with an error — a model repeating itself or
	// a broken server would otherwise fill memory, the history and the
	// editor. Zero means DefaultMaxAnswerBytes; negative, no bound.
	MaxAnswerBytes int
	// ContextWindow and MaxOutput are the model's limits in tokens, for
	// compaction; 0 means unknown.
	ContextWindow, MaxOutput int
	// HTTPClient replaces http.DefaultClient, e.g. for tests or proxies.
	// Leave its Timeout zero: Timeout above already bounds the call, and a
	// client timeout would also cut long streams.
	HTTPClient *http.Client
}

// Provider is an agent.Provider for one model at one OpenAI-compatible
// endpoint. It is safe for concurrent use.
type Provider struct {
	cfg  Config
	chat sdk.ChatCompletionService
}

var _ agent.Provider = (*Provider)(nil)

// New checks cfg, fills in defaults and builds the SDK client. It makes no
// network call, so a wrong key or model shows up on the first Complete.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("openai: no model configured: set the model name, e.g. gpt-4.1")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai %s: base URL %q is not an absolute http(s) URL, e.g. %s", cfg.Model, cfg.BaseURL, DefaultBaseURL)
	}
	if cfg.Name == "" {
		cfg.Name = "openai:" + cfg.Model
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryBaseDelay <= 0 {
		cfg.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if cfg.MaxRetryDelay <= 0 {
		cfg.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	switch {
	case cfg.MaxAnswerBytes == 0:
		cfg.MaxAnswerBytes = DefaultMaxAnswerBytes
	case cfg.MaxAnswerBytes < 0:
		cfg.MaxAnswerBytes = math.MaxInt
	}
	// NewChatCompletionService, unlike NewClient, adds no options read
	// from the environment.
	chat := sdk.NewChatCompletionService(
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	)
	return &Provider{cfg: cfg, chat: chat}, nil
}

// Name returns the "provider:model" string for logs and events.
func (p *Provider) Name() string { return p.cfg.Name }

// ContextWindow implements agent.Windowed.
func (p *Provider) ContextWindow() int { return p.cfg.ContextWindow }

// MaxOutput implements agent.Windowed.
func (p *Provider) MaxOutput() int { return p.cfg.MaxOutput }

// Complete streams one chat completion for req. st.Text receives every
// text delta as it arrives. Transient failures are retried while no text
// has been streamed; after that a failure is returned, since a retry would
// repeat what the user already saw.
func (p *Provider) Complete(ctx context.Context, req agent.Request, st agent.Stream) (agent.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return agent.Response{}, fmt.Errorf("openai %s: %w", p.cfg.Model, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()

	shown := false
	emit := func(s string) {
		if st.Text != nil {
			shown = true
			st.Text(s)
		}
	}
	var last *failure
	for attempt := 1; ; attempt++ {
		resp, f := p.attempt(callCtx, params, emit)
		if f == nil {
			return resp, nil
		}
		if err := ctx.Err(); err != nil {
			return agent.Response{}, fmt.Errorf("openai %s: %w", p.cfg.Model, err)
		}
		if callCtx.Err() != nil {
			return agent.Response{}, p.timeoutError(shown, last)
		}
		last = f
		if !f.transient || shown || attempt > p.cfg.MaxRetries {
			return agent.Response{}, p.failureError(f, attempt, shown)
		}
		delay := p.backoff(attempt, f)
		if delay < 0 {
			return agent.Response{}, p.failureError(f, attempt, shown)
		}
		if dl, ok := callCtx.Deadline(); ok && time.Until(dl) < delay {
			// Sleeping would only end in a timeout; report the real cause.
			return agent.Response{}, p.failureError(f, attempt, shown)
		}
		t := time.NewTimer(delay)
		select {
		case <-callCtx.Done():
			t.Stop()
			if err := ctx.Err(); err != nil {
				return agent.Response{}, fmt.Errorf("openai %s: %w", p.cfg.Model, err)
			}
			return agent.Response{}, p.timeoutError(shown, last)
		case <-t.C:
		}
	}
}

// failure kinds, for the final message.
const (
	kindStatus       = iota // HTTP status >= 400
	kindConnect             // no response at all
	kindStream              // stream broke or ended early
	kindStreamError         // server sent an error event in the stream
	kindNotStreaming        // 2xx without an event stream
	kindOther               // request could not be built, malformed chunk, ...
	kindTooLong             // the answer passed MaxAnswerBytes
)

// failure is one failed attempt, classified.
type failure struct {
	kind       int
	status     int
	detail     string        // server's error message, if any
	code       string        // server's error code ("context_length_exceeded"), if any
	retryAfter time.Duration // from Retry-After(-Ms); -1 when absent
	transient  bool
	err        error
}

// errTooLong marks an answer cut off at MaxAnswerBytes.
var errTooLong = errors.New("answer too long")

// errStreamEnded marks a stream that ended cleanly but without a finish
// reason: a proxy or server gave up half way.
var errStreamEnded = errors.New("stream ended before the model finished (no finish_reason)")

// attempt makes one request and reads its stream to the end.
func (p *Provider) attempt(ctx context.Context, params sdk.ChatCompletionNewParams, emit func(string)) (agent.Response, *failure) {
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
					emit(s)
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
		if acc.size > p.cfg.MaxAnswerBytes {
			return agent.Response{}, &failure{kind: kindTooLong, retryAfter: -1, err: errTooLong}
		}
	}
	err := stream.Err()
	if err == nil && !acc.finished {
		err = errStreamEnded
	}
	if err != nil && !(acc.finished && httpResp != nil && httpResp.StatusCode < 300) {
		return agent.Response{}, classify(err, httpResp)
	}
	// finished with a finish_reason; a transport error after it (before
	// [DONE]) loses nothing, so the answer stands.
	return acc.response(), nil
}

// classify turns an attempt's error into a failure.
func classify(err error, resp *http.Response) *failure {
	f := &failure{err: err, retryAfter: -1}
	var streamErr *ssestream.StreamError
	switch {
	case resp != nil && resp.StatusCode >= 400:
		f.kind = kindStatus
		f.status = resp.StatusCode
		f.detail, f.code = errorDetail(resp)
		f.retryAfter = retryAfter(resp.Header, time.Now())
		f.transient = resp.StatusCode == http.StatusRequestTimeout ||
			resp.StatusCode == http.StatusTooManyRequests ||
			resp.StatusCode >= 500
	case resp != nil:
		ct := resp.Header.Get("Content-Type")
		switch {
		case errors.Is(err, errStreamEnded) && ct != "" && !strings.HasPrefix(ct, "text/event-stream"):
			f.kind = kindNotStreaming
			f.detail = ct
		case errors.As(err, &streamErr):
			f.kind = kindStreamError
			f.detail = streamErrorDetail(streamErr)
		case isStreamBreak(err):
			f.kind = kindStream
			f.transient = true
		default:
			f.kind = kindOther // e.g. a chunk that is not JSON
		}
	default:
		var uerr *url.Error
		if errors.As(err, &uerr) {
			f.kind = kindConnect
			f.transient = !permanentConnectError(err)
		} else {
			f.kind = kindOther
		}
	}
	return f
}

// isStreamBreak reports errors of a body that stopped mid-way.
func isStreamBreak(err error) bool {
	if errors.Is(err, errStreamEnded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var nerr net.Error
	var operr *net.OpError
	return errors.As(err, &nerr) || errors.As(err, &operr) ||
		strings.Contains(err.Error(), "connection reset") ||
		strings.Contains(err.Error(), "stream error") // HTTP/2 RST_STREAM
}

// permanentConnectError reports connection errors a retry cannot fix: an
// unknown host or a certificate problem.
func permanentConnectError(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return true
	}
	var certErr *tls.CertificateVerificationError
	var authErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidErr x509.CertificateInvalidError
	return errors.As(err, &certErr) || errors.As(err, &authErr) ||
		errors.As(err, &hostErr) || errors.As(err, &invalidErr)
}

// backoff is the wait before retry number attempt (1-based): the server's
// Retry-After when given, else RetryBaseDelay doubled per attempt with up
// to 25% jitter, capped at MaxRetryDelay. Negative means "do not retry":
// the server asked for a longer wait than MaxRetryDelay.
func (p *Provider) backoff(attempt int, f *failure) time.Duration {
	if f.retryAfter >= 0 {
		if f.retryAfter > p.cfg.MaxRetryDelay {
			return -1
		}
		return f.retryAfter
	}
	d := float64(p.cfg.RetryBaseDelay) * math.Pow(2, float64(attempt-1))
	if d > float64(p.cfg.MaxRetryDelay) {
		d = float64(p.cfg.MaxRetryDelay)
	}
	delay := time.Duration(d)
	if j := int64(delay / 4); j > 0 {
		delay -= time.Duration(mrand.Int64N(j))
	}
	return delay
}

// retryAfter reads Retry-After-Ms (OpenAI) or Retry-After (seconds or an
// HTTP date). It returns -1 when neither header is usable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || s > 1e9 {
			return -1
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// errorDetail extracts the server's error message and code from an error
// body: {"error":{"message":...,"code":...}} (OpenAI), {"error":"..."}
// (Ollama), {"message":...}, or else the first bytes of the body as text.
func errorDetail(resp *http.Response) (msg, code string) {
	if resp.Body == nil {
		return "", ""
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = io.NopCloser(bytes.NewReader(body)) // leave it readable for debugging
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			code := strings.Trim(string(obj.Code), `"`)
			if code == "" || code == "null" {
				code = obj.Type
			}
			return clip(obj.Message), code
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return clip(s), ""
		case v.Message != "":
			return clip(v.Message), ""
		}
	}
	return clip(string(body)), ""
}

// streamErrorDetail extracts the message of an in-stream error event.
func streamErrorDetail(e *ssestream.StreamError) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(e.Event.Data, &v) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			return clip(obj.Message)
		}
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return clip(s)
		}
	}
	return clip(string(e.Event.Data))
}

// clip keeps server messages short enough for one error line.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

// callError is a final error: msg says what happened and what to fix,
// err (the SDK or transport error) stays reachable through errors.As
// without repeating its text.
type callError struct {
	msg string
	err error
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.err }

// failureError words the final error for f after attempts tries. A
// request longer than the model's window is a *agent.ContextLengthError,
// so the session can compact and retry.
func (p *Provider) failureError(f *failure, attempts int, shown bool) error {
	err := fmt.Errorf("openai %s: %w", p.cfg.Model, p.describe(f, attempts, shown))
	if limit, ok := contextLength(f); ok {
		return &agent.ContextLengthError{Limit: limit, Err: err}
	}
	return err
}

// contextLength recognises a "too long" answer: OpenAI's
// context_length_exceeded code, or the messages of OpenAI-compatible
// servers (vLLM, llama.cpp, Ollama, LiteLLM), and the window it names.
func contextLength(f *failure) (int, bool) {
	if f.kind != kindStatus && f.kind != kindStreamError {
		return 0, false
	}
	if f.kind == kindStatus && f.status != http.StatusBadRequest && f.status != http.StatusRequestEntityTooLarge {
		return 0, false
	}
	d := strings.ToLower(f.detail + " " + f.code)
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

// describe says what went wrong and what to fix.
func (p *Provider) describe(f *failure, attempts int, shown bool) *callError {
	base, model := p.cfg.BaseURL, p.cfg.Model
	server := ""
	if f.detail != "" {
		server = fmt.Sprintf(" (server said: %s)", f.detail)
	}
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	var msg string
	switch f.kind {
	case kindStatus:
		switch s := f.status; {
		case s == http.StatusUnauthorized || s == http.StatusForbidden:
			msg = fmt.Sprintf("authentication failed (%d): check the API key%s", s, server)
		case s == http.StatusNotFound:
			msg = fmt.Sprintf("model %q not found at %s (404): check the model name and base URL%s", model, base, server)
		case s == http.StatusTooManyRequests:
			wait := "try again later"
			if f.retryAfter > p.cfg.MaxRetryDelay {
				wait = fmt.Sprintf("the server asks to wait %s; try again later", f.retryAfter.Round(time.Second))
			}
			msg = fmt.Sprintf("rate limited (429)%s: %s%s", tries, wait, server)
		case s >= 500:
			msg = fmt.Sprintf("server error (%d)%s: try again later%s", s, tries, server)
		default:
			msg = fmt.Sprintf("request rejected (%d)%s%s", s, tries, server)
		}
	case kindConnect:
		msg = fmt.Sprintf("cannot reach %s%s: check the base URL and that the server is running: %v", base, tries, f.err)
	case kindStream:
		if shown {
			msg = fmt.Sprintf("the stream from %s broke after part of the answer was shown, so the answer is incomplete; ask again: %v", base, f.err)
		} else {
			msg = fmt.Sprintf("the stream from %s broke before any output%s: %v", base, tries, f.err)
		}
	case kindStreamError:
		msg = fmt.Sprintf("the server reported an error mid-stream: %s", f.detail)
	case kindTooLong:
		msg = fmt.Sprintf("the answer from %s passed %d bytes, so agentls stopped reading it (a model repeating itself, or a server gone wrong): ask again, for something shorter or in parts", base, p.cfg.MaxAnswerBytes)
	case kindNotStreaming:
		msg = fmt.Sprintf("%s answered with %s instead of an event stream: use an endpoint that supports chat completions with stream: true", base, f.detail)
	default:
		msg = fmt.Sprintf("request to %s failed: %v", base, f.err)
	}
	return &callError{msg: msg, err: f.err}
}

// timeoutError reports that Timeout ran out. It does not wrap
// context.DeadlineExceeded, so callers do not mistake it for their own
// cancellation.
func (p *Provider) timeoutError(shown bool, last *failure) error {
	what := "no answer"
	if shown {
		what = "no complete answer"
	}
	cause := ""
	if last != nil {
		cause = fmt.Sprintf(" (an earlier attempt failed: %v)", p.describe(last, 1, false))
	}
	return fmt.Errorf("openai %s: %s from %s within %s: the server is stuck or too slow; raise the timeout or try later%s",
		p.cfg.Model, what, p.cfg.BaseURL, p.cfg.Timeout, cause)
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
	size     int // bytes of text and tool-call arguments so far
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
		r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: id, Name: c.name, Input: toolInput(c.args.String())})
	}
	return r
}

// toolInput turns the streamed arguments into ToolCall.Input. Empty
// arguments become {}. Arguments that are not valid JSON (a truncated or
// garbled answer) are kept as a JSON string holding the raw text: Input
// stays valid JSON, so events and logs can marshal it, and the tool's
// decoder fails with an error the model can read and correct.
func toolInput(args string) json.RawMessage {
	s := strings.TrimSpace(args)
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(args) // a string always marshals
	return b
}

// toolArguments is toolInput's inverse for history sent back: the model
// sees the arguments it wrote, not our quoted copy.
func toolArguments(in json.RawMessage) string {
	s := strings.TrimSpace(string(in))
	if s == "" {
		return "{}"
	}
	if s[0] == '"' {
		var raw string
		if json.Unmarshal([]byte(s), &raw) == nil {
			return raw
		}
	}
	return s
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
							Arguments: toolArguments(tc.Input),
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
		return nil, fmt.Errorf("schema is not a JSON object: %s", clip(string(raw)))
	}
	return schema, nil
}
