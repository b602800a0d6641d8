package tools

// The file operations every tool uses on disk, each through the os.Root
// of the workspace folder holding the path (tools/roots.go).

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentls/agentls/internal/tools/confine"
)

// tempTries bounds the names tried for a temporary file.
const tempTries = 100

// statDisk returns the file or folder at abs, following symbolic links
// that stay inside its workspace folder.
func (w *Workspace) statDisk(abs string) (fs.FileInfo, error) {
	return inPlace(w, abs, true, func(p place, rel string) (fs.FileInfo, error) { return p.root.Stat(rel) })
}

// readDirDisk lists the folder at abs in name order.
func (w *Workspace) readDirDisk(abs string) ([]fs.DirEntry, error) {
	return inPlace(w, abs, true, func(p place, rel string) ([]fs.DirEntry, error) { return ReadDirIn(p.root, rel) })
}

// inPlace runs op on abs through its workspace folder's root (see
// place.inRoot; followLast follows a link at the end of the path), with
// errors naming abs.
func inPlace[T any](w *Workspace, abs string, followLast bool, op func(p place, rel string) (T, error)) (T, error) {
	var v T
	p, err := w.place(abs)
	if err != nil {
		return v, err
	}
	defer p.release()
	err = p.inRoot(followLast, func(rel string) error {
		var err error
		v, err = op(p, rel)
		return err
	})
	return v, p.named(err)
}

// ReadDirIn lists the folder rel of r in name order, never leaving r (a
// link out is refused). The entries' Info must not be used: it stats by
// path, outside the root; stat through the root instead.
func ReadDirIn(r *os.Root, rel string) ([]fs.DirEntry, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// readDisk reads the regular file at abs, at most MaxReadSize bytes,
// refusing a folder, a device or FIFO, a file over the limit and a file
// with more than one hard link (an *outsideError).
func (w *Workspace) readDisk(abs string) ([]byte, fs.FileInfo, error) {
	type read struct {
		data []byte
		fi   fs.FileInfo
	}
	r, err := inPlace(w, abs, true, func(p place, rel string) (read, error) {
		data, fi, err := p.readRegular(rel)
		return read{data, fi}, err
	})
	return r.data, r.fi, err
}

func (p place) readRegular(rel string) ([]byte, fs.FileInfo, error) {
	return readRegularIn(p.root, rel, p.abs, nil)
}

// readRegularIn reads the regular file rel of r (named abs in errors),
// at most MaxReadSize bytes, into buf (grown when too small), refusing
// what readDisk refuses.
func readRegularIn(r *os.Root, rel, abs string, buf []byte) ([]byte, fs.FileInfo, error) {
	fi, err := r.Stat(rel)
	if err != nil {
		return nil, nil, err
	}
	if err := regular(abs, fi); err != nil {
		return nil, nil, err
	}
	if fi.Size() > MaxReadSize {
		return nil, nil, tooLargeError(abs, fi.Size())
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|openReadFlag, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// Judge the file actually opened: it may have been swapped since Stat.
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	if err := regular(abs, fi); err != nil {
		return nil, nil, err
	}
	if n, _ := confine.LinkCount(fi, f); n > 1 {
		return nil, nil, &outsideError{path: abs, why: whyHardLinks(n)}
	}
	// Read through a limit: the file may grow after Stat.
	data, err := readUpTo(f, buf, fi.Size(), MaxReadSize+1)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", abs, err)
	}
	if len(data) > MaxReadSize {
		return nil, nil, tooLargeError(abs, int64(len(data)))
	}
	return data, fi, nil
}

// tooLargeError refuses the file abs of size bytes, over MaxReadSize.
func tooLargeError(abs string, size int64) error {
	return fmt.Errorf("%s is %d bytes, over the %d-byte limit for reading files (%w): read part of it with a shell command such as sed -n '1,200p', or ask the user", abs, size, MaxReadSize, errTooLarge)
}

// readUpTo reads f to its end or to limit bytes into buf, sized for a
// file of size bytes (one read, and one more that finds the end).
func readUpTo(f io.Reader, buf []byte, size int64, limit int) ([]byte, error) {
	if want := int(min(size, int64(limit))) + 1; cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(len(buf), limit-len(buf)))
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// regular refuses what is not a regular file; abs names it.
func regular(abs string, fi fs.FileInfo) error {
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory, not a file: use ls to list it", abs)
	}
	if !fi.Mode().IsRegular() {
		// Opening a FIFO or device could block or never end.
		return fmt.Errorf("%s is not a regular file (%s); agentls reads regular files only", abs, fi.Mode().Type())
	}
	return nil
}

