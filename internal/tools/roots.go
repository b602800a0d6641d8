package tools

// The workspace's folders as open os.Root handles. Every file operation
// of the tools (read, list, stat, atomic write, delete) goes through the
// root that holds the path, with the path made relative to it, so the
// check that a path is inside and the operation on it are one system
// call: a symbolic link swapped in between cannot lead the operation out
// (os.Root follows links only while they stay inside and fails on an
// escape). See docs/security.md, "Confinement of file tools".

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// errClosed is an operation on a workspace after Close.
var errClosed = errors.New("the workspace is closed: agentls is shutting down")

// errLinkOut is a symbolic link leading out of a workspace folder, found
// while resolving a path inside it.
var errLinkOut = errors.New("path escapes from parent")

// maxLinks bounds the symbolic links followed while resolving one path.
const maxLinks = 40

// rootDir is one workspace folder. Its os.Root is opened on first use, so
// a folder that does not exist yet works once it is created.
type rootDir struct {
	path string // absolute and cleaned, as configured
	real string // path with symbolic links resolved when the roots were set

	mu   sync.Mutex
	root *os.Root
}

// handle returns the folder's open root, opening it if needed.
func (d *rootDir) handle() (*os.Root, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.root != nil {
		return d.root, nil
	}
	r, err := os.OpenRoot(d.path)
	if err != nil {
		return nil, fmt.Errorf("open workspace folder %s: %w; check that it exists and is readable, or reopen the workspace", d.path, err)
	}
	d.root = r
	return r, nil
}

// close closes the folder's root if it was opened.
func (d *rootDir) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.root != nil {
		d.root.Close()
		d.root = nil
	}
}

// relOf returns abs relative to the folder (through its configured or its
// resolved path) and which of the two prefixes abs starts with.
func (d *rootDir) relOf(abs string) (rel, top string, ok bool) {
	for _, top := range []string{d.path, d.real} {
		if within(top, abs) {
			if rel, err := filepath.Rel(top, abs); err == nil {
				return rel, top, true
			}
		}
	}
	return "", "", false
}

// rootSet is the folders of one SetRoots call. It is closed once it has
// been replaced (or the workspace closed) and its last user released it,
// so a walk running while the editor changes folders finishes on the
// roots it started with.
type rootSet struct {
	dirs []*rootDir

	mu      sync.Mutex
	users   int
	retired bool
}

func newRootSet(paths []string) *rootSet {
	s := &rootSet{}
	for _, p := range paths {
		s.dirs = append(s.dirs, &rootDir{path: p, real: resolveExisting(p)})
	}
	return s
}

// hold marks a user; it fails once the set is retired.
func (s *rootSet) hold() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retired {
		return false
	}
	s.users++
	return true
}

// release ends a hold, closing the set when it was its last one.
func (s *rootSet) release() {
	s.mu.Lock()
	s.users--
	done := s.retired && s.users == 0
	s.mu.Unlock()
	if done {
		s.closeAll()
	}
}

// retire closes the set now or, when in use, at its last release.
func (s *rootSet) retire() {
	s.mu.Lock()
	already := s.retired
	s.retired = true
	done := !already && s.users == 0
	s.mu.Unlock()
	if done {
		s.closeAll()
	}
}

func (s *rootSet) closeAll() {
	for _, d := range s.dirs {
		d.close()
	}
}

// place is a path inside a workspace folder, with the folder's root held
// open until release.
type place struct {
	set  *rootSet
	dir  *rootDir
	root *os.Root
	abs  string // the path as given, cleaned
	top  string // the folder's path in abs's terms (configured or resolved)
	rel  string // abs relative to the folder, "." for the folder itself
}

// release lets the folders be closed once replaced.
func (p place) release() { p.set.release() }

