// Package remote is what agentls's providers for model APIs over HTTP
// (openai, anthropic) share: the retry loop of one Complete call, backoff
// with Retry-After, the classification of a failed attempt, the wording
// of the final error, and the conversion of streamed tool arguments.
//
// Retries are done here, and each SDK's own retries are switched off. An
// SDK retries only until response headers arrive, but a stream can also
// break before its first delta, and that failure needs the same budget,
// backoff and Retry-After handling. Only the loop knows whether text
// already reached the user, after which a retry would show it twice. One
// loop also gives one attempt count for error messages, a configurable
// backoff base (the SDKs' are fixed, too slow for tests) and a single
// Timeout over the whole call.
package remote

import (
	"context"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

// Defaults applied by Policy.WithDefaults for zero fields.
const (
	DefaultTimeout        = 5 * time.Minute
	DefaultMaxRetries     = 3
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultMaxRetryDelay  = 30 * time.Second
	DefaultMaxAnswerBytes = 4 << 20
)

// Policy bounds one Complete call and its retries.
type Policy struct {
	// Timeout bounds one Complete call as a whole: every attempt, the
	// backoff between them and the streamed body. A hanging server thus
	// costs at most Timeout.
	Timeout time.Duration
	// MaxRetries is how many times a transient failure (429, 5xx,
	// connection error, stream broken before anything was shown) is
	// retried. Zero means DefaultMaxRetries; negative disables retries.
	MaxRetries int
	// RetryBaseDelay is the first backoff; it doubles on each retry (with
	// jitter). Tests set it tiny.
	RetryBaseDelay time.Duration
	// MaxRetryDelay caps the backoff. A Retry-After longer than this ends
	// the call at once instead of sleeping through it.
	MaxRetryDelay time.Duration
	// MaxAnswerBytes bounds one answer: its text, thinking and tool-call
	// arguments. A longer one is cut off with an error (Over) — a model
	// repeating itself or a broken server would otherwise fill memory,
	// the history and the editor. Zero means DefaultMaxAnswerBytes;
	// negative, no bound.
	MaxAnswerBytes int
}

// WithDefaults fills zero fields with the defaults (timeout the given
// one when non-zero) and turns a negative MaxRetries into 0.
func (p Policy) WithDefaults(timeout time.Duration) Policy {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if p.Timeout <= 0 {
		p.Timeout = timeout
	}
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.RetryBaseDelay <= 0 {
		p.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if p.MaxRetryDelay <= 0 {
		p.MaxRetryDelay = DefaultMaxRetryDelay
	}
	switch {
	case p.MaxAnswerBytes == 0:
		p.MaxAnswerBytes = DefaultMaxAnswerBytes
	case p.MaxAnswerBytes < 0:
		p.MaxAnswerBytes = math.MaxInt
	}
	return p
}

// Over is the failure that ends an attempt whose answer has grown to
// size bytes, past MaxAnswerBytes; nil while it is within.
func (p Policy) Over(size int) *Failure {
	if size <= p.MaxAnswerBytes {
		return nil
	}
	return &Failure{Kind: KindTooLong, Detail: strconv.Itoa(p.MaxAnswerBytes), RetryAfter: -1, Err: ErrAnswerTooLong}
}

// Target says what a provider reaches, for error messages.
type Target struct {
	// Label starts every error, e.g. "openai gpt-4.1".
	Label string
	// BaseURL and Model are named in errors the user fixes by changing
	// them.
	BaseURL, Model string
	// KeyEnv is the environment variable the API key came from, named when
	// authentication fails; empty says "the API key".
	KeyEnv string
	// API names the endpoint for a server that does not stream, e.g.
	// "chat completions".
	API string
}

// Call is one provider's way of making a model call: its policy, target
// and how it recognises a "too long" answer.
type Call struct {
	Policy Policy
	Target Target
	// TooLong recognises a failure that says the request is longer than
	// the model's window, and the window it names (0: none); nil
	// recognises none.
	TooLong func(*Failure) (limit int, ok bool)
}

// Attempt makes one request and reads its stream to the end, passing
// deltas to st. It returns the answer or the classified failure.
type Attempt func(ctx context.Context, st agent.Stream) (agent.Response, *Failure)

// Do runs attempt until it succeeds or a failure is final: not transient,
// out of retries, text or thinking already shown (a retry would show it
// twice), a Retry-After longer than MaxRetryDelay, or Timeout reached.
// The error says what happened and what to fix; a "too long" answer is a
// *agent.ContextLengthError; the caller's cancellation wraps ctx.Err().
func (c Call) Do(ctx context.Context, st agent.Stream, attempt Attempt) (agent.Response, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.Policy.Timeout)
	defer cancel()

	shown := false
	watched := agent.Stream{}
	if st.Text != nil {
		watched.Text = func(s string) { shown = true; st.Text(s) }
	}
	if st.Thinking != nil {
		watched.Thinking = func(s string) { shown = true; st.Thinking(s) }
	}
	var last *Failure
	for n := 1; ; n++ {
		resp, f := attempt(callCtx, watched)
		if f == nil {
			return resp, nil
		}
		if err := ctx.Err(); err != nil {
			return agent.Response{}, fmt.Errorf("%s: %w", c.Target.Label, err)
		}
		if callCtx.Err() != nil {
			return agent.Response{}, c.timeoutError(shown, last)
		}
		last = f
		if !f.Transient || shown || n > c.Policy.MaxRetries {
			return agent.Response{}, c.finalError(f, n, shown)
		}
		delay := c.Policy.backoff(n, f)
		if delay < 0 {
			return agent.Response{}, c.finalError(f, n, shown)
		}
		if dl, ok := callCtx.Deadline(); ok && time.Until(dl) < delay {
			// Sleeping would only end in a timeout; report the real cause.
			return agent.Response{}, c.finalError(f, n, shown)
		}
		t := time.NewTimer(delay)
		select {
		case <-callCtx.Done():
			t.Stop()
			if err := ctx.Err(); err != nil {
				return agent.Response{}, fmt.Errorf("%s: %w", c.Target.Label, err)
			}
			return agent.Response{}, c.timeoutError(shown, last)
		case <-t.C:
		}
	}
}

// finalError words the error for f after attempts tries.
func (c Call) finalError(f *Failure, attempts int, shown bool) error {
	err := fmt.Errorf("%s: %w", c.Target.Label, c.Target.Describe(f, attempts, shown, c.Policy.MaxRetryDelay))
	if c.TooLong != nil {
		if limit, ok := c.TooLong(f); ok {
			return &agent.ContextLengthError{Limit: limit, Err: err}
		}
	}
	return err
}

// timeoutError reports that Timeout ran out. It does not wrap
// context.DeadlineExceeded, so callers do not mistake it for their own
// cancellation.
func (c Call) timeoutError(shown bool, last *Failure) error {
	what := "no answer"
	if shown {
		what = "no complete answer"
	}
	cause := ""
	if last != nil {
		cause = fmt.Sprintf(" (an earlier attempt failed: %v)", c.Target.Describe(last, 1, false, c.Policy.MaxRetryDelay))
	}
	return fmt.Errorf("%s: %s from %s within %s: the server is stuck or too slow; raise the timeout or try later%s",
		c.Target.Label, what, c.Target.BaseURL, c.Policy.Timeout, cause)
}

// backoff is the wait before retry number attempt (1-based): the server's
// Retry-After when given, else RetryBaseDelay doubled per attempt with up
// to 25% jitter, capped at MaxRetryDelay. Negative means "do not retry":
// the server asked for a longer wait than MaxRetryDelay.
func (p Policy) backoff(attempt int, f *Failure) time.Duration {
	if f.RetryAfter >= 0 {
		if f.RetryAfter > p.MaxRetryDelay {
			return -1
		}
		return f.RetryAfter
	}
	d := float64(p.RetryBaseDelay) * math.Pow(2, float64(attempt-1))
	if d > float64(p.MaxRetryDelay) {
		d = float64(p.MaxRetryDelay)
	}
	delay := time.Duration(d)
	if j := int64(delay / 4); j > 0 {
		delay -= time.Duration(mrand.Int64N(j))
	}
	return delay
}

// RetryAfter reads Retry-After-Ms or Retry-After (seconds or an HTTP
// date). It returns -1 when neither header is usable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
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

// Model is what a provider tells about its model: the "provider:model"
// name and the limits in tokens (0: unknown). Embedded in a provider it
// gives Name and implements agent.Windowed.
type Model struct {
	Spec          string
	Window, Limit int
}

// Name returns the "provider:model" string for logs and events.
func (m Model) Name() string { return m.Spec }

// ContextWindow implements agent.Windowed.
func (m Model) ContextWindow() int { return m.Window }

// MaxOutput implements agent.Windowed.
func (m Model) MaxOutput() int { return m.Limit }
