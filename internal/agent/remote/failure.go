package remote

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Kind is what sort of failure an attempt had, for the final message.
type Kind int

// Failure kinds.
const (
	KindStatus       Kind = iota // HTTP status >= 400
	KindConnect                  // no response at all
	KindStream                   // stream broke or ended early
	KindStreamError              // server sent an error event in the stream
	KindNotStreaming             // 2xx without an event stream
	KindOther                    // request could not be built, malformed event, ...
	KindTooLong                  // the answer passed Policy.MaxAnswerBytes (Detail)
)

// ErrAnswerTooLong marks an answer cut off at Policy.MaxAnswerBytes.
var ErrAnswerTooLong = errors.New("answer too long")

// Failure is one failed attempt, classified.
type Failure struct {
	Kind   Kind
	Status int
	// Detail is the server's error message, Code its error code or type
	// ("context_length_exceeded", "overloaded_error"), if any.
	Detail, Code string
	// RetryAfter is the wait the server asked for; -1 when it named none.
	RetryAfter time.Duration
	Transient  bool
	Err        error
}

// ErrStreamEnded marks a stream that ended cleanly but before the model
// finished: a proxy or server gave up half way. Providers wrap it with
// what was missing.
var ErrStreamEnded = errors.New("stream ended before the model finished")

// StatusFailure classifies an HTTP error status: 408, 429 and 5xx
// (Anthropic's 529 "overloaded" included) are transient.
func StatusFailure(status int, h http.Header, detail, code string, err error) *Failure {
	return &Failure{Kind: KindStatus, Status: status, Detail: detail, Code: code, Err: err,
		RetryAfter: RetryAfter(h, time.Now()),
		Transient:  status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500}
}

// BodyFailure classifies an error that came after 2xx headers (resp is
// the response): a body that is no event stream, a stream that broke
// (transient) or anything else. In-stream error events are the
// provider's to recognise first.
func BodyFailure(err error, resp *http.Response) *Failure {
	f := &Failure{Err: err, RetryAfter: -1}
	ct := resp.Header.Get("Content-Type")
	switch {
	case errors.Is(err, ErrStreamEnded) && ct != "" && !strings.HasPrefix(ct, "text/event-stream"):
		f.Kind = KindNotStreaming
		f.Detail = ct
	case IsStreamBreak(err):
		f.Kind = KindStream
		f.Transient = true
	default:
		f.Kind = KindOther // e.g. an event that is not JSON
	}
	return f
}

// TransportFailure classifies an error without any response: a
// connection failure is transient unless a retry cannot fix it.
func TransportFailure(err error) *Failure {
	f := &Failure{Err: err, RetryAfter: -1, Kind: KindOther}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		f.Kind = KindConnect
		f.Transient = !PermanentConnectError(err)
	}
	return f
}

