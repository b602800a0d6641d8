// Package docsync forwards the editor's document events — didOpen,
// didChange, didClose of the buffers in the overlay (package overlay) —
// to the language servers agentls runs for its tools, in the background
// and batched: a burst of keystrokes becomes one sync, so the servers
// follow what the person sees without a sync per keystroke.
//
// A Forwarder knows nothing of the servers: it calls a function with each
// document's latest event, in the order the documents were touched, one
// call at a time. It imports no other agentls package.
package docsync

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// applyTimeout bounds one event, a server's start included.
const applyTimeout = 2 * time.Minute

// Apply sends one document's latest event to the servers: closed for a
// didClose, else the document is to be synced to its current text. It
// runs on the Forwarder's goroutine, one call at a time; ctx ends at Stop
// or after two minutes.
type Apply func(ctx context.Context, path string, closed bool)

// Forwarder queues the editor's document events and applies each
// document's latest, in order. It is safe for concurrent use.
type Forwarder struct {
	apply Apply
	delay time.Duration
	ctx   context.Context
	stop  context.CancelFunc

	mu      sync.Mutex
	open    map[string]bool // documents open in the editor
	order   []string        // queued paths, oldest first
	pending map[string]event
	running bool          // the worker goroutine runs
	hurry   int           // Flush calls waiting: no more batching
	wake    chan struct{} // closed to end the worker's batching wait
	drained chan struct{} // closed when the queue is empty
}

// event is a document's latest queued event.
type event struct {
	close bool
	due   time.Time
}

// New returns a Forwarder calling apply. A change waits delay for more
// keystrokes; a document's first open and a close go at once.
func New(apply Apply, delay time.Duration) *Forwarder {
	ctx, stop := context.WithCancel(context.Background())
	return &Forwarder{apply: apply, delay: delay, ctx: ctx, stop: stop, open: map[string]bool{}, pending: map[string]event{}}
}

// Changed records that the editor opened or changed the document at path
// (absolute, cleaned).
func (f *Forwarder) Changed(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delay := f.delay
	if !f.open[path] {
		delay = 0
	}
	f.open[path] = true
	f.enqueueLocked(path, false, delay)
}

// Closed records that the editor closed the document at path; a path
// never opened is ignored.
func (f *Forwarder) Closed(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open[path] {
		return
	}
	delete(f.open, path)
	f.enqueueLocked(path, true, 0)
}

// Resync queues every open document again, at once: for servers that
// restarted and must be given the buffers.
func (f *Forwarder) Resync() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range slices.Sorted(maps.Keys(f.open)) {
		f.enqueueLocked(p, false, 0)
	}
}

// Open lists the documents open in the editor, sorted.
func (f *Forwarder) Open() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.open))
}

// Flush applies the queued events now, without waiting for more
// keystrokes, and returns once they have been applied or ctx ends: a
// request then sees what the person sees.
func (f *Forwarder) Flush(ctx context.Context) {
	f.mu.Lock()
	if !f.running {
		f.mu.Unlock()
		return
	}
	if f.drained == nil {
		f.drained = make(chan struct{})
	}
	drained := f.drained
	f.hurry++
	f.wakeLocked()
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.hurry--
		f.mu.Unlock()
	}()
	select {
	case <-drained:
	case <-ctx.Done():
	case <-f.ctx.Done():
	}
}

// Stop drops the queued events and ends the worker; later events are
// ignored.
func (f *Forwarder) Stop() { f.stop() }

func (f *Forwarder) enqueueLocked(path string, closed bool, delay time.Duration) {
	if f.ctx.Err() != nil {
		return
	}
	if _, ok := f.pending[path]; !ok {
		f.order = append(f.order, path)
	}
	f.pending[path] = event{close: closed, due: time.Now().Add(delay)}
	if !f.running {
		f.running = true
		go f.work()
	}
}

// wakeLocked ends the worker's batching wait.
func (f *Forwarder) wakeLocked() {
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// work applies the queued events in order, each path's latest, and ends
// when the queue is empty.
func (f *Forwarder) work() {
	for {
		f.mu.Lock()
		if len(f.order) == 0 || f.ctx.Err() != nil {
			f.order, f.running = nil, false
			clear(f.pending)
			if f.drained != nil {
				close(f.drained)
				f.drained = nil
			}
			f.mu.Unlock()
			return
		}
		path := f.order[0]
		ev := f.pending[path]
		if wait := time.Until(ev.due); wait > 0 && f.hurry == 0 {
			if f.wake == nil {
				f.wake = make(chan struct{})
			}
			wake := f.wake
			f.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-wake:
			case <-f.ctx.Done():
			}
			t.Stop()
			continue
		}
		f.order = f.order[1:]
		delete(f.pending, path)
		f.mu.Unlock()
		ctx, cancel := context.WithTimeout(f.ctx, applyTimeout)
		f.apply(ctx, path, ev.close)
		cancel()
	}
}
