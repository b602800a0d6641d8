package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// FileChange is one file's new content, computed against a known version.
type FileChange struct {
	Path string
	// Version is the editor buffer's version the change was computed on.
	Version int32
	Old     string
	New     string
	// Label names the change in the editor's undo history.
	Label string
}

// Applier puts changes of documents open in the editor into their buffers
// (workspace/applyEdit in the LSP server). Files not open go to disk.
type Applier interface {
	// ApplyOpen applies one change to an open document. An error means
	// nothing was applied; *NotAppliedError carries the editor's reason.
	ApplyOpen(ctx context.Context, ch FileChange) (Applied, error)
}

// Applied says what became of an applied change beyond the buffer.
type Applied struct {
	// Saved: the editor saved the buffer, so the disk holds the change.
	Saved bool
	// Unsaved explains why the disk does not hold the change yet.
	Unsaved string
}

// NotAppliedError is the editor refusing an edit (applied: false).
type NotAppliedError struct{ Reason string }

// Error gives the editor's reason, for the model.
func (e *NotAppliedError) Error() string {
	if e.Reason == "" {
		return "the editor did not apply the edit"
	}
	return "the editor did not apply the edit: " + e.Reason
}

// UnansweredError is an editor that did not answer an edit in time: the
// edit may or may not have landed.
type UnansweredError struct {
	// Request is the request left unanswered ("workspace/applyEdit").
	Request string
	After   time.Duration
}

// Error says what is known, for the model.
func (e *UnansweredError) Error() string {
	return fmt.Sprintf("the editor did not answer %s within %s, so agentls cannot tell whether the edit landed", e.Request, e.After)
}

// SetApplier installs the editor's applier; nil means disk only.
func (w *Workspace) SetApplier(a Applier) {
	w.mu.Lock()
	w.applier = a
	w.mu.Unlock()
}

func (w *Workspace) getApplier() Applier {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.applier
}

// writeChange applies a change to where the file lives: the editor's
// buffer when it is open there, else disk (atomically).
func (w *Workspace) writeChange(ctx context.Context, cur File, text, label string) (Applied, error) {
	if cur.Open {
		a := w.getApplier()
		if a == nil {
			return Applied{}, errors.New("the file is open in an editor that cannot apply edits")
		}
		return a.ApplyOpen(ctx, FileChange{Path: cur.Path, Version: cur.Version, Old: cur.Text, New: text, Label: label})
	}
	mode := cur.Mode.Perm()
	if mode == 0 {
		mode = 0o644
	}
	return Applied{Saved: true}, w.writeDisk(cur.Path, []byte(text), mode, expectOf(cur))
}

// Restore puts a file back to text (or deletes it when exists is false),
// through the editor's buffer when it is open there, else on disk. It is
// for reverting the agent's own changes at the person's request, so it
// does not pass the permission gate; a path that now counts as outside
// the workspace (a folder on the way swapped for a symbolic link that
// leads out, a hard-linked file) is refused, buffer or disk.
func (w *Workspace) Restore(ctx context.Context, path, text string, exists bool) error {
	if err := w.Outside(path); err != nil {
		return fmt.Errorf("restore %s: %w; nothing was restored: put the folder back, or restore the file by hand", path, err)
	}
	cur, err := w.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	if !exists {
		if missing {
			return nil
		}
		if err := w.removeDisk(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore %s: delete: %w", path, err)
		}
		return nil
	}
	if missing {
		cur = File{Path: path}
	}
	if !missing && cur.Text == text {
		return nil
	}
	if _, err := w.writeChange(ctx, cur, text, "agentls: revert "+display(w, path)); err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	return nil
}
