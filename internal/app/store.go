package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/store"
)

// errNoDataDir is the reason there is no history without a data folder.
var errNoDataDir = errors.New("no history: agentls runs without a data directory")

// Store opens the history database on first use. A failure is kept: the
// next call reports it again without retrying.
func (e *Env) Store(ctx context.Context) (*store.Store, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.storeLocked(ctx)
}

func (e *Env) storeLocked(ctx context.Context) (*store.Store, error) {
	if e.st != nil || e.stErr != nil {
		return e.st, e.stErr
	}
	if e.app.opts.DataDir == "" {
		e.stErr = errNoDataDir
		return nil, e.stErr
	}
	st, err := store.Open(ctx, store.DefaultPath(e.app.opts.DataDir))
	if err != nil {
		e.stErr = fmt.Errorf("open the history: %w", err)
		return nil, e.stErr
	}
	e.st, e.history = st, agent.NewHistory(st, e.ws)
	e.openCheckpointsLocked(st)
	if e.cp != nil {
		e.ws.SetRecorder(recorders{e.history, e.cp})
	} else {
		e.ws.SetRecorder(e.history)
	}
	return st, nil
}

// History is the workspace's change history (revert), opened with the
// store.
func (e *Env) History(ctx context.Context) (*agent.History, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.storeLocked(ctx); err != nil {
		return nil, err
	}
	return e.history, nil
}
