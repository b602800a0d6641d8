package providertest

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/remote"
)

// Record is the bookkeeping the loopback servers share (openaitest,
// anthropictest): the requests received, how many were refused as longer
// than the window, and the usage the answers reported. Embed it; it is
// safe for concurrent use.
type Record[R any] struct {
	mu       sync.Mutex
	requests []R
	over     int
	billed   agent.Usage
}

// Requests returns every request received so far, the refused ones too.
func (r *Record[R]) Requests() []R {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// OverWindow counts the requests refused as longer than the window.
func (r *Record[R]) OverWindow() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.over
}

// Usage is the usage the answers reported, summed, in agentls's terms:
// Input counts every prompt token, cached ones included.
func (r *Record[R]) Usage() agent.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.billed
}

// Received records a request.
func (r *Record[R]) Received(req R) {
	r.mu.Lock()
	r.requests = append(r.requests, req)
	r.mu.Unlock()
}

// Refused counts a request refused as longer than the window.
func (r *Record[R]) Refused() {
	r.mu.Lock()
	r.over++
	r.mu.Unlock()
}

// Billed adds the usage one answer reported.
func (r *Record[R]) Billed(u agent.Usage) {
	r.mu.Lock()
	r.billed = r.billed.Add(u)
	r.mu.Unlock()
}

// WantErr fails t unless err says every one of parts.
func WantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("err = %q\nwant it to contain %q", err, p)
		}
	}
}

// FastRetries is a retry policy for tests: tiny backoff, a 5 s bound.
func FastRetries() remote.Policy {
	return remote.Policy{Timeout: 5 * time.Second, RetryBaseDelay: time.Millisecond, MaxRetryDelay: 2 * time.Second}
}

// Configure applies mods to cfg and builds the provider with build,
// failing t when it refuses the configuration.
func Configure[C, P any](t testing.TB, build func(C) (P, error), cfg C, mods ...func(*C)) P {
	t.Helper()
	for _, m := range mods {
		m(&cfg)
	}
	p, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