// writeDisk replaces the file at abs with data atomically (see
// writeAtomic), creating its folders. A symbolic link that stays inside
// is written through (the link is kept); one that leads out, or a file
// with more than one hard link, is an *outsideError and nothing is
// written. expect, when not nil, is the file as the change was computed
// on; one that changed meanwhile is not replaced.
func (w *Workspace) writeDisk(abs string, data []byte, perm fs.FileMode, expect *onDisk) error {
	p, err := w.place(abs)
	if err != nil {
		return err
	}
	defer p.release()
	rel, err := p.resolveLinks(p.rel, true)
	switch {
	case isEscape(err):
		return &outsideError{path: p.abs, why: whyLinkOut}
	case err != nil:
		return p.named(err)
	case rel == ".":
		return fmt.Errorf("write %s: it is a workspace folder, not a file", p.abs)
	}
	return p.named(writeAtomic(p.root, rel, p.abs, data, perm, atomicOpts{expect: expect, pending: w.pendingDir()}))
}

// onDisk is what a write expects to replace: the file as it was read (its
// mtime and size), or no file at all.
type onDisk struct {
	exists  bool
	modTime time.Time
	size    int64
}

// expectOf is the disk file f was read from (File{Path} for none).
func expectOf(f File) *onDisk {
	return &onDisk{exists: !f.ModTime.IsZero(), modTime: f.ModTime, size: f.Size}
}

// still reports whether base in dir is still the file expected.
func (o *onDisk) still(dir *os.Root, base string) bool {
	fi, err := dir.Stat(base)
	if !o.exists {
		return errors.Is(err, fs.ErrNotExist)
	}
	return err == nil && fi.ModTime().Equal(o.modTime) && fi.Size() == o.size
}

// atomicOpts are writeAtomic's checks and records.
type atomicOpts struct {
	// expect, when not nil, is the file the write must replace.
	expect *onDisk
	// pending is the folder for the write's marker ("": none).
	pending string
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename, so a reader never sees half a file and a crash
// leaves the old content. The file gets mode perm. It is for files of
// agentls's own (diffs, outputs); the tools write workspace files through
// the workspace, confined to its folders.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create folder %s: %w", dir, err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer r.Close()
	return writeAtomic(r, filepath.Base(path), path, data, perm, atomicOpts{})
}

// writeAtomic writes data to rel (without symbolic links) in r: a
// temporary file in the same folder, synced, then renamed over rel. The
// folder is opened once and the temporary file is created and renamed in
// it; before the rename the folder must still be what rel's folder is
// through r, so a folder swapped for a link (or moved) meanwhile makes the
// write fail instead of landing elsewhere, and the file must still be
// o.expect (the sync before the rename can take long: a person saving
// meanwhile keeps their save). A marker in o.pending names the temporary
// file until the rename, so a process killed meanwhile leaves nothing
// behind for long (SweepPendingWrites). abs names the file in errors.
func writeAtomic(r *os.Root, rel, abs string, data []byte, perm fs.FileMode, o atomicOpts) error {
	dirRel, base := filepath.Dir(rel), filepath.Base(rel)
	if dirRel != "." {
		if err := r.MkdirAll(dirRel, 0o755); err != nil {
			return fmt.Errorf("create the folder of %s: %w", abs, err)
		}
	}
	dir, err := r.OpenRoot(dirRel)
	if err != nil {
		return fmt.Errorf("write %s: %w", abs, err)
	}
	defer dir.Close()
	if fi, err := dir.Lstat(base); err == nil {
		switch {
		case fi.IsDir():
			return fmt.Errorf("write %s: it is a folder; agentls writes files only", abs)
		case fi.Mode().IsRegular():
			if n := hardLinks(dir, base, fi); n > 1 {
				return &outsideError{path: abs, why: whyHardLinks(n)}
			}
		}
	}
	tmp, f, unmark, err := createTemp(dir, base, func(tmp string) (func(), error) {
		return markPending(o.pending, r.Name(), filepath.Join(dirRel, tmp))
	})
	if err != nil {
		return failedWrite(abs, err)
	}
	defer unmark()
	renamed := false
	defer func() {
		if !renamed {
			dir.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failedWrite(abs, err)
	}
	now, err := r.Stat(dirRel)
	if err != nil {
		return failedWrite(abs, err)
	}
	if here, err := dir.Stat("."); err != nil || !os.SameFile(now, here) {
		return fmt.Errorf("write %s: its folder was replaced or moved while writing, so nothing was written: check the folder and try again", abs)
	}
	if o.expect != nil && !o.expect.still(dir, base) {
		return fmt.Errorf("write %s: the file changed on disk while agentls was writing it, so nothing was written and the other change stands: view it again", abs)
	}
	if err := dir.Rename(tmp, base); err != nil {
		return failedWrite(abs, err)
	}
	renamed = true
	return nil
}

// failedWrite is the error of an atomic write that stopped before its
// rename: the file is as it was, and the hint says what the person can
// do about the cause.
func failedWrite(abs string, err error) error {
	hint := "check the folder and retry"
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, syscall.EFBIG):
		hint = "free some space on its disk (or raise the quota), then retry"
	case errors.Is(err, syscall.EROFS):
		hint = "its disk is mounted read-only: remount it read-write, then retry"
	case errors.Is(err, fs.ErrPermission):
		hint = "its folder is not writable: change its permissions, then retry"
	}
	return fmt.Errorf("write %s: %w; nothing was written and the file is as it was: %s", abs, err, hint)
}