// place finds the workspace folder holding abs and holds its root open.
// A path under no folder is an *outsideError. When several folders hold
// abs (nested folders), the outermost is used, so a link from the inner
// one to the outer one stays inside.
func (w *Workspace) place(abs string) (place, error) {
	abs = filepath.Clean(abs)
	w.mu.RLock()
	set := w.set
	held := set.hold()
	w.mu.RUnlock()
	if !held {
		return place{}, errClosed
	}
	p := place{set: set, abs: abs}
	pick := func(match func(d *rootDir) (string, string, bool)) bool {
		for _, d := range set.dirs {
			rel, top, ok := match(d)
			if ok && (p.dir == nil || len(top) < len(p.top)) {
				p.dir, p.top, p.rel = d, top, rel
			}
		}
		return p.dir != nil
	}
	found := pick(func(d *rootDir) (string, string, bool) { return d.relOf(abs) })
	if !found {
		// A path reaching a folder through a link outside it (the folder's
		// parent is a link, say): where it leads decides.
		real := resolveExisting(abs)
		found = pick(func(d *rootDir) (string, string, bool) { return d.relOf(real) })
	}
	if !found {
		set.release()
		return place{}, &outsideError{path: abs, why: whyNoFolder}
	}
	r, err := p.dir.handle()
	if err != nil {
		set.release()
		return place{}, err
	}
	p.root = r
	return p, nil
}

// inRoot runs op on the place's relative path. When the root refuses it as
// an escape, the path is resolved by resolveLinks (an absolute link back
// into the folder is an escape to os.Root) and op runs once more on the
// result; an escape then is an *outsideError.
func (p place) inRoot(followLast bool, op func(rel string) error) error {
	err := op(p.rel)
	if !isEscape(err) {
		return err
	}
	rel, rerr := p.resolveLinks(p.rel, followLast)
	switch {
	case isEscape(rerr):
		return &outsideError{path: p.abs, why: whyLinkOut}
	case rerr != nil:
		return rerr
	}
	if err := op(rel); isEscape(err) {
		return &outsideError{path: p.abs, why: whyLinkOut}
	} else {
		return err
	}
}

// resolveLinks resolves the symbolic links in rel through the root,
// following the last element too when followLast is set, and returns a
// path without links (as of now) relative to the root. A link that leads
// out, absolute or by "..", is errLinkOut; an absolute link back into the
// folder becomes relative. Elements that do not exist are kept as they
// are. It only computes a name: the operation on it still goes through
// the root, so a link swapped in afterwards is refused there.
func (p place) resolveLinks(rel string, followLast bool) (string, error) {
	todo := splitRel(rel)
	var done []string
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", errLinkOut
			}
			done = done[:len(done)-1]
			continue
		}
		if len(todo) == 0 && !followLast {
			done = append(done, name)
			break
		}
		cur := filepath.Join(append(append([]string(nil), done...), name)...)
		fi, err := p.root.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			done = append(done, name)
			done = append(done, todo...)
			break
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, name)
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: more than %d symbolic links in a chain (a loop?)", filepath.Join(p.top, rel), maxLinks)
		}
		target, err := p.root.Readlink(cur)
		if errors.Is(err, syscall.EINVAL) {
			// No longer a link: it changed since Lstat; look again.
			todo = append([]string{name}, todo...)
			continue
		}
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) || filepath.VolumeName(target) != "" || strings.HasPrefix(target, string(filepath.Separator)) {
			in, _, ok := p.dir.relOf(filepath.Clean(target))
			if !ok {
				return "", errLinkOut
			}
			done, target = nil, in
		}
		todo = append(splitRel(target), todo...)
	}
	out := filepath.Clean(filepath.Join(append([]string{"."}, done...)...))
	if out == ".." || strings.HasPrefix(out, ".."+string(filepath.Separator)) {
		return "", errLinkOut // "missing/../.." climbs out
	}
	return out, nil
}

// splitRel splits a relative path into its elements (either separator on
// Windows).
func splitRel(rel string) []string {
	return strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == filepath.Separator })
}

// isEscape reports an operation refused because the path leads out of
// its root. os.Root does not export its error, so its text is matched
// (TestEscapeErrorRecognised fails when Go changes it).
func isEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err == errLinkOut || err.Error() == errLinkOut.Error() {
			return true
		}
	}
	return false
}
