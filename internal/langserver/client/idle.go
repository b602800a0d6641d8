package client

import (
	"context"
	"time"
)

// indexWait bounds how long a request whose answer spans the workspace
// (references, rename, call hierarchy, workspace symbols) waits for the
// server's work in progress, such as clangd's background indexing or
// gopls loading packages, to end. Before that its index is incomplete: a
// rename then misses files (it renamed a function in two files of three,
// leaving a header that no longer compiled), references miss callers.
// Past the bound the request is sent anyway: a large project's first
// indexing can take minutes.
const indexWait = 10 * time.Second

// waitIdle waits until the server reports no work-done progress in
// flight, at most limit. It returns what is still in progress ("" for
// nothing).
//
// Work that outlasted one whole wait is not waited for again: a server
// that never ends a progress would otherwise delay every such request.
func (s *session) waitIdle(ctx context.Context, limit time.Duration) string {
	s.progMu.Lock()
	idle := s.progIdle
	stale := true
	for token := range s.progress {
		if !s.outlasted[token] {
			stale = false
			break
		}
	}
	s.progMu.Unlock()
	if idle == nil {
		return ""
	}
	if stale {
		return s.busy()
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-idle:
		return ""
	case <-t.C:
		s.progMu.Lock()
		for token := range s.progress {
			s.outlasted[token] = true
		}
		s.progMu.Unlock()
	case <-ctx.Done():
	case <-s.ctx.Done():
	}
	return s.busy()
}

// awaitIndex waits (at most indexWait) for the server's work in
// progress to end before a request that spans the workspace, and logs
// when it is sent with the work still going.
func (s *session) awaitIndex(ctx context.Context, what string) {
	if busy := s.waitIdle(ctx, indexWait); busy != "" {
		s.log.Warn("language server still busy; its answer may be incomplete", "request", what, "busy", busy)
	}
}