// createTemp creates a new, empty file next to base in dir. mark records
// each name before the file is made (markPending) and returns what drops
// the record; createTemp returns that for the name it made.
func createTemp(dir *os.Root, base string, mark func(tmp string) (func(), error)) (string, *os.File, func(), error) {
	for range tempTries {
		name := "." + base + tempInfix + strconv.FormatUint(rand.Uint64(), 36)
		unmark, err := mark(name)
		if err != nil {
			return "", nil, nil, err
		}
		f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			unmark()
			continue
		}
		if err != nil {
			unmark()
			return "", nil, nil, err
		}
		return name, f, unmark, nil
	}
	return "", nil, nil, fmt.Errorf("no free name for a temporary file next to %s after %d tries", base, tempTries)
}

// removeDisk deletes the file at abs. A symbolic link there is deleted
// itself, not its target; a link that leads out on the way is an
// *outsideError.
func (w *Workspace) removeDisk(abs string) error {
	_, err := inPlace(w, abs, false, func(p place, rel string) (struct{}, error) { return struct{}{}, p.root.Remove(rel) })
	return err
}

// named puts the absolute path into a root operation's error, which
// names the path relative to the root, turns an escape into an
// *outsideError and explains a folder swapped under the operation.
func (p place) named(err error) error {
	if isEscape(err) {
		return &outsideError{path: p.abs, why: whyLinkOut}
	}
	if err := p.swapped(err); err != nil {
		return err
	}
	if pe, ok := err.(*fs.PathError); ok && !filepath.IsAbs(pe.Path) {
		return &fs.PathError{Op: strings.TrimSuffix(pe.Op, "at"), Path: p.abs, Err: pe.Err}
	}
	return err
}

// swapped explains the errors a folder replaced during an operation gives
// (a link where a folder was: ELOOP, ENOTDIR; something else where a
// folder was being made: EEXIST) by looking at the path again: leading
// out now is an *outsideError; every folder on it a folder (or missing)
// again means it changed meanwhile. It returns nil when err is not of
// that kind or the path explains it (a file where a folder should be; a
// link there now means it is still changing).
func (p place) swapped(err error) error {
	if !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, fs.ErrExist) {
		return nil
	}
	rel, rerr := p.resolveLinks(p.rel, true)
	if isEscape(rerr) {
		return &outsideError{path: p.abs, why: whyLinkOut}
	}
	if rerr != nil {
		return nil
	}
	for dir := filepath.Dir(rel); dir != "."; dir = filepath.Dir(dir) {
		if fi, err := p.root.Lstat(dir); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
			return nil // a file where a folder should be: err says so
		}
	}
	return fmt.Errorf("%s: a folder on its path was replaced while agentls used it (%v), so nothing was done: check the folder and try again", p.abs, err)
}
