package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

// Recorder keeps the history of file changes so a turn can be reverted.
// The server implements it with the agentls store.
type Recorder interface {
	RecordChange(ctx context.Context, c ChangeRecord) error
}

// ChangeRecord is one file change for the history.
type ChangeRecord struct {
	SessionID, TurnID, Tool, Path string
	Before                        string
	BeforeExists                  bool
	After                         string
}

// SetRecorder installs the history recorder; nil records nothing.
func (w *Workspace) SetRecorder(r Recorder) {
	w.mu.Lock()
	w.recorder = r
	w.mu.Unlock()
}

// plan is a computed change of one file, not yet applied.
type plan struct {
	abs, shown string
	cur        File
	exists     bool
	text       string // the new content
	note       string // for the model (fuzzy match)
	diff       string
	hunks      []Hunk
	added      int
	removed    int
}

// writeTarget resolves a path the agent wants to change. Paths outside
// the workspace (see Workspace.Outside) are a hard block, reported through
// the permission gate; the write itself is confined again (writeDisk).
func (w *Workspace) writeTarget(p string) (abs, blocked string, err error) {
	if p == "" {
		return "", "", errors.New("file_path is required")
	}
	abs, err = w.Abs(p)
	if err != nil {
		return "", "", err
	}
	if err := w.Outside(abs); err != nil {
		return abs, blockedWrite(w, err), nil
	}
	return abs, "", nil
}

// planChange reads the file as the agent sees it (buffer first), checks
// that the session read this version, and computes the new content.
// compute gets the current text and whether the file exists.
func (w *Workspace) planChange(session, abs string, needRead bool, compute func(text string, exists bool) (string, string, error)) (plan, error) {
	p := plan{abs: abs, shown: display(w, abs)}
	cur, err := w.ReadFile(abs)
	switch {
	case err == nil:
		p.cur, p.exists = cur, true
	case errors.Is(err, fs.ErrNotExist):
		p.cur = File{Path: abs}
	default:
		return p, err
	}
	if p.exists && needRead {
		if err := w.checkFresh(session, p.cur, p.shown); err != nil {
			return p, err
		}
	}
	text, note, err := compute(p.cur.Text, p.exists)
	if err != nil {
		return p, err
	}
	if p.exists && text == p.cur.Text {
		return p, fmt.Errorf("the change leaves %s as it is: nothing to do", p.shown)
	}
	p.text, p.note = text, note
	p.diff, p.added, p.removed = UnifiedDiff(p.shown, p.cur.Text, text)
	p.hunks = DiffHunks(p.shown, p.cur.Text, text)
	return p, nil
}

// request is the permission request for a planned change.
func (p plan) request(tool string, capability permission.Capability, verb string) permission.Request {
	if !p.exists {
		verb = "create"
	}
	return permission.Request{
		Tool:       tool,
		Capability: capability,
		Action:     permission.ActionWrite,
		Paths:      []string{p.abs},
		Diff:       p.diff,
		Change:     &permission.Change{Path: p.abs, Old: p.cur.Text, Exists: p.exists, New: p.text},
		Summary:    fmt.Sprintf("agentls wants to %s %s (+%d −%d)", verb, p.shown, p.added, p.removed),
	}
}

// revise replaces the plan's new text with what the person accepted in a
// review, if the file still holds the text they reviewed.
func (p *plan) revise(rev *permission.Revision) error {
	if p.cur.Text != rev.Old {
		return fmt.Errorf("%s changed while the person reviewed the change, so nothing was applied: view it again and redo the edit if it is still needed", p.shown)
	}
	p.text = rev.Text
	p.diff, p.added, p.removed = UnifiedDiff(p.shown, p.cur.Text, p.text)
	p.hunks = DiffHunks(p.shown, p.cur.Text, p.text)
	if rev.Note != "" {
		p.note = strings.TrimSpace(p.note + "\n" + rev.Note)
	}
	return nil
}

