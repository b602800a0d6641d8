package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/tools/confine"
)

// tracker keeps one workspace folder's baseline: every path's state as
// last seen, with the stat figures that tell a change without reading,
// and every kept content in the store. A refresh compares the folder with
// it (the paths the watcher marked, or the whole tree) and returns the
// changes; contents are read only for files whose stat changed.
type tracker struct {
	path string // the folder, absolute
	root *os.Root
	opts Options
	st   *store.Store

	entries map[string]store.IndexEntry // by path relative to the folder
	kept    int64                       // content bytes kept for the baseline
	watch   *watcher                    // nil: every refresh walks the tree
	// full makes the next refresh walk the tree (the watcher lost events,
	// or there is none).
	full bool
	// over says what the folder's bound on paths left out, for every
	// checkpoint; stop is the first path the last full walk left out
	// ("" when none): a path after it in walk order that the baseline does
	// not know may have been there all along, so it is not tracked.
	over, stop string
	// fullWalk is set while a full walk runs.
	fullWalk bool
	// ignored is this refresh's view of the folders the workspace's
	// ignore files hide.
	ignored *tools.IgnoredFolders
	// keepBefore makes a refresh read the contents the baseline stops
	// naming into its changes (a step runs, whose checkpoint will name
	// them); kept counts the changes already read.
	keepBefore bool
	keptTo     int
}

// change is one path found different from the baseline, or (untracked
// set) one the baseline does not track that changed: what a checkpoint
// says it did not keep.
type change struct {
	rel           string
	before, after store.FileState
	untracked     string
	// beforeData is the content before, read from the store before the
	// baseline stopped naming it (keepBefore), so no collection of unused
	// contents can take it before the step's checkpoint names it.
	beforeData []byte
}

// batch is what a refresh keeps in the store, in one transaction.
type batch struct {
	blobs map[string][]byte
	set   map[string]store.IndexEntry
	del   []string
	bytes int
}

func newBatch() *batch {
	return &batch{blobs: map[string][]byte{}, set: map[string]store.IndexEntry{}}
}

// flushBytes is how much content a batch gathers before it is written
// (the first walk of a large folder).
const flushBytes = 32 << 20

// openTracker opens a folder, loads its stored index (the stat cache of an
// earlier process) and walks it once, watching its folders where the
// system can.
func openTracker(ctx context.Context, st *store.Store, path string, opts Options, watch bool) (*tracker, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoints of %s: %w", path, err)
	}
	t := &tracker{path: path, root: r, opts: opts, st: st, full: true}
	if t.entries, err = st.Index(ctx, path); err != nil {
		r.Close()
		return nil, err
	}
	for _, e := range t.entries {
		if e.State.Hash != "" {
			t.kept += e.State.Size
		}
	}
	if watch {
		if w, err := newWatcher(); err == nil {
			t.watch = w
		}
	}
	if _, err := t.refresh(ctx); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func (t *tracker) close() {
	if t.watch != nil {
		t.watch.close()
	}
	t.root.Close()
}

// refresh brings the baseline up to date with the folder and returns what
// changed since the last refresh, in path order.
func (t *tracker) refresh(ctx context.Context) ([]change, error) {
	var changes []change
	t.keptTo = 0
	b := newBatch()
	t.ignored = tools.NewIgnoredFolders(t.path, t.root)
	if t.watch == nil {
		t.full = true // no watcher, or it ran out of watches
	}
	if t.watch != nil && !t.full {
		dirty := map[string]bool{}
		overflow, err := t.watch.drain(dirty)
		if err != nil || overflow {
			t.full = true
		} else {
			for _, rel := range slices.Sorted(maps.Keys(dirty)) {
				if err := t.check(ctx, rel, dirty[rel], b, &changes); err != nil {
					return nil, err
				}
			}
		}
	}
	if t.full {
		if t.watch != nil {
			// Events queued before the walk are about what it sees anyway.
			_, _ = t.watch.drain(map[string]bool{})
		}
		t.full = false
		t.over, t.stop = "", ""
		t.fullWalk = true
		err := t.walk(ctx, ".", b, &changes)
		t.fullWalk = false
		if err != nil {
			return nil, err
		}
	}
	if err := t.flushKeeping(ctx, b, changes); err != nil {
		return nil, err
	}
	slices.SortFunc(changes, func(a, b change) int { return strings.Compare(a.rel, b.rel) })
	return changes, nil
}

