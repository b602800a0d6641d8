package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/langserver/overlay"
)

// Workspace is what the client needs from agentls's workspace: its roots,
// and the text of a file as the agent sees it — the editor's buffer when
// the file is open there, else the disk. tools.Workspace satisfies it
// through a small adapter.
type Workspace interface {
	// Roots are the workspace folders, absolute.
	Roots() []string
	// ReadFile returns the text at an absolute path; inEditor is true when
	// it came from an editor buffer.
	ReadFile(path string) (text string, inEditor bool, err error)
}

// Stamper is optionally implemented by a Workspace to make checking an
// unchanged file cheap: the client then reads a file again only when its
// stamp changed. Without it, every request reads the file to compare.
type Stamper interface {
	// Stamp identifies the current state of path, without reading it.
	Stamp(path string) (Stamp, error)
}

// Stamp identifies one state of a file: equal stamps mean equal text.
type Stamp struct {
	// InEditor and Version: the editor's buffer and its version.
	InEditor bool
	Version  int32
	// Size and ModTime (Unix nanoseconds): the file on disk.
	Size    int64
	ModTime int64
}

// DiskStamp stamps the file on disk at path, for Stamper implementations.
func DiskStamp(path string) (Stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// doc is a document the server has open, as it was last sent.
type doc struct {
	uri     string
	lang    string
	version int32
	text    *text
	editor  bool // the text came from an editor buffer
	// byEditor: the editor opened it in a shared server (shared.go);
	// the client sends nothing for it.
	byEditor bool
	opened   time.Time // didOpen
	sent     time.Time // last didOpen or didChange
	used     time.Time // last sync
	stamp    *Stamp    // the state the text was read in, when the Workspace stamps
}

func (d *doc) state(path string) docState {
	return docState{path: path, uri: d.uri, version: d.version, text: d.text, opened: d.opened, sent: d.sent, editor: d.editor}
}

// docState is a copy of what the server has for one document.
type docState struct {
	path    string
	uri     string
	version int32
	text    *text
	opened  time.Time
	sent    time.Time
	editor  bool
}

// syncDoc makes the server see the current text of path (didOpen, or a
// whole-text didChange with the next version) and returns what it now
// has. Unchanged text sends nothing; with a Stamper, an unchanged stamp
// reads nothing either.
func (s *session) syncDoc(path string) (docState, error) {
	if s.shared != nil {
		s.shared.Lock()
		defer s.shared.Unlock()
		if d, ok := s.adoptEditorDoc(path, time.Now()); ok {
			return d, nil
		}
	}
	var stamp *Stamp
	if st, ok := s.c.m.ws.(Stamper); ok {
		if v, err := st.Stamp(path); err == nil {
			stamp = &v
			s.docMu.Lock()
			if d, open := s.docs[path]; open && d.stamp != nil && *d.stamp == v {
				d.used = time.Now()
				state := d.state(path)
				s.docMu.Unlock()
				return state, nil
			}
			s.docMu.Unlock()
		}
	}
	// The stamp is taken before the read: if the file changes in between,
	// the next sync sees a new stamp and reads again.
	body, inEditor, err := s.c.m.ws.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.closeDoc(path)
		}
		return docState{}, fmt.Errorf("read %s for %s: %w", path, s.name, err)
	}
	s.c.m.markSeen(path)
	now := time.Now()
	s.docMu.Lock()
	defer s.docMu.Unlock()
	d, open := s.docs[path]
	switch {
	case open && d.text.s == body:
		// The server already has this text.
	case open:
		s.versions[path]++
		v := s.versions[path]
		if err := s.notify("textDocument/didChange", didChangeParams{
			TextDocument:   versionedDocID{URI: d.uri, Version: v},
			ContentChanges: []wholeChange{{Text: body}},
		}); err != nil {
			return docState{}, err
		}
		d.version, d.text, d.sent = v, newText(body), now
	default:
		s.versions[path]++
		v := s.versions[path]
		d = &doc{uri: overlay.PathToURI(path), lang: languageID(path), version: v, text: newText(body), opened: now, sent: now}
		if err := s.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{
			URI: d.uri, LanguageID: d.lang, Version: v, Text: body,
		}}); err != nil {
			return docState{}, err
		}
		s.docs[path] = d
	}
	d.editor, d.used, d.stamp = inEditor, now, stamp
	return d.state(path), nil
}

// closeDoc sends didClose if the server has path open.
func (s *session) closeDoc(path string) {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	d, ok := s.docs[path]
	if !ok {
		return
	}
	delete(s.docs, path)
	if d.byEditor {
		return // the editor closes its own
	}
	_ = s.notify("textDocument/didClose", didCloseParams{TextDocument: docID{URI: d.uri}})
}

