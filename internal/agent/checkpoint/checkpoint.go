// Package checkpoint takes a checkpoint before every step of the agent
// that may change files, and restores the workspace to any of them.
//
// Bash can change any file, and which ones cannot be known before it
// runs, so a checkpoint cannot be a copy of the files a step names. The
// engine keeps a baseline of every workspace folder instead — each path's
// kind, mode, link target and content hash, with the stat figures that
// tell a change without reading (as git's index does) — and every content
// in the store, once per hash. Before a step it brings the baseline up to
// date (a change found then is someone else's: the person's, another
// program's); after the step it does again, and what changed is the
// step's checkpoint: each changed path's state before and after. On Linux
// inotify marks the changed paths, so a step costs in proportion to what
// it changed, not to the tree; elsewhere each refresh walks the tree
// (stat only). Links are recorded as links, never followed, and every
// read goes through an os.Root of the folder: nothing outside is read.
//
// A restore undoes the checkpoints from the chosen one on, newest last
// step first, but never over newer work: a path changed since the agent
// last left it is a conflict, reported with both versions and left alone.
// A restore is itself a checkpoint, so restoring to it undoes the restore
// (with RestoreOptions.Only, that restore alone: the steps since keep
// their changes).
package checkpoint

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/tools"
)

// Options bound what checkpoints keep (configuration's "checkpoints").
type Options struct {
	// MaxFileBytes: a larger file's content is not kept (the checkpoint
	// says so); 0 means no bound.
	MaxFileBytes int64
	// MaxFiles bounds the paths tracked per workspace folder; the rest are
	// not checkpointed (every checkpoint says so). 0 means no bound.
	MaxFiles int
	// MaxBytes bounds the content kept per workspace folder's baseline;
	// files beyond it are tracked by stat only. 0 means no bound.
	MaxBytes int64
	// Exclude are names (path.Match patterns on one path element) never
	// checkpointed, beside .git and node_modules; folders the workspace's
	// ignore files hide are not checkpointed either.
	Exclude []string
	// Keep and KeepBytes bound each session's checkpoints (count, and the
	// content only they keep); the oldest go first. 0 means no bound.
	Keep      int
	KeepBytes int64
}

// DefaultOptions are the bounds when the configuration names none.
func DefaultOptions() Options {
	return Options{MaxFileBytes: 4 << 20, MaxFiles: 100_000, MaxBytes: 512 << 20, Keep: 200, KeepBytes: 256 << 20}
}

// Step is the agent's call a checkpoint is taken before.
type Step struct {
	// SessionID is the session the checkpoint belongs to (a subagent's
	// steps belong to its parent); TurnID is its turn, which the
	// conversation goes back to before.
	SessionID, TurnID, CallID string
	Tool, Title               string
}

// Engine keeps the checkpoints of one workspace environment. It is safe
// for concurrent use; one refresh runs at a time.
type Engine struct {
	st   *store.Store
	ws   *tools.Workspace
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	trackers map[string]*tracker // by folder
	open     []*Pending          // steps running, oldest first
	closed   bool
	// unnamed are contents the baseline stopped naming (a file's version
	// before a change), to collect at the next checkpoint unless
	// something names them again.
	unnamed map[string]bool
	// walkOnly walks the tree at every refresh, as systems without a
	// watcher do (tests measure and check that way too).
	walkOnly bool
}

// New returns an engine over the workspace's folders, keeping its
// checkpoints in st. Nothing is read until the first step.
func New(st *store.Store, ws *tools.Workspace, opts Options, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{st: st, ws: ws, opts: opts, log: log, trackers: map[string]*tracker{}, unnamed: map[string]bool{}}
}

// Close stops watching the folders.
func (e *Engine) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, t := range e.trackers {
		t.close()
	}
	e.trackers = map[string]*tracker{}
}

// Prepare walks the folders now (the first walk reads every file), so the
// first step does not wait for it; and drops the baselines of workspace
// folders not used for IndexUnused. It may run late, while a step runs:
// what it finds changed then is that step's.
func (e *Engine) Prepare(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	changes, err := e.refreshLocked(ctx)
	if err == nil {
		e.attribute(changes)
		if _, perr := e.st.PruneIndexes(ctx, time.Now().Add(-IndexUnused)); perr != nil {
			e.log.Warn("prune the baselines of unused workspace folders", "error", perr)
		}
	}
	return err
}

// IndexUnused is how long a workspace folder's baseline (the stat cache
// and one version of each file) is kept after its last use; the folder
// opened again later is read afresh.
const IndexUnused = 60 * 24 * time.Hour

