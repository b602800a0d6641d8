package acp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/tools"
)

// maxClientFile is the largest file read through the client: its text
// travels as one JSON line, which must stay under maxLine. Larger files
// are read from disk.
const maxClientFile = 2 << 20

// maxClientFailures is how many reads through the client may fail in a
// row before the session stops asking it and reads the disk.
const maxClientFailures = 3

// clientFiles is a session's view of files through the ACP client: with
// fs.readTextFile every read asks fs/read_text_file (the editor's buffer,
// unsaved changes included), and with fs.writeTextFile every edit lands
// through fs/write_text_file. It implements tools.Overlay and
// tools.Applier: the tools match, check staleness and record history
// exactly as for any editor.
//
// Only paths inside the workspace (tools.Workspace.Inside: no link that
// leads out, no second hard link) are asked about; binary and large files,
// and every read the client fails or does not answer in time, are read
// from disk as in headless runs.
type clientFiles struct {
	conn        *sdk.AgentSideConnection
	read, write bool
	timeout     time.Duration
	log         *slog.Logger

	mu sync.Mutex
	// sessions are the ACP sessions sharing this workspace, the one that
	// last started a prompt last: a read is asked in its name (fs/* calls
	// name a session; any of the client's serves), an edit in the name of
	// the session whose call made it.
	sessions []string
	inside   func(string) bool
	failures int
}

func newClientFiles(conn *sdk.AgentSideConnection, caps sdk.FileSystemCapabilities, timeout time.Duration, log *slog.Logger) *clientFiles {
	return &clientFiles{conn: conn, read: caps.ReadTextFile, write: caps.WriteTextFile, timeout: timeout, log: log}
}

// active reports whether the client offers any file access: without it,
// the session reads and writes the disk.
func (f *clientFiles) active() bool { return f.read || f.write }

// addSession lets session id's reads and edits through the client, and
// makes it the one reads are asked in the name of.
func (f *clientFiles) addSession(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = append(slices.DeleteFunc(f.sessions, func(s string) bool { return s == id }), id)
}

// removeSession forgets a closed session; it reports how many are left.
func (f *clientFiles) removeSession(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = slices.DeleteFunc(f.sessions, func(s string) bool { return s == id })
	return len(f.sessions)
}

// has reports whether session is one of the sessions on these folders.
func (f *clientFiles) has(session string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.sessions, session)
}

// sessionFor is the session a client call names: ctx's, when it is one
// of these, else the one that last started a prompt.
func (f *clientFiles) sessionFor(ctx context.Context) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id := tools.SessionOf(ctx); id != "" && slices.Contains(f.sessions, id) {
		return id
	}
	if n := len(f.sessions); n > 0 {
		return f.sessions[n-1]
	}
	return ""
}

func (f *clientFiles) setInside(inside func(string) bool) {
	f.mu.Lock()
	f.inside = inside
	f.mu.Unlock()
}

// state returns the session id and whether path may be asked about.
func (f *clientFiles) state(path string) (string, bool) {
	session := f.sessionFor(context.Background())
	f.mu.Lock()
	inside, failing := f.inside, f.failures >= maxClientFailures
	f.mu.Unlock()
	return session, session != "" && inside != nil && !failing && inside(path)
}

// Document implements tools.Overlay: the client's text of path. false
// means "read the disk": the path is outside, binary, large or a folder,
// or the client failed.
func (f *clientFiles) Document(path string) (tools.Document, bool) {
	session, ok := f.state(path)
	if !ok {
		return tools.Document{}, false
	}
	exists, ok := diskTextual(path)
	if !ok {
		return tools.Document{}, false
	}
	if !f.read {
		// Writes go through the client, reads come from disk: the document
		// is "open" so that its edits reach fs/write_text_file.
		if !exists {
			return tools.Document{}, false
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return tools.Document{}, false
		}
		return tools.Document{Text: string(data)}, true
	}
	text, err := f.readClient(context.Background(), session, path)
	if err != nil {
		if exists {
			f.log.Debug("acp: fs/read_text_file failed; reading the disk", "path", path, "error", err)
		}
		return tools.Document{}, false
	}
	return tools.Document{Text: text}, true
}

