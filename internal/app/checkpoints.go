package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/checkpoint"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// errCheckpointsOff is why there are no checkpoints when the person
// switched them off.
var errCheckpointsOff = errors.New("checkpoints are off (\"checkpoints\": {\"enabled\": false} in the config file)")

// checkpointOptions are the engine's bounds from the user file's
// "checkpoints" (only it counts), over the defaults; -1 means no bound.
func checkpointOptions(c config.Checkpoints) checkpoint.Options {
	o := checkpoint.DefaultOptions()
	pick := func(set int64, def *int64) {
		switch {
		case set < 0:
			*def = 0
		case set > 0:
			*def = set
		}
	}
	pick(c.MaxFileBytes, &o.MaxFileBytes)
	pick(c.MaxBytes, &o.MaxBytes)
	pick(c.KeepBytes, &o.KeepBytes)
	files, keep := int64(o.MaxFiles), int64(o.Keep)
	pick(int64(c.MaxFiles), &files)
	pick(int64(c.Keep), &keep)
	o.MaxFiles, o.Keep = int(files), int(keep)
	o.Exclude = append([]string(nil), c.Exclude...)
	return o
}

// openCheckpoints makes the environment's checkpoint engine with the
// store (under e.mu), unless the person switched checkpoints off.
func (e *Env) openCheckpointsLocked(st *store.Store) {
	user, _, _ := e.app.UserConfig()
	if c := user.Checkpoints; c.Enabled != nil && !*c.Enabled {
		e.cpErr = errCheckpointsOff
		return
	}
	e.cp = checkpoint.New(st, e.ws, checkpointOptions(user.Checkpoints), e.app.log)
}

// Checkpoints is the environment's checkpoint engine, opened with the
// store.
func (e *Env) Checkpoints(ctx context.Context) (*checkpoint.Engine, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.storeLocked(ctx); err != nil {
		return nil, err
	}
	if e.cp == nil {
		return nil, e.cpErr
	}
	return e.cp, nil
}

// PersonChanged tells the checkpoints the person changed the file abs in
// the editor (a save, an edit of its buffer): while a step runs, the
// step's checkpoint will not count that change as the agent's (a restore
// keeps it, as a conflict). It does nothing before the checkpoints open.
func (e *Env) PersonChanged(abs string) {
	e.mu.Lock()
	cp := e.cp
	e.mu.Unlock()
	if cp != nil {
		cp.PersonChanged(abs)
	}
}

// prepareCheckpoints walks the workspace in the background the first time
// a session is made, so the first step does not wait for the first walk
// (which reads every file the bounds allow).
func (e *Env) prepareCheckpoints(ctx context.Context) agent.Checkpointer {
	eng, err := e.Checkpoints(ctx)
	if err != nil {
		return nil
	}
	e.mu.Lock()
	if e.cpCancel == nil {
		bg, cancel := context.WithCancel(context.Background())
		e.cpCancel = cancel
		go func() {
			if err := eng.Prepare(bg); err != nil && bg.Err() == nil {
				e.app.log.Warn("checkpoints: the first walk of the workspace failed", "error", err)
			}
		}()
	}
	e.mu.Unlock()
	return stepCheckpoints{eng}
}

// stepCheckpoints is the engine as the agent's Checkpointer.
type stepCheckpoints struct{ e *checkpoint.Engine }

// BeginStep implements agent.Checkpointer.
func (s stepCheckpoints) BeginStep(ctx context.Context, st agent.Step) (func(context.Context) error, error) {
	p, err := s.e.Begin(ctx, checkpoint.Step{SessionID: st.SessionID, TurnID: st.TurnID, CallID: st.CallID, Tool: st.Tool, Title: st.Title})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := p.End(ctx)
		return err
	}, nil
}

// recorders hands a file tool's change to the turn history and to the
// checkpoints.
type recorders []tools.Recorder

// RecordChange implements tools.Recorder.
func (rs recorders) RecordChange(ctx context.Context, c tools.ChangeRecord) error {
	var errs []error
	for _, r := range rs {
		errs = append(errs, r.RecordChange(ctx, c))
	}
	return errors.Join(errs...)
}

