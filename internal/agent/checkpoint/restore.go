package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent/store"
)

// Restore is what a restore did, for every front-end.
type Restore struct {
	// To is the checkpoint restored to; Undo is the checkpoint taken
	// before the restore: restoring to it undoes this one (0 when nothing
	// was recorded).
	To   int64 `json:"to"`
	Undo int64 `json:"undo,omitempty"`
	// Restored are the paths put back.
	Restored []string `json:"restored"`
	// Conflicts are paths changed by someone else after the agent's
	// step, with both versions: left as they are, or put back to that
	// someone's version rather than the checkpoint's (Reason says which).
	Conflicts []Conflict `json:"conflicts"`
	// Skipped are paths that could not be restored, with why.
	Skipped []Skipped `json:"skipped"`
}

// Conflict is a path whose newer version a restore did not overwrite.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Yours is the path's version now (kept); Checkpoint is the version
	// the checkpoint holds (not written to the workspace).
	Yours      Version `json:"yours"`
	Checkpoint Version `json:"checkpoint"`
}

// Version is one version of a path in a conflict.
type Version struct {
	Exists bool   `json:"exists"`
	Kind   string `json:"kind,omitempty"`
	Mode   string `json:"mode,omitempty"`
	Target string `json:"target,omitempty"`
	// Text is the content of a text file up to maxConflictText bytes.
	Text *string `json:"text,omitempty"`
	// Copy is a file holding this version outside the workspace, to
	// compare with (an editor opens the two as a diff).
	Copy string `json:"copy,omitempty"`
	// NotKept says why the content is unknown.
	NotKept string `json:"notKept,omitempty"`
}

// Skipped is a path a restore left alone, with why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Text is the restore in words, the same for every front-end (rel shows a
// path as the person knows it).
func (r Restore) Text(rel func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "restored to checkpoint %d: %d path(s) put back", r.To, len(r.Restored))
	for _, p := range r.Restored {
		b.WriteString("\n- " + rel(p))
	}
	if len(r.Conflicts) > 0 {
		fmt.Fprintf(&b, "\n%d conflict(s), your version kept:", len(r.Conflicts))
		for _, c := range r.Conflicts {
			fmt.Fprintf(&b, "\n- %s (%s)", rel(c.Path), c.Reason)
			if c.Checkpoint.Copy != "" {
				fmt.Fprintf(&b, "; the checkpoint's version is in %s", c.Checkpoint.Copy)
			}
		}
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "\n%d path(s) left alone:", len(r.Skipped))
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "\n- %s (%s)", rel(s.Path), s.Reason)
		}
	}
	if r.Undo != 0 {
		fmt.Fprintf(&b, "\nundo with a restore to checkpoint %d", r.Undo)
	}
	return b.String()
}

// maxConflictText bounds the text a conflict carries of each version.
const maxConflictText = 64 << 10

// RestoreOptions say what to restore to.
type RestoreOptions struct {
	SessionID string
	// To is the checkpoint: the workspace goes back to before its step.
	To int64
	// ConvSeq is the conversation before this restore, kept with the
	// restore's checkpoint so undoing it brings the conversation back;
	// -1 when the conversation is not restored.
	ConvSeq int
	// CopyDir receives the checkpoint's version of each conflict ("":
	// none written).
	CopyDir string
	// Only restores checkpoint To's own changes, not those of the
	// checkpoints after it (the undo of a restore): a path a later step
	// changed again is as it was not left by To, so it is kept and
	// reported as a conflict, and a path only later steps changed is
	// left as it is.
	Only bool
}

// action is one path a restore changes.
type action struct {
	path     string
	from, to store.FileState
}

// plan is what a restore will do, decided without I/O.
type plan struct {
	actions   []action
	conflicts []planConflict
	skipped   []Skipped
}

type planConflict struct {
	path, reason      string
	yours, checkpoint store.FileState
}

// pathNow is a path as it is now: view is what the agent and the person
// see (the editor's buffer when the file is open, on disk, else the disk),
// disk what the disk holds; skip, when set, says why it is left alone.
type pathNow struct {
	view, disk store.FileState
	skip       string
}