// diskTextual looks at path on disk: exists is false when there is no
// file (the editor may still have an unsaved buffer for it); ok is false
// for what must not be read through the client (a folder, a special
// file, a binary or large file, or a failure to look).
func diskTextual(path string) (exists, ok bool) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, true
	case err != nil, !fi.Mode().IsRegular(), fi.Size() > maxClientFile:
		return true, false
	}
	fh, err := os.Open(path)
	if err != nil {
		return true, false
	}
	defer fh.Close()
	head := make([]byte, 8192)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return true, false
	}
	return true, !tools.IsBinary(head[:n])
}

// readClient asks fs/read_text_file, bounded by the timeout. Failures in
// a row are counted; at maxClientFailures the session reads the disk.
func (f *clientFiles) readClient(ctx context.Context, session, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	resp, err := f.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(session), Path: path})
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		var re *sdk.RequestError
		notFound := errors.As(err, &re) && re.Code == codeNotFound
		if !notFound { // a file the client does not have is no failure of the client
			f.failures++
			if f.failures == maxClientFailures {
				f.log.Warn("acp: fs/read_text_file failed repeatedly; this session now reads the disk, without the editor's unsaved changes", "error", err)
			}
		}
		return "", fmt.Errorf("fs/read_text_file %s: %w", path, err)
	}
	f.failures = 0
	return resp.Content, nil
}

// ApplyOpen implements tools.Applier for documents the overlay returned.
// The text the edit was computed on must still be what the client (or,
// without fs.readTextFile, the disk) has; then fs/write_text_file writes
// the whole new text. Without fs.writeTextFile the disk is written, but
// only when it holds exactly that text: the person's unsaved changes are
// never saved for them.
func (f *clientFiles) ApplyOpen(ctx context.Context, ch tools.FileChange) (tools.Applied, error) {
	session := f.sessionFor(ctx)
	current, err := f.current(ctx, session, ch.Path)
	if err != nil {
		return tools.Applied{}, &tools.NotAppliedError{Reason: "agentls could not check the file before writing it: " + err.Error()}
	}
	if current != ch.Old {
		return tools.Applied{}, &tools.NotAppliedError{Reason: "the file changed in the editor since agentls read it"}
	}
	if !f.write {
		disk, err := os.ReadFile(ch.Path)
		if err != nil || !bytes.Equal(disk, []byte(ch.Old)) {
			return tools.Applied{}, &tools.NotAppliedError{Reason: "the editor's buffer has unsaved changes and this editor does not let agentls write its buffers (no fs.writeTextFile): save the file, then ask again"}
		}
		mode := fs.FileMode(0o644)
		if fi, err := os.Stat(ch.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := tools.WriteFileAtomic(ch.Path, []byte(ch.New), mode); err != nil {
			return tools.Applied{}, err
		}
		return tools.Applied{Saved: true}, nil
	}
	wctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if _, err := f.conn.WriteTextFile(wctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(session), Path: ch.Path, Content: ch.New}); err != nil {
		if wctx.Err() != nil && ctx.Err() == nil {
			return tools.Applied{}, fmt.Errorf("fs/write_text_file %s: no answer within %v; the editor may or may not have written it: view the file before editing again", ch.Path, f.timeout)
		}
		return tools.Applied{}, &tools.NotAppliedError{Reason: fmt.Sprintf("fs/write_text_file failed: %v", err)}
	}
	// ACP writes the client's file system: the file is written, not just
	// a buffer.
	return tools.Applied{Saved: true}, nil
}

// current is the file's text now, where agentls read it: the client, or
// the disk when the client only writes.
func (f *clientFiles) current(ctx context.Context, session, path string) (string, error) {
	if f.read {
		return f.readClient(ctx, session, path)
	}
	data, err := os.ReadFile(path)
	return string(data), err
}