// commit applies a planned change, remembers it as read and records it in
// the history.
func (w *Workspace) commit(ctx context.Context, call Call, tool string, p plan) (Result, error) {
	label := "agentls: " + tool + " " + p.shown
	applied, err := w.writeChange(ctx, p.cur, p.text, label)
	if err != nil {
		return Errorf("%s", notChanged(p.shown, err)), nil
	}
	w.recordWrite(call.SessionID, p.cur, p.text)
	w.mu.RLock()
	rec := w.recorder
	w.mu.RUnlock()
	msg := ""
	if rec != nil {
		if err := rec.RecordChange(ctx, ChangeRecord{SessionID: call.SessionID, TurnID: call.TurnID, Tool: tool, Path: p.abs,
			Before: p.cur.Text, BeforeExists: p.exists, After: p.text}); err != nil {
			msg = fmt.Sprintf("\n(The change is not in agentls's history, so it cannot be reverted with agentls.revertTurn: %v)", err)
		}
	}
	verb := "Edited"
	if !p.exists {
		verb = "Created"
	}
	content := fmt.Sprintf("%s %s (+%d −%d).", verb, p.shown, p.added, p.removed)
	switch {
	case p.cur.Open && applied.Saved:
		content = fmt.Sprintf("%s %s in the editor (+%d −%d); the editor saved it.", verb, p.shown, p.added, p.removed)
	case p.cur.Open:
		content = fmt.Sprintf("%s %s in the editor's buffer (+%d −%d). It is not saved (%s): shell commands and builds see the file on disk until the user saves it.", verb, p.shown, p.added, p.removed, applied.Unsaved)
	}
	if p.note != "" {
		content += "\n" + p.note
	}
	// The changed file's fresh diagnostics, errors first (tools/lspenv.go).
	content += w.lspAfterChange(ctx, map[string]string{p.abs: p.text})
	return Result{Content: content + msg, Diff: p.diff, Hunks: p.hunks}, nil
}

// notChanged tells the model what became of a change that failed: the
// editor refused it, did not answer (it may still land), or the write
// failed (nothing was written).
func notChanged(shown string, err error) string {
	var na *NotAppliedError
	var ua *UnansweredError
	switch {
	case errors.As(err, &na):
		return fmt.Sprintf("%s was not changed: %v. View it again and retry if the change still makes sense.", shown, err)
	case errors.As(err, &ua):
		return fmt.Sprintf("%s may or may not have changed: %v. View it again before going on, and tell the user if the editor seems stuck.", shown, err)
	}
	return fmt.Sprintf("%s was not changed: %v", shown, err)
}

func planPaths(plans []plan) []string {
	out := make([]string, len(plans))
	for i, p := range plans {
		out[i] = p.abs
	}
	return out
}

func joinDiffs(plans []plan) string {
	var b strings.Builder
	for _, p := range plans {
		b.WriteString(p.diff)
		if p.diff != "" && !strings.HasSuffix(p.diff, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// commitPlans applies several planned changes like commit: files open in
// the editor first (the editor may refuse), then the disk; each is
// remembered as read and recorded in the history. It stops at the first
// failure. lines describe each changed file; changed maps its path to its
// new text.
func (w *Workspace) commitPlans(ctx context.Context, call Call, tool, label string, plans []plan, what func(plan) string) (lines []string, changed map[string]string, failure string) {
	ordered := slices.Clone(plans)
	slices.SortStableFunc(ordered, func(a, b plan) int {
		switch {
		case a.cur.Open && !b.cur.Open:
			return -1
		case !a.cur.Open && b.cur.Open:
			return 1
		}
		return 0
	})
	w.mu.RLock()
	rec := w.recorder
	w.mu.RUnlock()
	changed = map[string]string{}
	for _, p := range ordered {
		applied, err := w.writeChange(ctx, p.cur, p.text, label)
		if err != nil {
			return lines, changed, notChanged(p.shown, err)
		}
		w.recordWrite(call.SessionID, p.cur, p.text)
		changed[p.abs] = p.text
		line := fmt.Sprintf("  %s: %s (+%d −%d)", p.shown, what(p), p.added, p.removed)
		switch {
		case p.cur.Open && applied.Saved:
			line += ", in the editor, which saved it"
		case p.cur.Open:
			line += fmt.Sprintf(", in the editor's buffer, not saved (%s): shell commands and builds see the old file until the user saves it", applied.Unsaved)
		}
		if rec != nil {
			if err := rec.RecordChange(ctx, ChangeRecord{SessionID: call.SessionID, TurnID: call.TurnID, Tool: tool, Path: p.abs,
				Before: p.cur.Text, BeforeExists: p.exists, After: p.text}); err != nil {
				line += fmt.Sprintf(" (not in agentls's history, so agentls.revertTurn cannot undo it: %v)", err)
			}
		}
		lines = append(lines, line)
	}
	return lines, changed, ""
}
