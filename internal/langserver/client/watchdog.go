package client

import (
	"context"
	"errors"
	"time"
)

// Request timeouts are enforced by one watchdog goroutine per session
// rather than a timer per request: arming a runtime timer that is the
// earliest one wakes the network poller, a cost paid on every request
// (measurable on the P1 benchmark). The watchdog ticks while requests are
// in flight, so a timeout fires up to watchTick late.
const (
	watchTick = 50 * time.Millisecond
	// The watchdog stops after this many idle ticks.
	watchIdleTicks = 20
)

// errTimedOut is the cancellation cause of a request past its deadline.
var errTimedOut = errors.New("request timed out")

type pendingRequest struct {
	cancel   context.CancelCauseFunc
	deadline time.Time
}

// track registers a request's cancel function until done is called: the
// watchdog cancels it with errTimedOut after timeout, or with errExited
// as soon as the server dies.
func (s *session) track(cancel context.CancelCauseFunc, timeout time.Duration) (done func()) {
	s.reqMu.Lock()
	s.reqSeq++
	id := s.reqSeq
	s.reqs[id] = pendingRequest{cancel: cancel, deadline: time.Now().Add(timeout)}
	if !s.watching {
		s.watching = true
		go s.watchdog()
	}
	s.reqMu.Unlock()
	if !s.alive() {
		cancel(errExited)
	}
	return func() {
		s.reqMu.Lock()
		delete(s.reqs, id)
		s.reqMu.Unlock()
	}
}

// watchdog cancels overdue requests, and all of them when the server
// dies. It ends once idle for a while; track restarts it.
func (s *session) watchdog() {
	t := time.NewTicker(watchTick)
	defer t.Stop()
	idle := 0
	for {
		select {
		case <-s.ctx.Done():
			s.reqMu.Lock()
			for _, r := range s.reqs {
				r.cancel(errExited)
			}
			s.watching = false
			s.reqMu.Unlock()
			return
		case now := <-t.C:
			s.reqMu.Lock()
			for _, r := range s.reqs {
				if now.After(r.deadline) {
					r.cancel(errTimedOut)
				}
			}
			if len(s.reqs) == 0 {
				idle++
			} else {
				idle = 0
			}
			if idle >= watchIdleTicks {
				s.watching = false
				s.reqMu.Unlock()
				return
			}
			s.reqMu.Unlock()
		}
	}
}
