package remote

import (
	"encoding/json"
	"net/http"
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