// Pending is a step begun and not yet ended: what it changed so far.
type Pending struct {
	e     *Engine
	step  Step
	kind  string
	conv  int
	files map[string]*store.CheckpointFile // by absolute path
	blobs map[string][]byte
	// untracked are paths changed during the step that the baseline does
	// not track (past checkpoints.max_files), with why: not kept.
	untracked map[string]string
	// person are the paths the person changed in the editor while the
	// step ran (PersonChanged).
	person map[string]bool
}

// Begin brings the baseline up to date before a step (what changed since
// is not the step's) and starts recording what the step changes.
func (e *Engine) Begin(ctx context.Context, s Step) (*Pending, error) {
	return e.begin(ctx, s, store.CheckpointStep, -1)
}

func (e *Engine) begin(ctx context.Context, s Step, kind string, conv int) (*Pending, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("checkpoints: closed")
	}
	changes, err := e.refreshLocked(ctx)
	if err != nil {
		return nil, err
	}
	e.attribute(changes)
	p := &Pending{e: e, step: s, kind: kind, conv: conv, files: map[string]*store.CheckpointFile{}, blobs: map[string][]byte{},
		untracked: map[string]string{}, person: map[string]bool{}}
	e.open = append(e.open, p)
	return p, nil
}

// refreshLocked syncs the trackers with the workspace's folders and
// refreshes each; changes come with absolute paths.
func (e *Engine) refreshLocked(ctx context.Context) (refreshed, error) {
	roots := e.ws.Roots()
	for path, t := range e.trackers {
		if !slices.Contains(roots, path) {
			t.close()
			delete(e.trackers, path)
		}
	}
	out := refreshed{changes: map[string][2]store.FileState{}, untracked: map[string]string{}, blobs: map[string][]byte{}}
	for _, r := range roots {
		t, ok := e.trackers[r]
		if !ok {
			var err error
			if t, err = openTracker(ctx, e.st, r, e.opts, !e.walkOnly); err != nil {
				return out, err
			}
			e.trackers[r] = t
			continue // its first walk is the baseline: no change to anyone
		}
		t.keepBefore = len(e.open) > 0 // the changes are a step's
		changes, err := t.refresh(ctx)
		if err != nil {
			return out, err
		}
		for _, c := range changes {
			if c.untracked != "" {
				out.untracked[joinRoot(r, c.rel)] = c.untracked
				continue
			}
			out.changes[joinRoot(r, c.rel)] = [2]store.FileState{c.before, c.after}
			if h := c.before.Hash; h != "" && h != c.after.Hash {
				e.unnamed[h] = true
			}
			if c.beforeData != nil {
				out.blobs[c.before.Hash] = c.beforeData
			}
		}
	}
	return out, nil
}

// refreshed is what a refresh found: each changed path's state before
// and after (absolute paths), and the changed paths the baseline does not
// track, with why.
type refreshed struct {
	changes   map[string][2]store.FileState
	untracked map[string]string
	// blobs are the contents before that the baseline stopped naming,
	// for the step's checkpoint to keep.
	blobs map[string][]byte
}

// attribute gives changes to the latest step running (when steps of two
// sessions overlap, a change belongs to the later one: restoring to
// before it undoes it); with none running they are someone else's and
// belong to no checkpoint.
func (e *Engine) attribute(r refreshed) {
	if len(e.open) == 0 {
		return
	}
	p := e.open[len(e.open)-1]
	for path, c := range r.changes {
		p.note(path, c[0], c[1], nil)
	}
	for h, d := range r.blobs {
		p.blobs[h] = d
	}
	for path, why := range r.untracked {
		p.untracked[path] = why
	}
}

// PersonChanged marks a path (absolute) the person changed in the editor
// — saved it, or edited its buffer — while steps run: what the running
// steps found changed in it is not theirs alone, so their checkpoints say
// so (FileState.Mixed) and a restore keeps the path, reporting a conflict
// with both versions, instead of reverting the person's work with the
// agent's. With no step running it does nothing: a change between steps
// is someone else's already. The front-end calls it for the editor's own
// changes, never for the edits the agent applies through the editor.
func (e *Engine) PersonChanged(abs string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.open {
		p.person[abs] = true
	}
}

// personMixed is why a path is marked Mixed.
const personMixed = "you changed it in the editor while the step ran"

// note records one path's change in the step: its first before, its last
// after. data, when set, is a content to keep.
func (p *Pending) note(path string, before, after store.FileState, blobs map[string][]byte) {
	if f, ok := p.files[path]; ok {
		f.After = after
	} else {
		p.files[path] = &store.CheckpointFile{Path: path, Before: before, After: after}
	}
	for h, d := range blobs {
		p.blobs[h] = d
	}
}