// IsStreamBreak reports errors of a body that stopped mid-way.
func IsStreamBreak(err error) bool {
	if errors.Is(err, ErrStreamEnded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var nerr net.Error
	var operr *net.OpError
	return errors.As(err, &nerr) || errors.As(err, &operr) ||
		strings.Contains(err.Error(), "connection reset") ||
		strings.Contains(err.Error(), "stream error") // HTTP/2 RST_STREAM
}

// PermanentConnectError reports connection errors a retry cannot fix: an
// unknown host or a certificate problem.
func PermanentConnectError(err error) bool {
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

// ErrorDetail extracts the server's error message and code from an error
// body: {"error":{"message":...,"code":...}} (OpenAI),
// {"type":"error","error":{"type":...,"message":...}} (Anthropic; the
// type stands in for a missing code), {"error":"..."} (Ollama),
// {"message":...}, or else the first bytes of the body as text.
func ErrorDetail(resp *http.Response) (msg, code string) {
	if resp.Body == nil {
		return "", ""
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = io.NopCloser(bytes.NewReader(body)) // leave it readable for debugging
	return BodyDetail(body)
}

// BodyDetail is ErrorDetail for a body already read (or an in-stream
// error event's data).
func BodyDetail(body []byte) (msg, code string) {
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
			return Clip(obj.Message), code
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return Clip(s), ""
		case v.Message != "":
			return Clip(v.Message), ""
		}
	}
	return Clip(string(body)), ""
}

// Clip keeps server messages short enough for one error line.
func Clip(s string) string {
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

// Error says what happened and what to fix.
func (e *callError) Error() string { return e.msg }

// Unwrap returns the SDK or transport error.
func (e *callError) Unwrap() error { return e.err }

// Describe says what went wrong in f after attempts tries and what to
// fix; maxDelay is the longest wait the caller would have slept through.
// The error wraps f.Err.
func (t Target) Describe(f *Failure, attempts int, shown bool, maxDelay time.Duration) error {
	base := t.BaseURL
	server := ""
	if f.Detail != "" {
		server = fmt.Sprintf(" (server said: %s)", f.Detail)
	}
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	var msg string
	switch f.Kind {
	case KindStatus:
		switch s := f.Status; {
		case s == http.StatusUnauthorized || s == http.StatusForbidden:
			key := "the API key"
			if t.KeyEnv != "" {
				key = "the API key in " + t.KeyEnv
			}
			msg = fmt.Sprintf("authentication failed (%d): check %s%s", s, key, server)
		case s == http.StatusNotFound:
			msg = fmt.Sprintf("model %q not found at %s (404): check the model name and base URL%s", t.Model, base, server)
		case s == http.StatusTooManyRequests:
			wait := "try again later"
			if f.RetryAfter > maxDelay {
				wait = fmt.Sprintf("the server asks to wait %s; try again later", f.RetryAfter.Round(time.Second))
			}
			msg = fmt.Sprintf("rate limited (429)%s: %s%s", tries, wait, server)
		case s == 529:
			msg = fmt.Sprintf("the service is overloaded (529)%s: try again later%s", tries, server)
		case s >= 500:
			msg = fmt.Sprintf("server error (%d)%s: try again later%s", s, tries, server)
		default:
			msg = fmt.Sprintf("request rejected (%d)%s%s", s, tries, server)
		}
	case KindConnect:
		msg = fmt.Sprintf("cannot reach %s%s: check the base URL and that the server is running: %v", base, tries, f.Err)
	case KindStream:
		if shown {
			msg = fmt.Sprintf("the stream from %s broke after part of the answer was shown, so the answer is incomplete; ask again: %v", base, f.Err)
		} else {
			msg = fmt.Sprintf("the stream from %s broke before any output%s: %v", base, tries, f.Err)
		}
	case KindStreamError:
		msg = fmt.Sprintf("the server reported an error mid-stream%s: %s", tries, f.Detail)
	case KindTooLong:
		msg = fmt.Sprintf("the answer from %s passed %s bytes, so agentls stopped reading it (a model repeating itself, or a server gone wrong): ask again, for something shorter or in parts", base, f.Detail)
	case KindNotStreaming:
		msg = fmt.Sprintf("%s answered with %s instead of an event stream: use an endpoint that supports %s with stream: true", base, f.Detail, t.API)
	default:
		msg = fmt.Sprintf("request to %s failed: %v", base, f.Err)
	}
	return &callError{msg: msg, err: f.Err}
}

// BaseURL checks that raw is an absolute http(s) URL and returns it
// without trailing slashes; the error starts with label and shows example.
func BaseURL(label, raw, example string) (string, error) {
	base := strings.TrimRight(raw, "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: base URL %q is not an absolute http(s) URL, e.g. %s", label, base, example)
	}
	return base, nil
}

// Classify classifies an attempt's error: an HTTP error status, an error
// event in a 2xx stream (event recognises the SDK's error for it and
// returns nil for any other), a broken or non-streaming body, or no
// response at all. resp is the response, nil when none arrived.
func Classify(err error, resp *http.Response, event func(error) *Failure) *Failure {
	switch {
	case resp != nil && resp.StatusCode >= 400:
		detail, code := ErrorDetail(resp)
		return StatusFailure(resp.StatusCode, resp.Header, detail, code, err)
	case resp != nil:
		if f := event(err); f != nil {
			return f
		}
		return BodyFailure(err, resp)
	}
	return TransportFailure(err)
}

// StreamEnd is the failure of an attempt whose stream stopped with err
// (nil at a clean end), or nil when the answer stands: the model
// finished, and a transport error after its stop reason loses nothing. A
// clean end before the model finished fails with ended (wrapping
// ErrStreamEnded).
func StreamEnd(err error, finished bool, resp *http.Response, ended error, event func(error) *Failure) *Failure {
	if err == nil && !finished {
		err = ended
	}
	if err == nil || (finished && resp != nil && resp.StatusCode < 300) {
		return nil
	}
	return Classify(err, resp, event)
}