// planRestore decides, for every path the checkpoints (oldest first)
// changed, what restoring to the first of them does given now (each
// path's state now; a path missing from it is in no workspace folder).
// A path goes back to its state before the first checkpoint that changed
// it — or, when someone else changed it between two of the agent's steps,
// to that someone's version — and only when it is as the last step left
// it: otherwise it is a conflict, left alone.
func planRestore(cps []store.Checkpoint, now map[string]pathNow) plan {
	seqs := map[string][]store.CheckpointFile{}
	for _, c := range cps {
		for _, f := range c.Files {
			seqs[f.Path] = append(seqs[f.Path], f)
		}
	}
	var pl plan
	for _, path := range slices.Sorted(maps.Keys(seqs)) {
		seq := seqs[path]
		expect, target, orig := seq[len(seq)-1].After, seq[0].Before, seq[0].Before
		between, mixed := false, ""
		for _, f := range seq {
			if f.After.Mixed != "" {
				mixed = f.After.Mixed
			}
		}
		for i := len(seq) - 1; i >= 1; i-- {
			// Same, not sameState: a content not kept (too large) after
			// one step and before the next is the same unknown, not
			// someone else's change.
			if !seq[i-1].After.Same(seq[i].Before) {
				target, between = seq[i].Before, true
				break
			}
		}
		n, known := now[path]
		cur := n.view
		switch {
		case !known:
			pl.skipped = append(pl.skipped, Skipped{path, "not in an open workspace folder"})
		case n.skip != "":
			pl.skipped = append(pl.skipped, Skipped{path, n.skip})
		case sameState(cur, target) && sameState(n.disk, target):
			// already as it was, in the editor and on disk
		case mixed != "":
			pl.conflicts = append(pl.conflicts, planConflict{path, mixed + ", so it holds your change beside the agent's", cur, orig})
		case expect.Kind == store.KindFile && expect.Hash == "":
			pl.skipped = append(pl.skipped, Skipped{path, "its content after the agent's step was not kept (" + expect.NotKept + "), so whether it changed since cannot be told"})
		case !sameState(cur, expect):
			pl.conflicts = append(pl.conflicts, planConflict{path, "changed after the agent's step", cur, orig})
		case target.Kind == store.KindFile && target.Hash == "":
			pl.skipped = append(pl.skipped, Skipped{path, "its content before the step was not kept: " + target.NotKept})
		default:
			pl.actions = append(pl.actions, action{path: path, from: cur, to: target})
			if between {
				pl.conflicts = append(pl.conflicts, planConflict{path,
					"changed by someone else between the agent's steps: put back to that version, not to the checkpoint's", target, orig})
			}
		}
	}
	return pl
}

// sameState reports whether two states are known to be the same: a file
// whose content was not kept is never known to be.
func sameState(a, b store.FileState) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case store.KindFile:
		return a.Hash != "" && a.Hash == b.Hash && a.Mode == b.Mode
	case store.KindDir:
		return a.Mode == b.Mode
	case store.KindLink:
		return a.Target == b.Target
	}
	return true
}

// Restore puts the session's workspace back to before checkpoint To's
// step. The restore is itself a checkpoint (Restore.Undo).
func (e *Engine) Restore(ctx context.Context, o RestoreOptions) (Restore, error) {
	rep := Restore{To: o.To, Restored: []string{}, Conflicts: []Conflict{}, Skipped: []Skipped{}}
	cps, err := e.st.CheckpointsFrom(ctx, o.SessionID, o.To)
	if err != nil {
		return rep, err
	}
	if len(cps) == 0 || cps[0].ID != o.To {
		return rep, fmt.Errorf("checkpoint %d: %w of this session (see the list of checkpoints)", o.To, store.ErrNoCheckpoint)
	}
	if o.Only {
		cps = cps[:1]
	}
	p, err := e.begin(ctx, Step{SessionID: o.SessionID, Tool: "restore", Title: fmt.Sprintf("restore to checkpoint %d", o.To)},
		store.CheckpointRestore, o.ConvSeq)
	if err != nil {
		return rep, err
	}
	now, buffers := e.currentStates(cps)
	pl := planRestore(cps, now)
	rep.Skipped = append(rep.Skipped, pl.skipped...)
	for _, c := range pl.conflicts {
		rep.Conflicts = append(rep.Conflicts, e.conflict(ctx, c, buffers, o))
	}
	e.apply(ctx, p, pl.actions, buffers, &rep)
	c, err := p.End(ctx)
	if err != nil {
		return rep, fmt.Errorf("restored, but the restore's own checkpoint was not kept (it cannot be undone): %w", err)
	}
	rep.Undo = c.ID
	return rep, nil
}

