package docsync

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder is an Apply that records the events it was given.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) apply(_ context.Context, path string, closed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if closed {
		path = "close " + path
	}
	r.events = append(r.events, path)
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// A first open goes at once; a burst of changes becomes one sync after
// the batching delay; Flush does not wait for the delay.
func TestBatching(t *testing.T) {
	var r recorder
	f := New(r.apply, time.Hour)
	defer f.Stop()
	f.Changed("/a")
	f.Flush(context.Background())
	if got := r.got(); !slices.Equal(got, []string{"/a"}) {
		t.Fatalf("after the first open: %v", got)
	}
	for range 20 {
		f.Changed("/a")
	}
	if got := r.got(); len(got) != 1 {
		t.Fatalf("changes applied before the batching delay: %v", got)
	}
	start := time.Now()
	f.Flush(context.Background())
	if got := r.got(); !slices.Equal(got, []string{"/a", "/a"}) || time.Since(start) > 5*time.Second {
		t.Fatalf("after Flush: %v (%v)", got, time.Since(start))
	}
}

// Events apply in the order the documents were touched, each path's
// latest: a close replaces a pending change.
func TestOrderAndLatest(t *testing.T) {
	var r recorder
	f := New(r.apply, 20*time.Millisecond)
	defer f.Stop()
	f.Changed("/a")
	f.Changed("/b")
	f.Flush(context.Background())
	f.Changed("/b")
	f.Changed("/a")
	f.Closed("/b")
	f.Closed("/never-opened")
	f.Flush(context.Background())
	want := []string{"/a", "/b", "close /b", "/a"}
	if got := r.got(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if open := f.Open(); !slices.Equal(open, []string{"/a"}) {
		t.Errorf("open %v, want [/a]", open)
	}
	f.Resync()
	f.Flush(context.Background())
	if got := r.got(); !slices.Equal(got[len(want):], []string{"/a"}) {
		t.Errorf("after Resync: %v", got)
	}
}

// Without Flush, a change goes after the delay by itself.
func TestDelayElapses(t *testing.T) {
	done := make(chan string, 4)
	f := New(func(_ context.Context, path string, _ bool) { done <- path }, 50*time.Millisecond)
	defer f.Stop()
	f.Changed("/a")
	<-done
	start := time.Now()
	f.Changed("/a")
	select {
	case <-done:
		if e := time.Since(start); e < 40*time.Millisecond {
			t.Errorf("the change went after %v, before the 50 ms delay", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the change never went")
	}
}

// Flush gives up when its context ends (a server slow to start), and
// Stop ends everything: later events are ignored.
func TestFlushBoundAndStop(t *testing.T) {
	release := make(chan struct{})
	var r recorder
	f := New(func(ctx context.Context, path string, closed bool) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		r.apply(ctx, path, closed)
	}, time.Millisecond)
	f.Changed("/slow")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	f.Flush(ctx)
	if e := time.Since(start); e > time.Second {
		t.Errorf("Flush waited %v past its context", e)
	}
	close(release)
	f.Flush(context.Background())
	f.Stop()
	f.Changed("/late")
	f.Flush(context.Background())
	if got := r.got(); !slices.Equal(got, []string{"/slow"}) {
		t.Errorf("events %v, want only /slow", got)
	}
}

// Many writers at once: every document ends synced, none twice at once.
func TestConcurrent(t *testing.T) {
	var busy, overlap sync.Mutex
	var r recorder
	f := New(func(ctx context.Context, path string, closed bool) {
		if !busy.TryLock() {
			overlap.Lock() // never unlocked: recorded below
			return
		}
		defer busy.Unlock()
		r.apply(ctx, path, closed)
	}, time.Millisecond)
	defer f.Stop()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				f.Changed(fmt.Sprintf("/%d/%d", i, j%5))
			}
		}()
	}
	wg.Wait()
	f.Flush(context.Background())
	if !overlap.TryLock() {
		t.Fatal("two events were applied at once")
	}
	seen := map[string]bool{}
	for _, p := range r.got() {
		seen[p] = true
	}
	if len(seen) != 40 || len(f.Open()) != 40 {
		t.Errorf("%d documents synced, %d open; want 40 and 40", len(seen), len(f.Open()))
	}
}
