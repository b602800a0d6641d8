package tools

// One grep search over many files, from several workers at once. Its
// result is the same whichever order the files are searched in: the
// first grepMaxMatches matching lines in path order (and whether there
// are more). Once more than that many are found, files that sort after
// the one holding the last line needed are skipped unread.

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// grepFile is the matching lines of one file.
type grepFile struct {
	rel   string // its path in the search's order
	path  string // as shown
	lines []string
}

// grepSearch gathers the matches of one search.
type grepSearch struct {
	ws *Workspace
	m  *lineMatcher
	// bufs holds each worker's read buffer.
	bufs [][]byte

	mu    sync.Mutex
	files []grepFile
	count int
	// skipped names files left out (too large, leading outside), to be
	// counted if they sort before the cut.
	skipped []grepSkip
	// cut, once more than grepMaxMatches lines are held, is the rel of
	// the file holding the last one needed: files after it are not.
	cut atomic.Pointer[string]
}

// grepSkip is a file the search left out, and why.
type grepSkip struct {
	rel      string
	tooLarge bool
}

func newGrepSearch(ws *Workspace, m *lineMatcher) *grepSearch {
	return &grepSearch{ws: ws, m: m, bufs: make([][]byte, walkWorkers())}
}

// after reports whether everything at or after key is past the cut.
func (s *grepSearch) after(key string) bool {
	cut := s.cut.Load()
	return cut != nil && key > *cut
}

// named searches the one file the model named as path.
func (s *grepSearch) named(abs string) {
	f, err := s.ws.ReadFile(abs)
	if err != nil {
		s.skip("", err)
		return
	}
	s.add("", abs, []byte(f.Text), false)
}

// walked searches a file the walk found (rel its walkFile.rel), from the
// editor's buffer when it is open there, else from disk through its
// folder's handle.
func (s *grepSearch) walked(worker int, f walkFile, rel string) {
	abs := f.abs()
	if s.ws.overlay != nil {
		if d, ok := s.ws.overlay.Document(abs); ok {
			s.add(rel, abs, []byte(d.Text), false)
			return
		}
	}
	switch {
	case f.typ&os.ModeSymlink != 0:
		// A link is read only when it leads to a regular file inside;
		// one that leads out is counted, not read.
		fi, err := s.ws.statDisk(abs)
		if err != nil || !fi.Mode().IsRegular() {
			s.skip(rel, err)
			return
		}
		file, err := s.ws.ReadFile(abs)
		if err != nil {
			s.skip(rel, err)
			return
		}
		s.add(rel, abs, []byte(file.Text), false)
	case f.typ.IsRegular():
		data, err := f.dir.h.read(f.name, abs, s.bufs[worker])
		if err != nil {
			s.skip(rel, err)
			return
		}
		s.bufs[worker] = data
		s.add(rel, abs, data, true)
	}
}

// skip notes a file left out because it is too large or leads outside
// the workspace; other failures (binary, unreadable) are not reported.
func (s *grepSearch) skip(rel string, err error) {
	var oe *outsideError
	tooLarge := errors.Is(err, errTooLarge)
	if !tooLarge && !errors.As(err, &oe) {
		return
	}
	s.mu.Lock()
	s.skipped = append(s.skipped, grepSkip{rel: rel, tooLarge: tooLarge})
	s.mu.Unlock()
}

// add searches text, the content of the file abs (rel in the search's
// order); sniff is set for text from disk, which may be binary (checked
// only once a line matches).
func (s *grepSearch) add(rel, abs string, text []byte, sniff bool) {
	var lines []string
	s.m.scan(text, func(n int, line []byte, start int) bool {
		if sniff && lines == nil && IsBinary(text) {
			return false
		}
		lines = append(lines, fmt.Sprintf("  Line %d: %s", n, matchWindow(string(line), start)))
		return len(lines) <= grepMaxMatches
	})
	if len(lines) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = append(s.files, grepFile{rel: rel, path: display(s.ws, abs), lines: lines})
	s.count += len(lines)
	if s.count > grepMaxMatches {
		s.trim()
	}
}

// trim keeps the files that hold the first grepMaxMatches+1 lines in
// path order and sets the cut at the last of them. s.mu is held.
func (s *grepSearch) trim() {
	slices.SortFunc(s.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	n := 0
	for i, f := range s.files {
		if n += len(f.lines); n > grepMaxMatches {
			s.files, s.count = s.files[:i+1], n
			cut := f.rel
			s.cut.Store(&cut)
			return
		}
	}
}

// grepOutcome is a finished search: the files to show, in path order.
type grepOutcome struct {
	files     []grepFile
	count     int
	truncated bool
	tooLarge  int
	outside   int
}

// outcome ends the search: the first grepMaxMatches lines and what was
// skipped before the cut.
func (s *grepSearch) outcome() grepOutcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.SortFunc(s.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	var o grepOutcome
	for _, f := range s.files {
		if o.count+len(f.lines) > grepMaxMatches {
			f.lines = f.lines[:grepMaxMatches-o.count]
			o.truncated = true
		}
		if len(f.lines) > 0 {
			o.files = append(o.files, f)
			o.count += len(f.lines)
		}
		if o.truncated {
			break
		}
	}
	for _, sk := range s.skipped {
		if s.after(sk.rel) {
			continue
		}
		if sk.tooLarge {
			o.tooLarge++
		} else {
			o.outside++
		}
	}
	return o
}
