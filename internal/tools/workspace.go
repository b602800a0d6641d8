package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Document is the editor's view of an open file.
type Document struct {
	Text    string
	Version int32
}

// Overlay gives the editor's unsaved buffers. The LSP server implements it;
// headless runs have none.
type Overlay interface {
	// Document returns the open document at an absolute, cleaned path.
	Document(path string) (Document, bool)
}

// OverlayWaiter is implemented by an Overlay whose documents change under
// the agent (the editor's buffers), so that a tool which asked the editor
// to change a buffer can wait for the change to arrive.
type OverlayWaiter interface {
	// WaitDocument waits until ok holds for the document at an absolute,
	// cleaned path (open is false while it is not open) or ctx ends, and
	// reports whether ok held.
	WaitDocument(ctx context.Context, path string, ok func(d Document, open bool) bool) bool
}

// Workspace is the set of roots the agent works in and the overlay it
// reads through. It is safe for concurrent use; roots change when the
// editor adds or removes workspace folders. Every file operation on disk
// goes through the os.Root of the folder holding the path (tools/roots.go,
// tools/diskio.go); Close releases them.
type Workspace struct {
	mu      sync.RWMutex
	set     *rootSet
	closed  bool
	overlay Overlay
	applier Applier
	// recorder keeps the change history (nil: none).
	recorder Recorder
	// afterChange reports the language servers' diagnostics of the files
	// a tool changed (nil: no language servers; see NewLSPEnv).
	afterChange func(ctx context.Context, changed map[string]string) string
	// pending is the folder for the markers of atomic writes in progress
	// (tools/pending.go); "" keeps none.
	pending string
	// reads remembers, per session and file, what the agent last saw, so
	// an edit of a version it has not seen is refused.
	reads map[string]map[string]readRecord
}

// NewWorkspace returns a workspace over the given roots (made absolute and
// cleaned). overlay may be nil.
func NewWorkspace(roots []string, overlay Overlay) (*Workspace, error) {
	w := &Workspace{overlay: overlay, set: newRootSet(nil)}
	if err := w.SetRoots(roots); err != nil {
		return nil, err
	}
	return w, nil
}

// SetRoots replaces the roots. The folders are opened on first use; the
// previous ones are closed once the operations using them end.
func (w *Workspace) SetRoots(roots []string) error {
	clean := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return fmt.Errorf("workspace root %s: %w", r, err)
		}
		clean = append(clean, abs)
	}
	set := newRootSet(clean)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		set.retire()
		return errClosed
	}
	old := w.set
	w.set = set
	w.mu.Unlock()
	old.retire()
	return nil
}

// Close closes the workspace folders; file operations fail afterwards.
func (w *Workspace) Close() error {
	w.mu.Lock()
	w.closed = true
	set := w.set
	w.mu.Unlock()
	set.retire()
	return nil
}

// Roots returns the roots; the first is where relative paths start.
func (w *Workspace) Roots() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	roots := make([]string, len(w.set.dirs))
	for i, d := range w.set.dirs {
		roots[i] = d.path
	}
	return roots
}

// Abs resolves a model-given path: absolute paths are cleaned, relative ones
// join the first root.
func (w *Workspace) Abs(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	roots := w.Roots()
	if len(roots) == 0 {
		return "", fmt.Errorf("relative path %s but no workspace folder is open: give an absolute path", p)
	}
	return filepath.Join(roots[0], p), nil
}

// Root returns the root that contains abs, or "".
func (w *Workspace) Root(abs string) string {
	for _, r := range w.Roots() {
		if within(r, abs) {
			return r
		}
	}
	return ""
}

// Rel returns abs relative to its root for display, or abs itself.
func (w *Workspace) Rel(abs string) string {
	if r := w.Root(abs); r != "" {
		if rel, err := filepath.Rel(r, abs); err == nil {
			if rel == "." {
				return filepath.Base(r)
			}
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveExisting resolves symlinks in the longest existing prefix of p, so
// a file not yet created still resolves through its parent folders. It
// only names a path (which folder holds it); operations on the path go
// through the folder's root.
func resolveExisting(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// File is the content of a file as the agent sees it.
type File struct {
	Path string
	Text string
	// Open is true when the text came from the editor's buffer.
	Open    bool
	Version int32
	// Mode, Size and ModTime are set for files read from disk.
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
}

// MaxReadSize caps how much of a file on disk is read into memory.
const MaxReadSize = 10 << 20

// ErrBinary marks a file whose content is not text.
var ErrBinary = errors.New("binary file")

// errTooLarge marks a file over MaxReadSize, so grep can count skipped ones.
var errTooLarge = errors.New("file too large")

// ReadFile returns the file's text, from the editor's buffer when it is
// open, else from disk through the workspace folder's root. Binary and
// oversized files are refused, and so are files on disk outside the
// workspace (*outsideError: under no folder, behind a symbolic link that
// leads out, or with more than one hard link).
func (w *Workspace) ReadFile(abs string) (File, error) {
	abs = filepath.Clean(abs)
	if w.overlay != nil {
		if d, ok := w.overlay.Document(abs); ok {
			return File{Path: abs, Text: d.Text, Open: true, Version: d.Version}, nil
		}
	}
	data, fi, err := w.readDisk(abs)
	if err != nil {
		return File{}, err
	}
	if IsBinary(data) {
		return File{}, fmt.Errorf("%s: %w; agentls reads text files only", abs, ErrBinary)
	}
	return File{Path: abs, Text: string(data), Mode: fi.Mode(), Size: int64(len(data)), ModTime: fi.ModTime()}, nil
}

// ReadDir lists the workspace folder at abs on disk, in name order,
// through its workspace folder's root: never behind a symbolic link that
// leads out (an *outsideError), so what agentls reads on its own (skill
// folders) stays as confined as the model's reads. Use the entries' Name,
// Type and IsDir only: their Info stats by path, outside the root.
func (w *Workspace) ReadDir(abs string) ([]fs.DirEntry, error) {
	return w.readDirDisk(filepath.Clean(abs))
}

// IsBinary sniffs the first 8 KiB: a NUL byte or invalid UTF-8 means binary.
func IsBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// Allow a multi-byte rune cut at the sniff boundary.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		if len(head) < len(data) {
			head = head[:len(head)-1]
			continue
		}
		return true
	}
	return !utf8.Valid(head)
}