// RecordChange implements tools.Recorder: a file tool's change, with the
// text the agent saw and wrote (the editor's buffer when the file is
// open, which the disk may not hold yet), belongs to the session's
// running step.
func (e *Engine) RecordChange(_ context.Context, c tools.ChangeRecord) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.open) - 1; i >= 0; i-- {
		p := e.open[i]
		if c.SessionID != p.step.SessionID && !strings.HasPrefix(c.SessionID, p.step.SessionID+"-") {
			continue
		}
		mode := e.modeOf(c.Path)
		var before store.FileState
		blobs := map[string][]byte{}
		if c.BeforeExists {
			before = textState(c.Before, mode, blobs)
		}
		p.note(c.Path, before, textState(c.After, mode, blobs), blobs)
		return nil
	}
	return nil
}

// modeOf is a file's mode in the baseline (0644 for one it has not).
func (e *Engine) modeOf(abs string) uint32 {
	for root, t := range e.trackers {
		if rel, ok := relTo(root, abs); ok {
			if en, ok := t.entries[rel]; ok && en.State.Kind == store.KindFile {
				return en.State.Mode
			}
		}
	}
	return 0o644
}

// textState is a text content as a file's state, kept in blobs.
func textState(text string, mode uint32, blobs map[string][]byte) store.FileState {
	h := store.HashOf([]byte(text))
	blobs[h] = []byte(text)
	return store.FileState{Kind: store.KindFile, Mode: mode, Size: int64(len(text)), Hash: h}
}

// End brings the baseline up to date after the step, stores the step's
// checkpoint and prunes the session's oldest beyond the bounds.
func (p *Pending) End(ctx context.Context) (store.Checkpoint, error) {
	e := p.e
	e.mu.Lock()
	defer e.mu.Unlock()
	changes, err := e.refreshLocked(ctx)
	if err == nil {
		e.attribute(changes)
	}
	e.open = slices.DeleteFunc(e.open, func(q *Pending) bool { return q == p })
	if err != nil {
		return store.Checkpoint{}, err
	}
	return e.save(ctx, p)
}

// save stores a step's checkpoint (and prunes).
func (e *Engine) save(ctx context.Context, p *Pending) (store.Checkpoint, error) {
	c := store.Checkpoint{SessionID: p.step.SessionID, TurnID: p.step.TurnID, CallID: p.step.CallID, Tool: p.step.Tool,
		Title: p.step.Title, Kind: p.kind, ConvSeq: p.conv}
	if roots := e.ws.Roots(); len(roots) > 0 {
		c.Workspace = roots[0]
	}
	paths := make([]string, 0, len(p.files))
	for path := range p.files {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	blobs := map[string][]byte{}
	for _, path := range paths {
		f := p.files[path]
		if f.Before.Same(f.After) && f.After.NotKept == "" {
			continue // changed and changed back
		}
		if p.person[path] {
			f.After.Mixed = personMixed
		}
		c.Files = append(c.Files, *f)
		for _, s := range []store.FileState{f.Before, f.After} {
			if s.Hash != "" {
				c.Bytes += s.Size
				if d, ok := p.blobs[s.Hash]; ok {
					blobs[s.Hash] = d
				}
			}
		}
		if f.Before.NotKept != "" {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: its content before the step was not kept: %s", e.ws.Rel(path), f.Before.NotKept))
		}
	}
	for _, path := range slices.Sorted(maps.Keys(p.untracked)) {
		if _, recorded := p.files[path]; !recorded {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: changed, but not checkpointed: %s", e.ws.Rel(path), p.untracked[path]))
		}
	}
	for _, t := range e.trackers {
		if t.over != "" {
			c.Notes = append(c.Notes, t.over)
		}
	}
	id, err := e.st.AddCheckpoint(ctx, c, blobs)
	if err != nil {
		return c, err
	}
	c.ID = id
	if _, err := e.st.PruneCheckpoints(ctx, c.SessionID, e.opts.Keep, e.opts.KeepBytes); err != nil {
		e.log.Warn("prune checkpoints", "session", c.SessionID, "error", err)
	}
	// The versions the baseline stopped naming that no checkpoint took
	// (the person's changes between steps, a build's output rewritten)
	// go now. A running step's own are in its Pending and come back with
	// its checkpoint.
	if len(e.unnamed) > 0 {
		if err := e.st.CollectBlobs(ctx, slices.Collect(maps.Keys(e.unnamed))); err != nil {
			e.log.Warn("collect unused checkpoint contents", "error", err)
		} else {
			clear(e.unnamed)
		}
	}
	return c, nil
}

// Cancel ends a step without storing a checkpoint (it did not run).
func (p *Pending) Cancel() {
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	p.e.open = slices.DeleteFunc(p.e.open, func(q *Pending) bool { return q == p })
}

// List is a session's checkpoints, oldest first.
func (e *Engine) List(ctx context.Context, sessionID string) ([]store.Checkpoint, error) {
	return e.st.Checkpoints(ctx, sessionID)
}
