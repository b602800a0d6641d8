package tools

import (
	"crypto/sha256"
	"fmt"
	"time"
)

// readRecord is what the agent saw of a file when it last read (or wrote)
// it: the editor buffer's version, or the disk file's mtime, size and hash.
type readRecord struct {
	open    bool
	version int32 // 0: unknown (after our own edit of an open document)
	hash    [32]byte
	modTime time.Time
	size    int64
}

func recordOf(f File) readRecord {
	return readRecord{open: f.Open, version: f.Version, hash: sha256.Sum256([]byte(f.Text)), modTime: f.ModTime, size: f.Size}
}

// RecordRead notes that the session has seen f as it is now.
func (w *Workspace) RecordRead(session string, f File) {
	w.setRecord(session, f.Path, recordOf(f))
}

func (w *Workspace) setRecord(session, path string, r readRecord) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reads == nil {
		w.reads = map[string]map[string]readRecord{}
	}
	if w.reads[session] == nil {
		w.reads[session] = map[string]readRecord{}
	}
	w.reads[session][path] = r
}

// recordWrite notes the content the agent itself just wrote. For an open
// document the editor's next version is not known yet, so freshness is
// judged by content until the agent reads it again.
func (w *Workspace) recordWrite(session string, f File, text string) {
	r := readRecord{open: f.Open, hash: sha256.Sum256([]byte(text))}
	if !f.Open {
		if fi, err := w.statDisk(f.Path); err == nil {
			r.modTime, r.size = fi.ModTime(), fi.Size()
		}
	}
	w.setRecord(session, f.Path, r)
}

// ForgetReads drops a session's read records (session end).
func (w *Workspace) ForgetReads(session string) {
	w.mu.Lock()
	delete(w.reads, session)
	w.mu.Unlock()
}

// checkFresh refuses an edit unless the session read the file and the file
// is still what it read: the same buffer version for a document open in the
// editor, the same mtime, size and content for a file on disk.
func (w *Workspace) checkFresh(session string, cur File, shown string) error {
	w.mu.RLock()
	r, ok := w.reads[session][cur.Path]
	w.mu.RUnlock()
	if !ok {
		return fmt.Errorf("you have not read %s in this session: view it first, then edit", shown)
	}
	sameText := r.hash == sha256.Sum256([]byte(cur.Text))
	switch {
	case cur.Open && r.open && r.version != 0:
		if cur.Version != r.version {
			return fmt.Errorf("%s changed in the editor since you read it (buffer version %d, you read version %d): view it again before editing", shown, cur.Version, r.version)
		}
	case cur.Open:
		if !sameText {
			return fmt.Errorf("%s changed in the editor since you last read it: view it again before editing", shown)
		}
	case r.open:
		// Read from the editor, now closed: the disk must hold what was read.
		if !sameText {
			return fmt.Errorf("%s was closed in the editor and differs on disk from what you read: view it again before editing", shown)
		}
	default:
		if !cur.ModTime.Equal(r.modTime) || cur.Size != r.size || !sameText {
			return fmt.Errorf("%s changed on disk since you read it: view it again before editing", shown)
		}
	}
	return nil
}
