package agent

import (
	"strings"
	"sync"
	"time"
)

// deltaInterval is the shortest time between two text_delta events of a
// turn: at most ~20 a second reach the front-end, whatever the provider's
// chunking.
const deltaInterval = 50 * time.Millisecond

// coalescer turns a provider's streamed deltas into at most one event per
// deltaInterval, sending what accumulated at once when the interval has
// passed and from a timer otherwise, so the last words never wait for the
// next chunk.
type coalescer struct {
	typ  EventType
	send func(Event)

	mu    sync.Mutex
	buf   strings.Builder
	last  time.Time
	timer *time.Timer
}

func newCoalescer(typ EventType, send func(Event)) *coalescer {
	return &coalescer{typ: typ, send: send}
}

// add takes one delta.
func (c *coalescer) add(d string) {
	if d == "" {
		return
	}
	c.mu.Lock()
	c.buf.WriteString(d)
	wait := deltaInterval - time.Since(c.last)
	if wait <= 0 {
		c.flushLocked()
		c.mu.Unlock()
		return
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(wait, c.flush)
	}
	c.mu.Unlock()
}

// flush sends what is buffered (from the timer or at the end of a step).
func (c *coalescer) flush() {
	c.mu.Lock()
	c.flushLocked()
	c.mu.Unlock()
}

func (c *coalescer) flushLocked() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.buf.Len() == 0 {
		return
	}
	text := c.buf.String()
	c.buf.Reset()
	c.last = time.Now()
	c.send(Event{Type: c.typ, Text: text})
}