// check looks at one path the watcher marked: gone, changed, or a folder
// that appeared (walked whole, deep).
func (t *tracker) check(ctx context.Context, rel string, deep bool, b *batch, out *[]change) error {
	if rel == "." {
		if deep {
			return t.walk(ctx, ".", b, out)
		}
		return nil
	}
	fi, err := t.root.Lstat(rel)
	if t.excluded(rel, err == nil && fi.IsDir()) {
		t.untrack(rel, b)
		return nil
	}
	if err != nil {
		t.removeTree(rel, b, out)
		return nil
	}
	old, had := t.entries[rel]
	if !had {
		if why := t.untracked(rel); why != "" {
			*out = append(*out, change{rel: rel, untracked: why})
			return nil
		}
	}
	if fi.IsDir() {
		if deep || !had || old.State.Kind != store.KindDir {
			return t.walk(ctx, rel, b, out)
		}
		return t.observe(rel, fi, b, out)
	}
	if had && old.State.Kind == store.KindDir {
		t.removeTree(rel, b, out)
	}
	return t.observe(rel, fi, b, out)
}

// walk compares the subtree rel with the baseline: every path in it is
// observed, every path the baseline has below it and the walk did not see
// is gone. Folders are watched before they are listed, so nothing created
// meanwhile is missed.
func (t *tracker) walk(ctx context.Context, rel string, b *batch, out *[]change) error {
	seen := map[string]bool{}
	if rel != "." {
		fi, err := t.root.Lstat(rel)
		if err != nil {
			t.removeTree(rel, b, out)
			return nil
		}
		if !fi.IsDir() {
			return t.observe(rel, fi, b, out)
		}
		if err := t.observe(rel, fi, b, out); err != nil {
			return err
		}
		seen[rel] = true
	}
	if t.watch != nil {
		t.watch.forget(rel)
	}
	dir := t.root
	if rel != "." {
		sub, err := t.root.OpenRoot(rel)
		if err != nil {
			t.removeTree(rel, b, out)
			return nil
		}
		defer sub.Close()
		dir = sub
	}
	if err := t.walkDir(ctx, dir, rel, seen, b, out); err != nil {
		return err
	}
	for p := range t.entries {
		if !seen[p] && (rel == "." || under(p, rel)) {
			t.gone(p, b, out)
		}
	}
	return nil
}

// walkDir walks the folder dir (rel below the root), each entry through
// the folder's own root: one system call per entry, whatever its depth.
func (t *tracker) walkDir(ctx context.Context, dir *os.Root, rel string, seen map[string]bool, b *batch, out *[]change) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, err := dir.Open(".")
	if err != nil {
		return nil // gone or unreadable: its entries count as gone
	}
	if t.watch != nil {
		if err := t.watch.add(d, rel); err != nil {
			// Out of watches (fs.inotify.max_user_watches): walk from
			// now on, which the next refresh does.
			t.watch.close()
			t.watch = nil
		}
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil
	}
	slices.Sort(names)
	for _, name := range names {
		p := filepath.Join(rel, name)
		fi, err := dir.Lstat(name)
		if err != nil {
			continue
		}
		if t.excluded(p, fi.IsDir()) {
			t.untrack(p, b)
			continue
		}
		if _, known := t.entries[p]; !known {
			if why := t.untracked(p); why != "" {
				if !t.fullWalk {
					*out = append(*out, change{rel: p, untracked: why})
				}
				continue
			}
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			continue // devices, FIFOs, sockets: not files to keep
		}
		seen[p] = true
		if err := t.observe(p, fi, b, out); err != nil {
			return err
		}
		if fi.IsDir() {
			sub, err := dir.OpenRoot(name)
			if err != nil {
				continue
			}
			err = t.walkDir(ctx, sub, p, seen, b, out)
			sub.Close()
			if err != nil {
				return err
			}
		}
		if b.bytes >= flushBytes {
			if err := t.flushKeeping(ctx, b, *out); err != nil {
				return err
			}
		}
	}
	return nil
}