// currentStates are the checkpoints' paths as they are now: on disk,
// from the baseline just refreshed (a path it does not track, from the
// disk), and, for a file open in the editor whose file is on disk, in its
// buffer (which the disk may not hold yet): buffers are the texts of
// those, which a restore changes through the editor. A buffer whose file
// is gone from disk does not stand for it: the disk says the file is
// missing, and a restore writes it.
func (e *Engine) currentStates(cps []store.Checkpoint) (map[string]pathNow, map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now, buffers := map[string]pathNow{}, map[string]string{}
	for _, c := range cps {
		for _, f := range c.Files {
			if _, done := now[f.Path]; done {
				continue
			}
			t, rel := e.trackerOf(f.Path)
			if t == nil {
				continue
			}
			en, tracked := t.entries[rel]
			if !tracked {
				if link := linkOnTheWay(t.root, rel); link != "" {
					now[f.Path] = pathNow{skip: linkSkip(link)}
					continue
				}
				if _, err := t.root.Lstat(rel); err == nil {
					now[f.Path] = pathNow{skip: "the checkpoints do not track it now (excluded, or past checkpoints.max_files), so whether it changed since cannot be told"}
					continue
				}
			}
			n := pathNow{view: en.State, disk: en.State}
			if n.disk.Kind == store.KindFile {
				if file, err := e.ws.ReadFile(f.Path); err == nil && file.Open {
					n.view = textState(file.Text, n.disk.Mode, map[string][]byte{})
					buffers[f.Path] = file.Text
				}
			}
			now[f.Path] = n
		}
	}
	return now, buffers
}

// trackerOf is the tracker of the folder holding abs, and abs relative to
// it.
func (e *Engine) trackerOf(abs string) (*tracker, string) {
	for root, t := range e.trackers {
		if rel, ok := relTo(root, abs); ok {
			return t, rel
		}
	}
	return nil, ""
}

// conflict describes a planned conflict with both versions, writing the
// checkpoint's into o.CopyDir.
func (e *Engine) conflict(ctx context.Context, c planConflict, buffers map[string]string, o RestoreOptions) Conflict {
	out := Conflict{Path: c.path, Reason: c.reason}
	out.Yours = e.version(ctx, c.yours, "")
	if t, open := buffers[c.path]; open && len(t) <= maxConflictText {
		out.Yours.Text = &t
	}
	copyTo := ""
	if o.CopyDir != "" {
		copyTo = filepath.Join(o.CopyDir, strconv.FormatInt(o.To, 10), e.ws.Rel(c.path))
	}
	out.Checkpoint = e.version(ctx, c.checkpoint, copyTo)
	return out
}

// version describes a state, with its text when it is a small text file,
// and writes its content to copyTo when set.
func (e *Engine) version(ctx context.Context, s store.FileState, copyTo string) Version {
	v := Version{Exists: s.Exists(), Kind: s.Kind, Target: s.Target, NotKept: s.NotKept}
	if s.Kind == store.KindFile || s.Kind == store.KindDir {
		v.Mode = fmt.Sprintf("%04o", s.Mode)
	}
	if s.Kind != store.KindFile || s.Hash == "" {
		return v
	}
	data, err := e.st.Blob(ctx, s.Hash)
	if err != nil {
		v.NotKept = err.Error()
		return v
	}
	if len(data) <= maxConflictText && utf8.Valid(data) {
		t := string(data)
		v.Text = &t
	}
	if copyTo != "" {
		if err := os.MkdirAll(filepath.Dir(copyTo), 0o700); err == nil && os.WriteFile(copyTo, data, 0o600) == nil {
			v.Copy = copyTo
		}
	}
	return v
}

