// Package overlay keeps the text of the documents open in the editor, as
// the editor has them (unsaved changes included), so that every tool reads
// what the person sees rather than stale disk.
//
// Positions follow LSP: zero-based lines and UTF-16 code-unit columns; "\n",
// "\r\n" and "\r" all end a line. A document is stored as a slice of lines,
// so an incremental change costs the size of the lines it touches, not the
// size of the document.
//
// Store.Wait lets a caller that asked the editor to change a buffer wait
// for the editor's didChange: it wakes on every open, change and close.
// Package docsync, beside this one, forwards the same events to the
// language servers.
package overlay

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Position is an LSP position: zero-based line, UTF-16 column.
type Position struct {
	Line      uint32
	Character uint32
}

// Range is an LSP range, end exclusive.
type Range struct {
	Start, End Position
}

// Change is one content change of didChange: a Range edit, or the whole
// text when Range is nil.
type Change struct {
	Range *Range
	Text  string
}

// Doc is one open document.
type Doc struct {
	URI        string
	Path       string
	LanguageID string
	Version    int32

	lines []string // each line with its terminator; the last may have none
	text  string   // cached join of lines, valid when cached
	// cached is true when text equals the join of lines.
	cached bool
}

func newDoc(uri, path, lang string, version int32, text string) *Doc {
	return &Doc{URI: uri, Path: path, LanguageID: lang, Version: version, lines: splitLines(text), text: text, cached: true}
}

// Text returns the whole document.
func (d *Doc) Text() string {
	if !d.cached {
		var b strings.Builder
		n := 0
		for _, l := range d.lines {
			n += len(l)
		}
		b.Grow(n)
		for _, l := range d.lines {
			b.WriteString(l)
		}
		d.text, d.cached = b.String(), true
	}
	return d.text
}

// LineCount is the number of lines as LSP counts them (a trailing
// terminator starts an empty last line).
func (d *Doc) LineCount() int { return len(d.lines) }