// RestoreOptions say what a restore to a checkpoint puts back.
type RestoreOptions struct {
	SessionID string
	// Checkpoint is the checkpoint's id: the workspace goes back to
	// before its step.
	Checkpoint int64
	// Files restores the files; Conversation the conversation (to before
	// the prompt of the checkpoint's turn). At least one.
	Files, Conversation bool
	// Live is the session when it is open in this process: its
	// conversation changes at once (else at its next resume).
	Live *agent.Session
	// only restores the checkpoint's own changes (UndoRestore: the
	// steps after the restore keep theirs).
	only bool
}

// CheckpointRestore is what a restore did.
type CheckpointRestore struct {
	checkpoint.Restore
	// Conversation, when the conversation was restored, is how many of
	// the session's records it now stands on and how many messages the
	// model sees.
	Conversation *ConversationRestore `json:"conversation,omitempty"`
}

// ConversationRestore is a restored conversation.
type ConversationRestore struct {
	Records  int `json:"records"`
	Messages int `json:"messages"`
	// Turns are the turns the conversation holds now, oldest first (their
	// ids, as events name them): an editor's chat shows these and hides
	// the rest (docs/checkpoints.md).
	Turns []string `json:"turns"`
	// Todos are the conversation's todo list now (empty: none), which
	// the restore put back with it: an editor's chat shows these.
	Todos []tools.Todo `json:"todos"`
}

// Partial reports whether a restore that ended in an error did part of
// its work — put paths back, found conflicts or paths to leave alone,
// restored the conversation: its report says what, beside the error.
func (r CheckpointRestore) Partial() bool {
	return len(r.Restored)+len(r.Conflicts)+len(r.Skipped) > 0 || r.Conversation != nil
}

// ErrorText is a restore that ended in err in words: what it did, if
// anything, then what it did not.
func (r CheckpointRestore) ErrorText(rel func(string) string, err error) string {
	if !r.Partial() {
		return "nothing was restored: " + err.Error()
	}
	return r.Text(rel) + "\nbut the restore did not finish: " + err.Error()
}

// Text is the restore in words.
func (r CheckpointRestore) Text(rel func(string) string) string {
	t := r.Restore.Text(rel)
	if r.Conversation != nil {
		t += fmt.Sprintf("\nthe conversation is back to %d message(s)", r.Conversation.Messages)
	}
	return t
}

// RestoreCheckpoint restores a session's files, conversation or both to
// before a checkpoint; the restore is itself a checkpoint (Undo). It is
// refused while the live session runs a turn or a compaction, and holds
// it busy until done (agent.Session.HoldForRestore). On an error the
// report still says what was done (CheckpointRestore.Partial, ErrorText).
func (e *Env) RestoreCheckpoint(ctx context.Context, o RestoreOptions) (CheckpointRestore, error) {
	var out CheckpointRestore
	if !o.Files && !o.Conversation {
		return out, errors.New("restore: say what to restore: files, conversation or both")
	}
	if o.Live != nil {
		// The session stays busy for the whole restore: no turn,
		// compaction or model switch starts under it.
		release, err := o.Live.HoldForRestore()
		if err != nil {
			return out, err
		}
		defer release()
	}
	eng, err := e.Checkpoints(ctx)
	if err != nil {
		return out, err
	}
	st, err := e.Store(ctx)
	if err != nil {
		return out, err
	}
	cp, err := st.GetCheckpoint(ctx, o.Checkpoint)
	if err != nil {
		return out, err
	}
	if cp.SessionID != o.SessionID {
		return out, fmt.Errorf("checkpoint %d is not one of session %s's: %w", o.Checkpoint, o.SessionID, store.ErrNoCheckpoint)
	}
	convBefore := -1
	if o.Conversation {
		if cp.ConvSeq < 0 {
			return out, fmt.Errorf("checkpoint %d does not know where its conversation stood: restore its files only", o.Checkpoint)
		}
		recs, err := st.Records(ctx, o.SessionID)
		if err != nil {
			return out, err
		}
		convBefore = len(recs)
	}
	ro := checkpoint.RestoreOptions{SessionID: o.SessionID, To: o.Checkpoint, ConvSeq: convBefore,
		CopyDir: filepath.Join(e.StateDir(), "checkpoints"), Only: o.only}
	if o.Files {
		out.Restore, err = eng.Restore(ctx, ro)
	} else {
		out.Restore, err = eng.Mark(ctx, ro)
	}
	if err != nil {
		return out, err
	}
	if o.Conversation {
		if out.Conversation, err = e.rewind(ctx, st, o.SessionID, cp.ConvSeq, o.Live); err != nil {
			return out, fmt.Errorf("the conversation was not restored: %w", err)
		}
	}
	return out, nil
}