// apply carries the actions out in an order that works: files and links
// out of the way, folders removed deepest first, folders made shallowest
// first (writable), files and links written, then folders' modes set.
// Each path passes the
// workspace's confinement first; a file open in the editor changes in its
// buffer (the editor's undo can take it back).
func (e *Engine) apply(ctx context.Context, p *Pending, actions []action, buffers map[string]string, rep *Restore) {
	depth := func(a action) int { return strings.Count(a.path, string(filepath.Separator)) }
	done := map[string]error{}
	fail := func(a action, err error) {
		if _, failed := done[a.path]; !failed {
			done[a.path] = err
		}
	}
	allowed := make([]action, 0, len(actions))
	for _, a := range actions {
		// The path's folder must be inside; the path itself may be a link
		// that leads out: a link is removed or written as a link, never
		// followed, and a file is replaced by a rename, never written
		// through a hard link.
		if err := e.ws.Outside(filepath.Dir(a.path)); err != nil {
			rep.Skipped = append(rep.Skipped, Skipped{a.path, err.Error() + " (not restored)"})
			continue
		}
		allowed = append(allowed, a)
	}
	actions = allowed
	type place struct {
		root *os.Root
		rel  string
	}
	places := map[string]place{}
	e.mu.Lock()
	for _, a := range actions {
		if t, rel := e.trackerOf(a.path); t != nil {
			places[a.path] = place{t.root, rel}
		}
	}
	e.mu.Unlock()
	actions = slices.DeleteFunc(actions, func(a action) bool {
		if _, ok := places[a.path]; !ok {
			rep.Skipped = append(rep.Skipped, Skipped{a.path, "not in an open workspace folder"})
			return true
		}
		return false
	})
	actions = slices.DeleteFunc(actions, func(a action) bool {
		// os.Root follows links that stay inside the folder: a folder on
		// the way the person replaced by a link to another folder of the
		// workspace would take the write, or the removal, to that folder's
		// file of the same name.
		pl := places[a.path]
		if link := linkOnTheWay(pl.root, pl.rel); link != "" {
			rep.Skipped = append(rep.Skipped, Skipped{a.path, linkSkip(link)})
			return true
		}
		return false
	})
	relOf := func(a action) (*os.Root, string) { pl := places[a.path]; return pl.root, pl.rel }
	// 1. files and links that go, or become something else
	for _, a := range actions {
		if (a.from.Kind == store.KindFile || a.from.Kind == store.KindLink) && a.to.Kind != store.KindFile {
			r, rel := relOf(a)
			if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fail(a, err)
			}
		}
	}
	// 2. folders that go, deepest first
	dirs := slices.Clone(actions)
	slices.SortStableFunc(dirs, func(x, y action) int { return depth(y) - depth(x) })
	for _, a := range dirs {
		if a.from.Kind == store.KindDir && a.to.Kind != store.KindDir {
			r, rel := relOf(a)
			if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fail(a, fmt.Errorf("the folder is not empty: it holds files the checkpoint does not know (%w)", err))
			}
		}
	}
	// 3. folders that come back, shallowest first
	slices.SortStableFunc(dirs, func(x, y action) int { return depth(x) - depth(y) })
	for _, a := range dirs {
		if a.to.Kind == store.KindDir && a.from.Kind != store.KindDir {
			r, rel := relOf(a)
			if err := r.MkdirAll(rel, 0o700); err != nil {
				fail(a, err)
			}
		}
	}
	// 4. files and links
	for _, a := range actions {
		if _, failed := done[a.path]; failed {
			continue
		}
		r, rel := relOf(a)
		switch a.to.Kind {
		case store.KindLink:
			if a.from.Kind == store.KindLink {
				_ = r.Remove(rel)
			}
			if err := r.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
				fail(a, err)
			} else if err := r.Symlink(a.to.Target, rel); err != nil {
				fail(a, err)
			}
		case store.KindFile:
			data, err := e.st.Blob(ctx, a.to.Hash)
			if err != nil {
				fail(a, err)
				continue
			}
			if text, open := buffers[a.path]; open && utf8.Valid(data) {
				if err := e.ws.Restore(ctx, a.path, string(data), true); err != nil {
					fail(a, err)
					continue
				}
				blobs := map[string][]byte{a.to.Hash: data}
				p.noteBuffer(a.path, textState(text, a.from.Mode, blobs), a.to, blobs)
				if fi, err := r.Lstat(rel); err == nil && fi.Mode().IsRegular() && uint32(fi.Mode().Perm()) != a.to.Mode&0o777 {
					_ = r.Chmod(rel, fs.FileMode(a.to.Mode)&fs.ModePerm)
				}
				continue
			}
			if err := writeFile(r, rel, data, fs.FileMode(a.to.Mode)); err != nil {
				fail(a, err)
			}
		}
	}
	// 5. folders' modes, deepest first, once their files are written (a
	// read-only folder takes none)
	slices.SortStableFunc(dirs, func(x, y action) int { return depth(y) - depth(x) })
	for _, a := range dirs {
		if _, failed := done[a.path]; !failed && a.to.Kind == store.KindDir {
			r, rel := relOf(a)
			if err := r.Chmod(rel, fs.FileMode(a.to.Mode)&fs.ModePerm); err != nil {
				fail(a, err)
			}
		}
	}
	for _, a := range actions {
		if err, failed := done[a.path]; failed {
			rep.Skipped = append(rep.Skipped, Skipped{a.path, err.Error()})
			continue
		}
		rep.Restored = append(rep.Restored, a.path)
	}
}

