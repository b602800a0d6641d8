package client

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// TestReferencesWaitForIndexing: a server still indexing (work-done
// progress in flight) answers workspace-wide requests from an incomplete
// index — clangd renamed a function in two files of three that way. The
// request waits for the progress to end, and the answer is whole.
func TestReferencesWaitForIndexing(t *testing.T) {
	t.Parallel()
	m, dir, _ := fakeManager(t, "indexing=700", nil)
	ctx := context.Background()
	path := fakeFile(t, dir, "hello\nhello\n")
	c, err := m.ClientFor(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// The server's progress begins after initialized; the request is
	// sent once agentls has heard of it (as with clangd, whose indexing
	// was under way when the rename came).
	for deadline := time.Now().Add(10 * time.Second); c.current().busy() == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server's indexing progress never arrived")
		}
	}
	start := time.Now()
	locs, err := c.References(ctx, path, 1, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 2 {
		t.Fatalf("references while the server indexed: %v, want both places (the request should wait for the indexing to end)", locs)
	}
	if c.current().busy() != "" {
		t.Errorf("still busy after the wait: %q", c.current().busy())
	}
	t.Logf("waited %v for the indexing", time.Since(start))
}

// TestWaitIdleIsBounded: work that never ends delays a request by the
// bound at most, and says what is still going on.
func TestWaitIdleIsBounded(t *testing.T) {
	s := &session{progress: map[string]string{"t": "indexing (1/3)"}, progIdle: make(chan struct{}), outlasted: map[string]bool{}, log: slog.New(slog.DiscardHandler)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer s.cancel()
	if busy := s.waitIdle(context.Background(), 50*time.Millisecond); busy != "indexing (1/3)" {
		t.Errorf("waitIdle on endless work = %q, want what is in progress", busy)
	}
	// The same endless work is not waited for again; new work is.
	start := time.Now()
	if busy := s.waitIdle(context.Background(), time.Hour); busy != "indexing (1/3)" || time.Since(start) > time.Second {
		t.Errorf("second waitIdle on the same work = %q after %v, want it at once", busy, time.Since(start))
	}
	s.progress["u"] = "loading"
	start = time.Now()
	if busy := s.waitIdle(context.Background(), 50*time.Millisecond); busy == "" || time.Since(start) < 50*time.Millisecond {
		t.Errorf("waitIdle with new work = %q after %v, want a wait", busy, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if busy := s.waitIdle(ctx, time.Hour); busy == "" {
		t.Error("a cancelled wait reported the server idle")
	}
	idle := &session{progress: map[string]string{}}
	if busy := idle.waitIdle(context.Background(), time.Hour); busy != "" {
		t.Errorf("waitIdle on an idle server = %q", busy)
	}
}
