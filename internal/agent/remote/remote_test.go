package remote

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		ms, ra string
		want   time.Duration
	}{
		{"", "", -1},
		{"250", "", 250 * time.Millisecond},
		{"250", "9", 250 * time.Millisecond}, // -ms wins
		{"", "2", 2 * time.Second},
		{"", "0.5", 500 * time.Millisecond},
		{"", now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second},
		{"", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"", "soon", -1},
		{"", "-1", -1},
		{"x", "1", time.Second},
	} {
		h := http.Header{}
		if tc.ms != "" {
			h.Set("Retry-After-Ms", tc.ms)
		}
		if tc.ra != "" {
			h.Set("Retry-After", tc.ra)
		}
		if got := RetryAfter(h, now); got != tc.want {
			t.Errorf("RetryAfter(ms=%q, ra=%q) = %s, want %s", tc.ms, tc.ra, got, tc.want)
		}
	}
}

func TestToolInput(t *testing.T) {
	for args, want := range map[string]string{
		"":                  `{}`,
		"  ":                `{}`,
		`{"a":1}`:           `{"a":1}`,
		` {"a":1} `:         `{"a":1}`,
		`{"a":`:             `"{\"a\":"`,
		"not json":          `"not json"`,
		`{"a":"\u00e9"}`:    `{"a":"\u00e9"}`,
		`{"path":"a.go"}{}`: `"{\"path\":\"a.go\"}{}"`,
	} {
		if got := string(ToolInput(args)); got != want {
			t.Errorf("ToolInput(%q) = %s, want %s", args, got, want)
		}
	}
	for in, want := range map[string]string{
		``:          `{}`,
		`{"a":1}`:   `{"a":1}`,
		`"{\"a\":"`: `{"a":`,
	} {
		if got := ToolArguments(json.RawMessage(in)); got != want {
			t.Errorf("ToolArguments(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestEndpointResolve(t *testing.T) {
	if _, err := (Endpoint{}).Resolve("acme", "https://api.acme.dev", "big-1", 0); err == nil ||
		err.Error() != "acme: no model configured: set the model name, e.g. big-1" {
		t.Errorf("no model: err = %v", err)
	}
	if _, err := (Endpoint{Model: "m", BaseURL: "localhost:11434/v1"}).Resolve("acme", "https://api.acme.dev", "big-1", 0); err == nil ||
		!strings.Contains(err.Error(), `acme m: base URL "localhost:11434/v1" is not an absolute http(s) URL, e.g. https://api.acme.dev`) {
		t.Errorf("bad base URL: err = %v", err)
	}
	e, err := (Endpoint{Model: "big-1", Policy: Policy{MaxRetries: -1}}).Resolve("acme", "https://api.acme.dev/", "big-1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "acme:big-1" || e.BaseURL != "https://api.acme.dev" || e.Timeout != time.Minute || e.MaxRetries != 0 ||
		e.RetryBaseDelay != DefaultRetryBaseDelay || e.MaxRetryDelay != DefaultMaxRetryDelay || e.HTTPClient != http.DefaultClient {
		t.Errorf("defaults not applied: %+v", e)
	}
	e, _ = (Endpoint{Model: "llama3", Name: "ollama:llama3", BaseURL: "http://localhost:11434/v1/", ContextWindow: 8192, MaxOutput: 4096}).Resolve("acme", "https://x", "m", 0)
	if m := e.Describe(); m.Name() != "ollama:llama3" || m.ContextWindow() != 8192 || m.MaxOutput() != 4096 || e.BaseURL != "http://localhost:11434/v1" || e.Timeout != DefaultTimeout {
		t.Errorf("endpoint %+v describes %+v", e, m)
	}
}

func TestDescribe(t *testing.T) {
	tgt := Target{Label: "acme m", BaseURL: "https://api.acme.dev", Model: "m", KeyEnv: "ACME_KEY", API: "the Acme API"}
	cause := errors.New("cause")
	for _, tc := range []struct {
		f        Failure
		attempts int
		want     string
	}{
		{Failure{Kind: KindStatus, Status: 401, Detail: "bad key", Err: cause}, 1, "authentication failed (401): check the API key in ACME_KEY (server said: bad key)"},
		{Failure{Kind: KindStatus, Status: 529, RetryAfter: -1, Err: cause}, 3, "the service is overloaded (529) after 3 attempts: try again later"},
		{Failure{Kind: KindStatus, Status: 429, RetryAfter: time.Hour, Err: cause}, 1, "rate limited (429): the server asks to wait 1h0m0s; try again later"},
		{Failure{Kind: KindStatus, Status: 404, Err: cause}, 1, `model "m" not found at https://api.acme.dev (404): check the model name and base URL`},
		{Failure{Kind: KindStreamError, Detail: "Overloaded", Err: cause}, 2, "the server reported an error mid-stream after 2 attempts: Overloaded"},
		{Failure{Kind: KindNotStreaming, Detail: "text/html", Err: cause}, 1, "https://api.acme.dev answered with text/html instead of an event stream: use an endpoint that supports the Acme API with stream: true"},
	} {
		err := tgt.Describe(&tc.f, tc.attempts, false, time.Minute)
		if err.Error() != tc.want || !errors.Is(err, cause) {
			t.Errorf("Describe(%+v) = %q, want %q wrapping the cause", tc.f, err, tc.want)
		}
	}
	tgt.KeyEnv = ""
	if err := tgt.Describe(&Failure{Kind: KindStatus, Status: 403}, 1, false, 0); !strings.Contains(err.Error(), "check the API key") {
		t.Errorf("without KeyEnv: %v", err)
	}
}
