package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/app"
)

// CheckpointArgs is the optional argument of agentls.checkpoints and
// agentls.restoreCheckpoint.
type CheckpointArgs struct {
	// SessionID is the session; empty means this connection's.
	SessionID string `json:"sessionId,omitempty"`
	// Checkpoint is the id to restore to; Undo undoes the last restore
	// instead.
	Checkpoint int64 `json:"checkpoint,omitempty"`
	Undo       bool  `json:"undo,omitempty"`
	// What is "files" (the default), "conversation" or "both".
	What string `json:"what,omitempty"`
}

// CheckpointList is agentls.checkpoints's result.
type CheckpointList struct {
	SessionID   string             `json:"sessionId"`
	Checkpoints []store.Checkpoint `json:"checkpoints"`
}

// sessionFor is the session a checkpoint command names, with this
// connection's live session when it is that one.
func (s *Server) sessionFor(a CheckpointArgs) (string, *agent.Session, error) {
	var live *agent.Session
	s.mu.Lock()
	if s.session != nil {
		live = s.session.Session
	}
	s.mu.Unlock()
	id := a.SessionID
	if id == "" {
		if live == nil {
			return "", nil, errors.New("no session yet: ask something first, or name a stored session (sessionId)")
		}
		id = live.ID
	}
	if live != nil && live.ID != id {
		live = nil
	}
	return id, live, nil
}

func (s *Server) listCheckpoints(ctx context.Context, a CheckpointArgs) (any, error) {
	id, _, err := s.sessionFor(a)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	eng, err := s.env.Checkpoints(ctx)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	list, err := eng.List(ctx, id)
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []store.Checkpoint{}
	}
	return CheckpointList{SessionID: id, Checkpoints: list}, nil
}

// restoreCheckpoint restores to a checkpoint, or undoes the last restore,
// and tells the person. Open buffers change through workspace/applyEdit
// (the workspace's applier), so the editor's undo can take them back.
func (s *Server) restoreCheckpoint(ctx context.Context, a CheckpointArgs) (any, error) {
	id, live, err := s.sessionFor(a)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	var rep app.CheckpointRestore
	if a.Undo {
		rep, err = s.env.UndoRestore(ctx, id, live)
	} else {
		what := a.What
		if what == "" {
			what = "files"
		}
		if what != "files" && what != "conversation" && what != "both" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "what %q: use files, conversation or both", a.What)
		}
		if a.Checkpoint == 0 {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "name a checkpoint (see agentls.checkpoints), or undo: true")
		}
		rep, err = s.env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: id, Checkpoint: a.Checkpoint,
			Files: what != "conversation", Conversation: what != "files", Live: live})
	}
	if err != nil {
		// What was done before the error is told too: the person must
		// know which files changed.
		text := rep.ErrorText(s.ws.Rel, err)
		if rep.Partial() {
			s.showMessage(ctx, 1, "agentls: "+text)
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s", text)
	}
	typ := 3
	if len(rep.Conflicts)+len(rep.Skipped) > 0 {
		typ = 2
	}
	s.showMessage(ctx, typ, "agentls: "+rep.Text(s.ws.Rel))
	return rep, nil
}
