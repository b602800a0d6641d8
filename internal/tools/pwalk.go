package tools

// The parallel walker behind grep and glob: one worker a core lists
// folders and visits files, taking the pending work roughly in path
// order (so a search that needs nothing past a cut in path order finds
// its first results early and skips the rest; the order of its results is
// the caller's to make). It skips what walk skips (ignore files, version
// control and dependency folders) and opens every folder and file from
// its parent folder's handle, one name at a time, never following a link
// (dirhandle_*.go), so it cannot leave the folder it started in.

import (
	"container/heap"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// walkChunk is how many files of one folder make one piece of work, so
// the workers share a large folder.
const walkChunk = 64

// walkFile is one entry that is not a folder, found by walkParallel.
type walkFile struct {
	dir  *walkDir
	name string
	typ  fs.FileMode // the entry's type bits (a link is not followed)
}

// abs is the entry's absolute path.
func (f walkFile) abs() string { return f.dir.abs + string(filepath.Separator) + f.name }

// rel is the entry's path relative to the walk base, slash-separated.
func (f walkFile) rel() string { return joinRel(f.dir.rel, f.name) }

// walkDir is a folder being walked. Its handle, opened by the worker
// that lists it, stays open while its files are visited and its
// subfolders are opened from it.
type walkDir struct {
	parent *walkDir
	name   string
	rel    string // slash-separated, relative to the walk base ("" for it)
	abs    string
	h      dirHandle
	opened bool
	// frame is the ignore rules of the folder once listed (its parent's
	// before).
	frame *ignoreFrame
	// refs counts what still needs h: the listing, file chunks, and
	// subfolders not yet opened.
	refs atomic.Int32
}

// release drops one use of the folder's handle, closing it after the
// last.
func (d *walkDir) release() {
	if d.refs.Add(-1) == 0 && d.opened {
		d.h.close()
	}
}

// walkJob is a folder to list (files nil) or files of a listed folder
// to visit.
type walkJob struct {
	key   string // the folder's rel and "/", or its first file's rel
	dir   *walkDir
	files []fs.DirEntry
}

// walkVisit is what walkParallel calls: file for every file, from
// several goroutines at once (worker tells which, from 0 to
// workers-1); after, when not nil, for every folder and file before it
// is looked at, with its key (a folder's rel and "/", a file's rel): true
// skips it (a folder with all below it), for a search that needs nothing
// that sorts after some path.
type walkVisit struct {
	file  func(worker int, f walkFile) walkAction
	after func(key string) bool
}

// walkWorkers is how many goroutines walkParallel uses.
func walkWorkers() int { return runtime.GOMAXPROCS(0) }

// walkParallel visits the files below base (see walkVisit). An unreadable
// base is an error; unreadable folders below it are skipped. It stops at
// maxWalkEntries entries (which then depend on the order the workers
// took them in).
func (w *Workspace) walkParallel(ctx context.Context, base string, v walkVisit) (walkStats, error) {
	var stats walkStats
	p, baseRel, err := w.walkBase(base)
	if err != nil {
		return stats, err
	}
	defer p.release()
	h, err := openDirHandle(p.root, baseRel)
	if err != nil {
		return stats, fmt.Errorf("read folder %s: %w", base, p.named(err))
	}
	top := &walkDir{abs: filepath.Join(p.top, baseRel), h: h, opened: true, frame: ignoreChain(p, baseRel)}
	top.refs.Store(1)
	pw := &parallelWalk{ctx: ctx, visit: v, queue: heapOf[walkJob]{less: func(a, b walkJob) bool { return a.key < b.key }}}
	pw.cond.L = &pw.mu
	// The base is listed first, here, so that an unreadable one is an
	// error.
	if err := pw.list(top); err != nil {
		pw.drain()
		return stats, fmt.Errorf("read folder %s: %w", base, p.named(err))
	}
	var wg sync.WaitGroup
	for i := range walkWorkers() {
		wg.Go(func() { pw.work(i) })
	}
	wg.Wait()
	pw.drain()
	stats.limitHit = pw.limitHit.Load()
	return stats, ctx.Err()
}

// parallelWalk is the state the workers of one walk share.
type parallelWalk struct {
	ctx   context.Context
	visit walkVisit

	mu      sync.Mutex
	cond    sync.Cond
	queue   heapOf[walkJob] // by key
	pending int             // jobs queued or being done
	stopped bool

	entries  atomic.Int64
	limitHit atomic.Bool
}

// push queues a job.
func (pw *parallelWalk) push(j walkJob) {
	pw.mu.Lock()
	heap.Push(&pw.queue, j)
	pw.pending++
	pw.mu.Unlock()
	pw.cond.Signal()
}

// pop takes the job that sorts first, waiting while others are being
// done; ok is false once the walk is over or stopped.
func (pw *parallelWalk) pop() (walkJob, bool) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	for !pw.stopped && pw.queue.Len() == 0 && pw.pending > 0 {
		pw.cond.Wait()
	}
	if pw.stopped || pw.queue.Len() == 0 {
		return walkJob{}, false
	}
	return heap.Pop(&pw.queue).(walkJob), true
}

