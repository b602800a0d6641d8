package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/tools"
)

// History records the agent's file changes in the store, keyed by the
// workspace root of each file, and reverts whole turns.
type History struct {
	st *store.Store
	ws *tools.Workspace

	mu sync.Mutex
	// lastWrite is what agentls last wrote to each file, to notice the
	// person's changes in between (recorded as Intermediate).
	lastWrite map[string]string
}

// NewHistory returns a history over an open store.
func NewHistory(st *store.Store, ws *tools.Workspace) *History {
	return &History{st: st, ws: ws, lastWrite: map[string]string{}}
}

// RecordChange implements tools.Recorder.
func (h *History) RecordChange(ctx context.Context, c tools.ChangeRecord) error {
	root := h.ws.Root(c.Path)
	if root == "" {
		return fmt.Errorf("record change of %s: not inside a workspace root", c.Path)
	}
	ch := store.Change{Workspace: root, SessionID: c.SessionID, TurnID: c.TurnID, Tool: c.Tool, Path: c.Path,
		Before: c.Before, BeforeExists: c.BeforeExists, After: c.After, AfterExists: true}
	h.mu.Lock()
	if last, ok := h.lastWrite[c.Path]; ok && c.BeforeExists && last != c.Before {
		inter := c.Before
		ch.Before, ch.Intermediate = last, &inter
	}
	h.lastWrite[c.Path] = c.After
	h.mu.Unlock()
	_, err := h.st.RecordChange(ctx, ch)
	return err
}

// RevertReport says what a revert did.
type RevertReport struct {
	TurnID   string          `json:"turnId"`
	Restored []string        `json:"restored"`
	Skipped  []store.Skipped `json:"skipped"`
}

// Text is the report in words, the same for every front-end: the files
// restored, then those left alone with why (rel shows a path as the
// person knows it, relative to the workspace).
func (r RevertReport) Text(rel func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "reverted turn %s: %d file(s) restored", r.TurnID, len(r.Restored))
	for _, p := range r.Restored {
		b.WriteString("\n- " + rel(p))
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "\n%d file(s) left alone:", len(r.Skipped))
		for _, sk := range r.Skipped {
			fmt.Fprintf(&b, "\n- %s (%s)", rel(sk.Path), sk.Reason)
		}
	}
	return b.String()
}

// RevertTurn restores every file the turn changed (the last turn with
// changes when turnID is empty). A file changed after the turn is left
// alone and listed, unless force; a file that now counts as outside the
// workspace (Workspace.Outside) is left alone and listed, even with force.
func (h *History) RevertTurn(ctx context.Context, turnID string, force bool) (RevertReport, error) {
	return h.revert(ctx, "", turnID, force)
}

// RevertSessionTurn is RevertTurn within one session's turns: its last
// turn with changes when turnID is empty; a turn of another session is
// refused. Front-ends that run several sessions side by side on one
// workspace (ACP) revert with it.
func (h *History) RevertSessionTurn(ctx context.Context, sessionID, turnID string) (RevertReport, error) {
	if sessionID == "" {
		return RevertReport{}, errors.New("revert: no session named")
	}
	return h.revert(ctx, sessionID, turnID, false)
}

func (h *History) revert(ctx context.Context, sessionID, turnID string, force bool) (RevertReport, error) {
	roots := h.ws.Roots()
	if len(roots) == 0 {
		return RevertReport{}, errors.New("no workspace folder is open")
	}
	if turnID == "" {
		for _, r := range roots {
			id, err := h.st.LastSessionTurn(ctx, r, sessionID)
			if errors.Is(err, store.ErrNoTurn) {
				continue
			}
			if err != nil {
				return RevertReport{}, err
			}
			turnID = id
			break
		}
		if turnID == "" && sessionID != "" {
			return RevertReport{}, errors.New("no turn of this session has changes left to revert")
		}
		if turnID == "" {
			return RevertReport{}, store.ErrNoTurn
		}
	}
	var changes []store.Change
	for _, r := range roots {
		cs, err := h.st.TurnChanges(ctx, r, turnID)
		if err != nil {
			return RevertReport{}, err
		}
		changes = append(changes, cs...)
	}
	if len(changes) == 0 {
		return RevertReport{}, fmt.Errorf("turn %s changed no files in this workspace", turnID)
	}
	if sessionID != "" {
		for _, c := range changes {
			if c.SessionID != sessionID && !strings.HasPrefix(c.SessionID, sessionID+"-") {
				return RevertReport{}, fmt.Errorf("turn %s is not one of this session's", turnID)
			}
		}
	}
	// A file that now counts as outside the workspace (a folder on its
	// path became a link that leads out, a hard-linked file) is left
	// alone, saying why: agentls writes only inside.
	var outside []store.Skipped
	inside := changes[:0:0]
	seen := map[string]bool{}
	for _, c := range changes {
		err := h.ws.Outside(c.Path)
		if err == nil {
			inside = append(inside, c)
			continue
		}
		if !seen[c.Path] {
			seen[c.Path] = true
			outside = append(outside, store.Skipped{Path: c.Path, Reason: err.Error() + " (not reverted)"})
		}
	}
	changes = inside
	current := map[string]store.Current{}
	for _, c := range changes {
		f, err := h.ws.ReadFile(c.Path)
		switch {
		case err == nil:
			current[c.Path] = store.Current{Text: f.Text, Exists: true}
		case errors.Is(err, fs.ErrNotExist):
			current[c.Path] = store.Current{Exists: false}
		}
	}
	restores, skipped := store.PlanRevert(changes, current, force)
	rep := RevertReport{TurnID: turnID, Skipped: append(outside, skipped...)}
	var done []int64
	for _, r := range restores {
		if err := h.ws.Restore(ctx, r.Path, r.Text, r.Exists); err != nil {
			rep.Skipped = append(rep.Skipped, store.Skipped{Path: r.Path, Reason: err.Error()})
			continue
		}
		h.mu.Lock()
		delete(h.lastWrite, r.Path)
		h.mu.Unlock()
		rep.Restored = append(rep.Restored, r.Path)
		done = append(done, r.ChangeIDs...)
	}
	if len(done) > 0 {
		if err := h.st.MarkReverted(ctx, done); err != nil {
			return rep, fmt.Errorf("files restored, but the history could not be updated: %w", err)
		}
	}
	return rep, nil
}