// closeIdle closes the documents the agent opened and has not used since
// before; those open in the editor stay.
func (s *session) closeIdle(before time.Time) {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	for path, d := range s.docs {
		if d.editor || d.byEditor || !d.used.Before(before) {
			continue
		}
		delete(s.docs, path)
		_ = s.notify("textDocument/didClose", didCloseParams{TextDocument: docID{URI: d.uri}})
	}
}

// openText returns the text the server was sent for path, if open.
func (s *session) openText(path string) (*text, bool) {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if d, ok := s.docs[path]; ok {
		return d.text, true
	}
	return nil, false
}

// docVersion is the version the server has for path (0 if not open).
func (s *session) docVersion(path string) int32 {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if d, ok := s.docs[path]; ok {
		return d.version
	}
	return 0
}

// reopenable lists the documents worth reopening in a restarted server:
// those open in the editor and those the agent used recently.
func (s *session) reopenable(since time.Time) []string {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	var out []string
	for path, d := range s.docs {
		if d.editor || d.used.After(since) {
			out = append(out, path)
		}
	}
	sort.Strings(out)
	return out
}

// File change types of didChangeWatchedFiles.
const (
	fileCreated = 1
	fileChanged = 2
	fileDeleted = 3
)

// didWrite tells the server about a disk write: didChangeWatchedFiles
// when one of its watchers covers the file, and, when the file is open,
// its new text (didChange) and didSave. When the editor has the file
// open its buffer stays the truth: no didChange unless the buffer
// changed, and no didSave, since the buffer may differ from the disk.
func (s *session) didWrite(path string, typ int) {
	s.regMu.Lock()
	want := false
	for _, w := range s.watch {
		if w.matches(path, s.c.root, typ) {
			want = true
			break
		}
	}
	s.regMu.Unlock()
	if want {
		_ = s.notify("workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{
			Changes: []fileEvent{{URI: overlay.PathToURI(path), Type: typ}},
		})
	}
	if _, open := s.openText(path); !open {
		return
	}
	if typ == fileDeleted {
		s.closeDoc(path)
		return
	}
	d, err := s.syncDoc(path)
	if err != nil {
		s.log.Debug("resync after write", "path", path, "error", err)
		return
	}
	if !d.editor && s.wantsSave() {
		var body *string
		if s.saveIncludesText() {
			t := d.text.s
			body = &t
		}
		_ = s.notify("textDocument/didSave", didSaveParams{TextDocument: docID{URI: d.uri}, Text: body})
	}
}

// wantsSave reports whether the server asked for didSave.
func (s *session) wantsSave() bool {
	raw := strings.TrimSpace(string(s.caps.TextDocumentSync))
	if !strings.HasPrefix(raw, "{") {
		return false
	}
	var sync struct {
		Save any `json:"save"`
	}
	if json.Unmarshal(s.caps.TextDocumentSync, &sync) != nil {
		return false
	}
	switch v := sync.Save.(type) {
	case bool:
		return v
	case map[string]any:
		return true
	}
	return false
}

// saveIncludesText reports whether didSave should carry the text.
func (s *session) saveIncludesText() bool {
	var sync struct {
		Save struct {
			IncludeText bool `json:"includeText"`
		} `json:"save"`
	}
	return json.Unmarshal(s.caps.TextDocumentSync, &sync) == nil && sync.Save.IncludeText
}

// diskRecheck is how long a cached disk text is trusted before its size
// and mtime are checked again. DidWrite drops entries at once, so the
// window only matters for files changed behind agentls's back, which a
// server that has not opened them has usually not re-read either; the
// saving is a stat per result file per request (see BenchmarkReferences).
const diskRecheck = 100 * time.Millisecond

// diskText returns the text of a file the server has not opened (the
// server then works from disk too), for converting positions in results.
func (c *Client) diskText(path string) *text {
	now := time.Now()
	c.diskMu.Lock()
	e, ok := c.disk[path]
	c.diskMu.Unlock()
	if ok && now.Sub(e.checked) < diskRecheck {
		return e.text
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 10<<20 {
		return nil
	}
	if !ok || e.size != fi.Size() || !e.mod.Equal(fi.ModTime()) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		e = diskEntry{size: fi.Size(), mod: fi.ModTime(), text: newText(string(data))}
	}
	e.checked = now
	c.diskMu.Lock()
	if len(c.disk) >= 512 {
		clear(c.disk)
	}
	c.disk[path] = e
	c.diskMu.Unlock()
	return e.text
}

// forgetDisk drops the cached disk text of path.
func (c *Client) forgetDisk(path string) {
	c.diskMu.Lock()
	delete(c.disk, path)
	c.diskMu.Unlock()
}

// diskEntry is a cached file read, valid while size and mtime match.
type diskEntry struct {
	size    int64
	mod     time.Time
	checked time.Time // last time size and mtime were compared
	text    *text
}