// linkSkip is why a path behind the link link is left alone.
func linkSkip(link string) string {
	return link + " is now a symbolic link: a restore does not write through it (not restored)"
}

// linkOnTheWay is the first folder on the way to rel (relative to r, rel
// itself excluded) that is a symbolic link, relative to r; "" when none
// is (a folder missing from there on is made by the restore).
func linkOnTheWay(r *os.Root, rel string) string {
	dir := filepath.Dir(rel)
	if dir == "." {
		return ""
	}
	parts := strings.Split(dir, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		fi, err := r.Lstat(p)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

// noteBuffer records a change the restore made in an editor's buffer,
// which the disk walk does not see.
func (p *Pending) noteBuffer(path string, before, after store.FileState, blobs map[string][]byte) {
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	p.note(path, before, after, blobs)
}

// writeFile replaces rel in r with data and mode, atomically: a temporary
// file beside it, then a rename.
func writeFile(r *os.Root, rel string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(rel)
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	perm := mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	for range 100 {
		tmp := filepath.Join(dir, "."+filepath.Base(rel)+".agentls-restore-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Chmod(perm)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = r.Rename(tmp, rel)
		}
		if err != nil {
			_ = r.Remove(tmp)
		}
		return err
	}
	return fmt.Errorf("no free name for a temporary file beside %s", rel)
}

// joinRoot is rel inside the folder root, absolute.
func joinRoot(root, rel string) string { return filepath.Join(root, rel) }

// relTo is abs relative to root, when it lies inside.
func relTo(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Mark takes a restore's checkpoint without restoring files (a restore of
// the conversation only), so that restore can be undone too.
func (e *Engine) Mark(ctx context.Context, o RestoreOptions) (Restore, error) {
	rep := Restore{To: o.To, Restored: []string{}, Conflicts: []Conflict{}, Skipped: []Skipped{}}
	p, err := e.begin(ctx, Step{SessionID: o.SessionID, Tool: "restore", Title: fmt.Sprintf("restore the conversation to checkpoint %d", o.To)},
		store.CheckpointRestore, o.ConvSeq)
	if err != nil {
		return rep, err
	}
	c, err := p.End(ctx)
	if err != nil {
		return rep, err
	}
	rep.Undo = c.ID
	return rep, nil
}