// rewind takes a session's conversation back to its first to records,
// in the live session and then in the store: the rewind record is
// appended only once the live session took it, so a refused reset leaves
// the journal as it was.
func (e *Env) rewind(ctx context.Context, st *store.Store, sessionID string, to int, live *agent.Session) (*ConversationRestore, error) {
	data, _ := json.Marshal(agent.RewindRecord{To: to})
	recs, err := journalRecords(ctx, st, sessionID)
	if err != nil {
		return nil, err
	}
	r, err := agent.Restore(append(recs, agent.JournalRecord{Kind: agent.RecordRewind, Data: data}))
	if err != nil {
		return nil, err
	}
	if live != nil {
		if err := live.ResetConversation(r); err != nil {
			return nil, err
		}
	}
	if _, err := st.AppendRecord(ctx, sessionID, agent.RecordRewind, string(data)); err != nil {
		if live != nil {
			return nil, fmt.Errorf("the conversation is restored in this session but the restore was not saved (a resumed session will not see it): %w", err)
		}
		return nil, err
	}
	said, err := agent.Transcript(append(recs, agent.JournalRecord{Kind: agent.RecordRewind, Data: data}))
	if err != nil {
		return nil, err
	}
	todos := append([]tools.Todo{}, r.Todos...)
	return &ConversationRestore{Records: to, Messages: len(r.History), Turns: turnsOf(said), Todos: todos}, nil
}

// turnsOf lists the turns of a conversation's messages, each once, in order.
func turnsOf(said []agent.Said) []string {
	turns := []string{}
	for _, m := range said {
		if m.TurnID != "" && (len(turns) == 0 || turns[len(turns)-1] != m.TurnID) {
			turns = append(turns, m.TurnID)
		}
	}
	return turns
}

// UndoRestore undoes the session's last restore: its files when it
// changed files, its conversation when it changed that; it is a restore
// itself, so undoing again redoes. It undoes that restore only: what
// steps changed after it stays — a path they changed is kept and, when
// the restore had changed it too, reported as a conflict.
func (e *Env) UndoRestore(ctx context.Context, sessionID string, live *agent.Session) (CheckpointRestore, error) {
	st, err := e.Store(ctx)
	if err != nil {
		return CheckpointRestore{}, err
	}
	list, err := st.Checkpoints(ctx, sessionID)
	if err != nil {
		return CheckpointRestore{}, err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if c := list[i]; c.Kind == store.CheckpointRestore {
			// Only what that restore changed: a restore of the
			// conversation only changed no file, and undoing it must not
			// undo the files of the steps since.
			files, conv := c.Changed > 0, c.ConvSeq >= 0
			if !files && !conv {
				return CheckpointRestore{}, fmt.Errorf("the last restore (checkpoint %d) changed no file and not the conversation: there is nothing to undo", c.ID)
			}
			return e.RestoreCheckpoint(ctx, RestoreOptions{SessionID: sessionID, Checkpoint: c.ID, Files: files,
				Conversation: conv, Live: live, only: true})
		}
	}
	return CheckpointRestore{}, fmt.Errorf("session %s has no restore to undo", sessionID)
}