// observe compares one path with its baseline entry, reading a file only
// when its stat changed, and records a change.
func (t *tracker) observe(rel string, fi fs.FileInfo, b *batch, out *[]change) error {
	old, had := t.entries[rel]
	ino, ctime := statKey(fi)
	e := store.IndexEntry{MTime: fi.ModTime().UnixNano(), CTime: ctime, Ino: ino}
	mode := uint32(fi.Mode().Perm() | fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	switch {
	case fi.IsDir():
		if had && old.State.Kind == store.KindDir && old.State.Mode == mode {
			return nil // a folder's times change with its entries, which speak for themselves
		}
		e = store.IndexEntry{State: store.FileState{Kind: store.KindDir, Mode: mode}}
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := t.root.Readlink(rel)
		if err != nil {
			return nil
		}
		e.State = store.FileState{Kind: store.KindLink, Target: target}
	case fi.Mode().IsRegular():
		if had && old.State.Kind == store.KindFile && old.MTime == e.MTime && old.CTime == e.CTime && old.Ino == e.Ino &&
			old.State.Size == fi.Size() && old.State.Mode == mode {
			return nil // unchanged, as git's index tells it
		}
		e.State = t.readFile(rel, fi, mode, b)
	default:
		return nil
	}
	changed := !had || !old.State.Same(e.State) || e.State.NotKept != ""
	if had && old.State.Hash != "" {
		t.kept -= old.State.Size
	}
	if e.State.Hash != "" {
		t.kept += e.State.Size
	}
	t.entries[rel] = e
	b.set[rel] = e
	if changed {
		*out = append(*out, change{rel: rel, before: old.State, after: e.State})
	}
	return nil
}

// readFile reads a regular file's content into the batch, or says why it
// is not kept: over the size bounds, hard-linked (it may be a file outside
// the workspace), or swapped since its lstat.
func (t *tracker) readFile(rel string, fi fs.FileInfo, mode uint32, b *batch) store.FileState {
	s := store.FileState{Kind: store.KindFile, Mode: mode, Size: fi.Size()}
	if max := t.opts.MaxFileBytes; max > 0 && fi.Size() > max {
		s.NotKept = fmt.Sprintf("%d bytes, over checkpoints.max_file_bytes (%d)", fi.Size(), max)
		return s
	}
	if max := t.opts.MaxBytes; max > 0 && t.kept+fi.Size() > max {
		s.NotKept = fmt.Sprintf("the folder's kept content reached checkpoints.max_bytes (%d)", max)
		return s
	}
	f, err := t.root.OpenFile(rel, os.O_RDONLY|openFlag, 0)
	if err != nil {
		s.NotKept = "unreadable: " + err.Error()
		return s
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil || !ofi.Mode().IsRegular() || !os.SameFile(fi, ofi) {
		s.NotKept = "it changed while it was read"
		return s
	}
	if n, _ := confine.LinkCount(ofi, f); n > 1 {
		s.NotKept = fmt.Sprintf("it has %d hard links, so it may be a file outside the workspace: its content is not kept", n)
		return s
	}
	limit := t.opts.MaxFileBytes
	if limit <= 0 {
		limit = 1 << 40
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		s.NotKept = "unreadable: " + err.Error()
		return s
	}
	if int64(len(data)) > limit {
		s.NotKept = fmt.Sprintf("it grew over checkpoints.max_file_bytes (%d) while it was read", limit)
		return s
	}
	s.Size = int64(len(data))
	s.Hash = store.HashOf(data)
	if _, ok := b.blobs[s.Hash]; !ok {
		b.blobs[s.Hash] = data
		b.bytes += len(data)
	}
	return s
}

// removeTree drops rel and everything the baseline has below it: they
// are gone.
func (t *tracker) removeTree(rel string, b *batch, out *[]change) {
	for p := range t.entries {
		if p == rel || under(p, rel) {
			t.gone(p, b, out)
		}
	}
	if t.watch != nil {
		t.watch.forget(rel)
	}
}

func (t *tracker) gone(p string, b *batch, out *[]change) {
	old := t.entries[p]
	if old.State.Hash != "" {
		t.kept -= old.State.Size
	}
	delete(t.entries, p)
	delete(b.set, p)
	b.del = append(b.del, p)
	*out = append(*out, change{rel: p, before: old.State})
}

// flushKeeping is flush, reading first (keepBefore) the contents before
// of the changes since the last flush that the baseline stops naming:
// once it does, nothing in the store names them until the step's
// checkpoint is added, and a collection of unused contents (a prune, of
// any session, in any process) could take them in between.
func (t *tracker) flushKeeping(ctx context.Context, b *batch, changes []change) error {
	if t.keepBefore {
		for i := t.keptTo; i < len(changes); i++ {
			c := &changes[i]
			if h := c.before.Hash; h != "" && h != c.after.Hash {
				if d, ok := b.blobs[h]; ok {
					c.beforeData = d
				} else if d, err := t.st.Blob(ctx, h); err == nil {
					c.beforeData = d
				}
			}
		}
		t.keptTo = len(changes)
	}
	return t.flush(ctx, b)
}

// flush writes the batch (contents and index) and empties it.
func (t *tracker) flush(ctx context.Context, b *batch) error {
	err := t.st.SaveIndex(ctx, store.IndexUpdate{Workspace: t.path, Blobs: b.blobs, Set: b.set, Delete: b.del})
	*b = *newBatch()
	return err
}

// untracked says why a path the baseline does not know is not tracked
// now ("" when it is to be): the folder reached checkpoints.max_files, or
// the path comes after where the last full walk stopped at that bound, so
// it may have been there before the step (recording it as created would
// make a restore delete it).
func (t *tracker) untracked(rel string) string {
	max := t.opts.MaxFiles
	if max <= 0 {
		return ""
	}
	if len(t.entries) >= max {
		if t.fullWalk && t.over == "" {
			t.stop = rel
			t.over = fmt.Sprintf("the workspace folder %s has more than %d paths (checkpoints.max_files): %s and what follows it are not checkpointed", t.path, max, rel)
		}
		return fmt.Sprintf("the workspace folder has more than %d paths (checkpoints.max_files)", max)
	}
	if !t.fullWalk && t.stop != "" && !walkedBefore(rel, t.stop) {
		return fmt.Sprintf("the workspace folder has more than %d paths (checkpoints.max_files) and the checkpoints' walk stopped before it", max)
	}
	return ""
}

// walkedBefore reports whether a walk in name order, folders entered as
// they come, reaches p before stop (both relative, cleaned): a folder
// above stop comes before it, a path inside stop after.
func walkedBefore(p, stop string) bool {
	a, b := strings.Split(p, string(filepath.Separator)), strings.Split(stop, string(filepath.Separator))
	for i := range a {
		if i == len(b) {
			return false // inside stop
		}
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// defaultExclude are names never checkpointed whatever the
// configuration: .git (the person's repository, which git keeps) and
// node_modules (a dependency tree a package manager rebuilds).
var defaultExclude = []string{".git", "node_modules"}

// excluded reports a path checkpoints leave alone: a path element that
// defaultExclude or checkpoints.exclude names, or a folder on the way
// (the path itself when isDir) that the workspace's ignore files hide
// (build output, virtual environments: the files they hide, a .env, are
// kept).
func (t *tracker) excluded(rel string, isDir bool) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for _, part := range parts {
		if slices.Contains(defaultExclude, part) {
			return true
		}
		for _, pat := range t.opts.Exclude {
			if ok, _ := filepath.Match(pat, part); ok {
				return true
			}
		}
	}
	if t.ignored == nil {
		return false
	}
	n := len(parts) - 1
	if isDir {
		n++
	}
	for i := 1; i <= n; i++ {
		if t.ignored.Ignored(filepath.Join(parts[:i]...)) {
			return true
		}
	}
	return false
}

// untrack drops rel and what the baseline has below it without a change
// to anyone: it is excluded now (an exclude or ignore rule added), not
// gone.
func (t *tracker) untrack(rel string, b *batch) {
	if _, known := t.entries[rel]; !known {
		return
	}
	for p, old := range t.entries {
		if p == rel || under(p, rel) {
			if old.State.Hash != "" {
				t.kept -= old.State.Size
			}
			delete(t.entries, p)
			delete(b.set, p)
			b.del = append(b.del, p)
		}
	}
}

// under reports whether p lies below dir (both relative, cleaned).
func under(p, dir string) bool {
	if dir == "." {
		return p != "."
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// errNoTracker is a path in no workspace folder the engine tracks.
var errNoTracker = errors.New("not in a workspace folder")