// done marks a popped job finished.
func (pw *parallelWalk) done() {
	pw.mu.Lock()
	pw.pending--
	end := pw.pending == 0
	pw.mu.Unlock()
	if end {
		pw.cond.Broadcast()
	}
}

// stop ends the walk: the workers take no more jobs.
func (pw *parallelWalk) stop() {
	pw.mu.Lock()
	pw.stopped = true
	pw.mu.Unlock()
	pw.cond.Broadcast()
}

// drain releases what the jobs left queued hold, once the workers are
// gone.
func (pw *parallelWalk) drain() {
	for _, j := range pw.queue.items {
		if j.files == nil {
			j.dir.parent.release()
		} else {
			j.dir.release()
		}
	}
	pw.queue.items = nil
}

// work does jobs until there are none.
func (pw *parallelWalk) work(worker int) {
	for {
		j, ok := pw.pop()
		if !ok {
			return
		}
		if pw.ctx.Err() != nil {
			pw.stop()
		}
		if j.files == nil {
			pw.open(j.dir)
		} else {
			pw.files(worker, j)
		}
		pw.done()
	}
}

// open opens a subfolder from its parent and lists it.
func (pw *parallelWalk) open(d *walkDir) {
	defer d.parent.release()
	if pw.skip(d.rel + "/") {
		return
	}
	h, err := d.parent.h.sub(d.name)
	if err != nil {
		return
	}
	d.h, d.opened = h, true
	d.refs.Store(1)
	pw.list(d)
}

// skip reports what the visit asks to skip.
func (pw *parallelWalk) skip(key string) bool {
	return pw.visit.after != nil && pw.visit.after(key)
}

// list reads a folder, applies its ignore files and queues its
// subfolders and its files. It drops the listing's use of d's handle.
func (pw *parallelWalk) list(d *walkDir) error {
	defer d.release()
	entries, err := d.h.list()
	if err != nil {
		return err
	}
	d.frame = d.frame.push(listedIgnores(entries), handleIgnores(d.h, d.abs))
	rules := d.frame.rules(d.abs)
	files := entries[:0]
	for _, e := range entries {
		isDir := e.IsDir()
		if isDir && skipDirName(e.Name()) {
			continue
		}
		if rules.ignored(e.Name(), isDir) {
			continue
		}
		if pw.entries.Add(1) > maxWalkEntries {
			pw.limitHit.Store(true)
			pw.stop()
			break
		}
		if !isDir {
			files = append(files, e)
			continue
		}
		sub := &walkDir{parent: d, name: e.Name(), rel: joinRel(d.rel, e.Name()), abs: d.abs + string(filepath.Separator) + e.Name(), frame: d.frame}
		d.refs.Add(1)
		pw.push(walkJob{key: sub.rel + "/", dir: sub})
	}
	for len(files) > 0 {
		n := min(len(files), walkChunk)
		d.refs.Add(1)
		pw.push(walkJob{key: joinRel(d.rel, files[0].Name()), dir: d, files: files[:n:n]})
		files = files[n:]
	}
	return nil
}

// files visits a chunk of a folder's files.
func (pw *parallelWalk) files(worker int, j walkJob) {
	defer j.dir.release()
	for _, e := range j.files {
		f := walkFile{dir: j.dir, name: e.Name(), typ: e.Type()}
		if pw.visit.after != nil && pw.visit.after(f.rel()) {
			continue
		}
		if pw.visit.file(worker, f) == walkStop {
			pw.stop()
			return
		}
	}
}

// handleIgnores reads the ignore files of the open folder h, whose
// absolute path is dir.
func handleIgnores(h dirHandle, dir string) ignoreReader {
	return func(elems ...string) *ignoreList {
		for _, folder := range elems[:len(elems)-1] {
			sub, err := h.sub(folder)
			if err != nil {
				return nil
			}
			defer sub.close()
			h = sub
		}
		name := elems[len(elems)-1]
		data, err := h.read(name, filepath.Join(dir, name), nil)
		if err != nil {
			return nil
		}
		return ignoreListFrom(data, dir)
	}
}

// joinRel joins a slash-separated relative folder ("" for the base) and
// a name.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