// apply applies one change.
func (d *Doc) apply(c Change) error {
	if c.Range == nil {
		d.lines, d.text, d.cached = splitLines(c.Text), c.Text, true
		return nil
	}
	r := *c.Range
	if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Character < r.Start.Character {
		return fmt.Errorf("range end %d:%d is before start %d:%d", r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	sl, sb := d.locate(r.Start)
	el, eb := d.locate(r.End)
	if sl > el || sl == el && sb > eb {
		// Both were clamped past the end; treat as an insertion there.
		el, eb = sl, sb
	}
	joined := d.lines[sl][:sb] + c.Text + d.lines[el][eb:]
	repl := splitLines(joined)
	// splitLines of a string ending in a terminator yields a final "" line;
	// only the document's last line may be empty, so drop it when the
	// replaced span did not reach the end of the document.
	if el < len(d.lines)-1 && len(repl) > 0 && repl[len(repl)-1] == "" {
		repl = repl[:len(repl)-1]
	}
	d.lines = splice(d.lines, sl, el+1, repl)
	d.cached = false
	// A lone "\r" followed by a line starting with "\n" is now one "\r\n"
	// terminator: re-split across both seams of the replaced span.
	d.mergeCRLF(sl + len(repl) - 1)
	d.mergeCRLF(sl - 1)
	return nil
}

// mergeCRLF repairs the seam after line i when line i ends in "\r" and the
// next line starts with "\n".
func (d *Doc) mergeCRLF(i int) {
	if i < 0 || i+1 >= len(d.lines) || !strings.HasSuffix(d.lines[i], "\r") || !strings.HasPrefix(d.lines[i+1], "\n") {
		return
	}
	merged := splitLines(d.lines[i] + d.lines[i+1])
	if i+2 < len(d.lines) && len(merged) > 0 && merged[len(merged)-1] == "" {
		merged = merged[:len(merged)-1]
	}
	d.lines = splice(d.lines, i, i+2, merged)
}

func splice(lines []string, from, to int, repl []string) []string {
	delta := len(repl) - (to - from)
	switch {
	case delta == 0:
		copy(lines[from:], repl)
		return lines
	case delta < 0:
		copy(lines[from:], repl)
		n := copy(lines[from+len(repl):], lines[to:])
		for i := from + len(repl) + n; i < len(lines); i++ {
			lines[i] = ""
		}
		return lines[:from+len(repl)+n]
	}
	lines = append(lines, make([]string, delta)...)
	copy(lines[to+delta:], lines[to:len(lines)-delta])
	copy(lines[from:], repl)
	return lines
}

// locate turns an LSP position into (line index, byte offset in that line's
// content). Past-the-end positions clamp as the spec says: a character past
// the line's length means the end of the line; a line past the end means
// the end of the document.
func (d *Doc) locate(p Position) (int, int) {
	if int(p.Line) >= len(d.lines) {
		last := len(d.lines) - 1
		return last, len(d.lines[last])
	}
	line := d.lines[p.Line]
	content := line[:len(line)-terminatorLen(line)]
	return int(p.Line), UTF16ToByte(content, int(p.Character))
}

// Offset returns the byte offset in text of an LSP position, clamped the
// way the spec says (past the line's end: its end; past the last line:
// the end of text). Line ends are those of didChange: "\n", "\r\n", "\r".
func Offset(text string, p Position) int {
	d := newDoc("", "", "", 0, text)
	line, b := d.locate(p)
	for _, l := range d.lines[:line] {
		b += len(l)
	}
	return b
}

// UTF16ToByte returns the byte offset in s of the UTF-16 column col,
// clamped to len(s). A column inside a surrogate pair rounds down to the
// start of the character.
func UTF16ToByte(s string, col int) int {
	units := 0
	for i, r := range s {
		if units >= col {
			return i
		}
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > col {
			return i
		}
		units += n
	}
	return len(s)
}

// ByteToUTF16 returns the UTF-16 column of byte offset b in s.
func ByteToUTF16(s string, b int) int {
	if b > len(s) {
		b = len(s)
	}
	n := 0
	for _, r := range s[:b] {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// UTF16Len is the length of s in UTF-16 code units.
func UTF16Len(s string) int {
	if !hasNonASCII(s) {
		return len(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

func terminatorLen(line string) int {
	switch {
	case strings.HasSuffix(line, "\r\n"):
		return 2
	case strings.HasSuffix(line, "\n"), strings.HasSuffix(line, "\r"):
		return 1
	}
	return 0
}

// splitLines splits text into lines that keep their terminators. The result
// always has at least one element; text ending in a terminator ends with "".
func splitLines(text string) []string {
	lines := make([]string, 0, strings.Count(text, "\n")+1)
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, text[start:i+1])
			start = i + 1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			lines = append(lines, text[start:i+1])
			start = i + 1
		}
	}
	return append(lines, text[start:])
}

// Store is the set of open documents, safe for concurrent use.
type Store struct {
	mu   sync.RWMutex
	docs map[string]*Doc // by path
	// changed is closed and replaced on every open, change and close,
	// waking Wait.
	changed chan struct{}
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{docs: map[string]*Doc{}, changed: make(chan struct{})} }

// signalLocked wakes every Wait; s.mu is held for writing.
func (s *Store) signalLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Wait waits until ok holds for the document at path — called with its
// text and version, or with open false while it is not open — or ctx
// ends, and reports whether ok held. It wakes on every didOpen, didChange
// and didClose, so a caller that asked the editor to change a buffer can
// wait for the editor's didChange without polling.
func (s *Store) Wait(ctx context.Context, path string, ok func(text string, version int32, open bool) bool) bool {
	path = filepath.Clean(path)
	for {
		s.mu.Lock() // Text may fill the cache.
		ch := s.changed
		d, open := s.docs[path]
		var text string
		var version int32
		if open {
			text, version = d.Text(), d.Version
		}
		s.mu.Unlock()
		if ok(text, version, open) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-ch:
		}
	}
}

// Open records a didOpen. Re-opening an open document replaces it.
func (s *Store) Open(uri, lang string, version int32, text string) error {
	path, err := URIToPath(uri)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = newDoc(uri, path, lang, version, text)
	s.signalLocked()
	return nil
}

// Change applies a didChange. Changes apply in order; an error leaves the
// document as it was before the call. A version that does not increase is
// applied (the editor's text is the truth) and reported in warn.
func (s *Store) Change(uri string, version int32, changes []Change) (warn string, err error) {
	path, err := URIToPath(uri)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[path]
	if !ok {
		return "", fmt.Errorf("didChange for %s, which was never opened: send didOpen first", uri)
	}
	if version <= d.Version {
		warn = fmt.Sprintf("didChange for %s: version %d does not increase on %d", uri, version, d.Version)
	}
	// A batch applies to a copy of the lines so a failure leaves d intact.
	// A single change fails only before it touches anything, so it works
	// in place: the common case costs the lines it changes, not the
	// document.
	work := &Doc{lines: d.lines}
	if len(changes) > 1 {
		work.lines = append([]string(nil), d.lines...)
	}
	for i, c := range changes {
		if err := work.apply(c); err != nil {
			if len(changes) == 1 {
				return warn, fmt.Errorf("didChange for %s: change %d: %w", uri, i+1, err)
			}
			return warn, fmt.Errorf("didChange for %s: change %d: %w (no change applied)", uri, i+1, err)
		}
	}
	d.lines, d.cached, d.text = work.lines, false, ""
	d.Version = version
	s.signalLocked()
	return warn, nil
}

// Close forgets a document (didClose).
func (s *Store) Close(uri string) error {
	path, err := URIToPath(uri)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.docs[path]; !ok {
		return fmt.Errorf("didClose for %s, which is not open", uri)
	}
	delete(s.docs, path)
	s.signalLocked()
	return nil
}

// Get returns the text and version of the document at an absolute path.
func (s *Store) Get(path string) (text string, version int32, ok bool) {
	s.mu.Lock() // Text may fill the cache.
	defer s.mu.Unlock()
	d, ok := s.docs[filepath.Clean(path)]
	if !ok {
		return "", 0, false
	}
	return d.Text(), d.Version, true
}

// URI returns the URI the editor used for the open document at path.
func (s *Store) URI(path string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.docs[filepath.Clean(path)]
	if !ok {
		return "", false
	}
	return d.URI, true
}

// GetURI returns the document by URI.
func (s *Store) GetURI(uri string) (text string, version int32, ok bool) {
	path, err := URIToPath(uri)
	if err != nil {
		return "", 0, false
	}
	return s.Get(path)
}

// Paths lists the open documents' paths, sorted.
func (s *Store) Paths() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.docs))
	for p := range s.docs {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// URIToPath converts a file: URI to an absolute, cleaned path. Other schemes
// are refused: agentls works on files.
func URIToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("bad document URI %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("document URI %q is not a file: URI; agentls only tracks files on disk", uri)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("document URI %q names a remote host; agentls only tracks local files", uri)
	}
	if u.Path == "" || !filepath.IsAbs(u.Path) {
		return "", fmt.Errorf("document URI %q has no absolute path", uri)
	}
	return filepath.Clean(u.Path), nil
}

// PathToURI converts an absolute path to a file: URI.
func PathToURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}
