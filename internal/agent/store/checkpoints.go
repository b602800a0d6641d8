package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// The checkpoints' part of the store: a checkpoint is taken before every
// step of the agent that may change files, and keeps what the step
// changed (each file's state before and after it), so the workspace can be
// put back to how it was before any step. Contents are kept once, by hash
// (cp_blobs), however many checkpoints and index entries name them.

// ErrNoCheckpoint is a checkpoint id that is not in the store (or not the
// session's).
var ErrNoCheckpoint = errors.New("no such checkpoint")

// File kinds of a FileState.
const (
	KindFile = "file"
	KindDir  = "dir"
	KindLink = "link"
)

// FileState is one path's state at a moment: what a restore puts back.
// The zero FileState is a path that does not exist.
type FileState struct {
	// Kind is KindFile, KindDir or KindLink; "" means the path did not
	// exist.
	Kind string `json:"kind,omitempty"`
	// Mode is the permission bits (with setuid, setgid and sticky).
	Mode uint32 `json:"mode,omitempty"`
	// Size and Hash are a file's length and content hash (Hash names its
	// content in the store); Hash is "" when the content was not kept.
	Size int64  `json:"size,omitempty"`
	Hash string `json:"hash,omitempty"`
	// Target is a symbolic link's target, as written (never followed).
	Target string `json:"target,omitempty"`
	// NotKept says why a file's content was not kept (too large, hard
	// links, unreadable); "" when it was.
	NotKept string `json:"notKept,omitempty"`
	// Mixed, on a step's after state, says someone else changed the path
	// too while the step ran (the person saved it in the editor): the
	// state is not the agent's alone, so a restore keeps it as a
	// conflict. It is no part of the state itself (Same ignores it).
	Mixed string `json:"mixed,omitempty"`
}

// Exists reports whether the path existed.
func (f FileState) Exists() bool { return f.Kind != "" }

// Same reports whether f and g are the same state: kind, mode, content and
// link target. Two files whose content was not kept are not known to be
// the same unless their sizes and (absent) hashes match and neither was
// kept: callers treat NotKept as unknown.
func (f FileState) Same(g FileState) bool {
	return f.Kind == g.Kind && f.Mode == g.Mode && f.Hash == g.Hash && f.Target == g.Target && f.Size == g.Size && f.NotKept == g.NotKept
}

// CheckpointFile is one path a checkpoint's step changed.
type CheckpointFile struct {
	Path   string    `json:"path"`
	Before FileState `json:"before"`
	After  FileState `json:"after"`
}

// Checkpoint kinds.
const (
	CheckpointStep    = "step"    // before a tool call that may change files
	CheckpointRestore = "restore" // before a restore: restoring to it undoes the restore
)

// Checkpoint is the state before one step, kept as what the step changed.
type Checkpoint struct {
	ID int64 `json:"id"`
	// Workspace is the first workspace folder of the session's
	// environment (Files may lie in any of its folders).
	Workspace string `json:"workspace"`
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	CallID    string `json:"callId,omitempty"`
	Tool      string `json:"tool"`
	// Title is the step as a person reads it ("bash sed -i …").
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// ConvSeq is how many of the session's records the conversation had
	// before the checkpoint (the turn's prompt excluded): restoring the
	// conversation goes back to it. -1 means unknown.
	ConvSeq int       `json:"convSeq"`
	Time    time.Time `json:"time"`
	// Bytes is the content this checkpoint's files keep (retention).
	Bytes int64 `json:"bytes"`
	// Notes say what the checkpoint could not keep.
	Notes []string `json:"notes,omitempty"`
	// Files are what the step changed; Checkpoints (the listing) leaves
	// them out and sets Changed.
	Files   []CheckpointFile `json:"files,omitempty"`
	Changed int              `json:"changed"`
}

// HashOf is the content hash the store keys contents by.
func HashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// IndexEntry is one path of a workspace folder as a checkpoint engine last
// saw it: its state and the stat figures that tell, without reading it,
// whether it changed since (as git's index does).
type IndexEntry struct {
	State FileState `json:"state"`
	MTime int64     `json:"mtime"`
	CTime int64     `json:"ctime,omitempty"`
	Ino   uint64    `json:"ino,omitempty"`
}

// IndexUpdate is a batch for SaveIndex: contents to keep, entries set and
// paths gone, all of one workspace folder.
type IndexUpdate struct {
	Workspace string
	Blobs     map[string][]byte // hash → content
	Set       map[string]IndexEntry
	Delete    []string
}

// SaveIndex keeps the contents and updates the folder's index in one
// transaction: an index entry never names a content that is not kept.
func (s *Store) SaveIndex(ctx context.Context, u IndexUpdate) (err error) {
	if len(u.Blobs)+len(u.Set)+len(u.Delete) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save checkpoint contents: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err = putBlobs(ctx, tx, u.Blobs); err != nil {
		return err
	}
	ws := cleanWorkspace(u.Workspace)
	if err = markUsed(ctx, tx, ws); err != nil {
		return err
	}
	for p, e := range u.Set {
		data, merr := json.Marshal(e)
		if merr != nil {
			return merr
		}
		if _, err = tx.ExecContext(ctx, `INSERT INTO cp_index (workspace, path, entry, hash) VALUES (?, ?, ?, ?)
			ON CONFLICT (workspace, path) DO UPDATE SET entry = excluded.entry, hash = excluded.hash`,
			ws, p, string(data), e.State.Hash); err != nil {
			return fmt.Errorf("save checkpoint index: %w", err)
		}
	}
	for _, p := range u.Delete {
		if _, err = tx.ExecContext(ctx, `DELETE FROM cp_index WHERE workspace = ? AND path = ?`, ws, p); err != nil {
			return fmt.Errorf("save checkpoint index: %w", err)
		}
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("save checkpoint contents: %w", err)
	}
	return nil
}

func putBlobs(ctx context.Context, tx *sql.Tx, blobs map[string][]byte) error {
	for h, data := range blobs {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO cp_blobs (hash, size, data) VALUES (?, ?, ?)`, h, len(data), data); err != nil {
			return fmt.Errorf("keep content %s: %w", h, err)
		}
	}
	return nil
}

// Index is a workspace folder's index as SaveIndex left it, by relative
// path.
func (s *Store) Index(ctx context.Context, workspace string) (map[string]IndexEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, entry FROM cp_index WHERE workspace = ?`, cleanWorkspace(workspace))
	if err != nil {
		return nil, fmt.Errorf("read checkpoint index: %w", err)
	}
	defer rows.Close()
	out := map[string]IndexEntry{}
	for rows.Next() {
		var p, data string
		if err := rows.Scan(&p, &data); err != nil {
			return nil, fmt.Errorf("read checkpoint index: %w", err)
		}
		var e IndexEntry
		if json.Unmarshal([]byte(data), &e) != nil {
			continue // unreadable: the path is read again
		}
		out[p] = e
	}
	return out, rows.Err()
}

// Blob returns a kept content by hash.
func (s *Store) Blob(ctx context.Context, hash string) ([]byte, error) {
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM cp_blobs WHERE hash = ?`, hash).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("content %s is not in the store", hash)
	}
	if err != nil {
		return nil, fmt.Errorf("read content %s: %w", hash, err)
	}
	return data, nil
}

// AddCheckpoint stores a checkpoint with its files (and contents not kept
// yet) and returns its id. A step checkpoint's ConvSeq, when -1, is found
// from its turn: the session's records before the turn began.
func (s *Store) AddCheckpoint(ctx context.Context, c Checkpoint, blobs map[string][]byte) (id int64, err error) {
	if c.Kind != CheckpointStep && c.Kind != CheckpointRestore {
		return 0, fmt.Errorf("add checkpoint: unknown kind %q", c.Kind)
	}
	for _, f := range c.Files {
		if !filepath.IsAbs(f.Path) {
			return 0, fmt.Errorf("add checkpoint: path %q is not absolute", f.Path)
		}
	}
	if c.Time.IsZero() {
		c.Time = time.Now()
	}
	notes, err := json.Marshal(c.Notes)
	if err != nil {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("add checkpoint: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err = putBlobs(ctx, tx, blobs); err != nil {
		return 0, err
	}
	conv := sql.NullInt64{Int64: int64(c.ConvSeq), Valid: c.ConvSeq >= 0}
	if c.ConvSeq < 0 && c.TurnID != "" {
		turn, _ := json.Marshal(struct {
			ID string `json:"id"`
		}{c.TurnID})
		var seq sql.NullInt64
		if err = tx.QueryRowContext(ctx, `SELECT MAX(seq) FROM session_records WHERE session_id = ? AND kind = 'turn' AND data = ?`,
			c.SessionID, string(turn)).Scan(&seq); err != nil {
			return 0, fmt.Errorf("add checkpoint: find its turn: %w", err)
		}
		if seq.Valid {
			conv = sql.NullInt64{Int64: seq.Int64 - 1, Valid: true}
		}
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO checkpoints
		(workspace, session_id, turn_id, call_id, tool, title, kind, conv_seq, time_ns, bytes, notes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		cleanWorkspace(c.Workspace), c.SessionID, c.TurnID, c.CallID, c.Tool, c.Title, c.Kind, conv,
		c.Time.UnixNano(), c.Bytes, string(notes))
	if err != nil {
		return 0, fmt.Errorf("add checkpoint: %w", err)
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, fmt.Errorf("add checkpoint: %w", err)
	}
	for _, f := range c.Files {
		b, _ := json.Marshal(f.Before)
		a, _ := json.Marshal(f.After)
		if _, err = tx.ExecContext(ctx, `INSERT INTO cp_files (checkpoint_id, path, before, after, before_hash, after_hash)
			VALUES (?, ?, ?, ?, ?, ?)`, id, filepath.Clean(f.Path), string(b), string(a), f.Before.Hash, f.After.Hash); err != nil {
			return 0, fmt.Errorf("add checkpoint: %w", err)
		}
	}
	if err = tx.Commit(); err != nil {
		return 0, fmt.Errorf("add checkpoint: %w", err)
	}
	return id, nil
}

const checkpointSelect = `SELECT c.id, c.workspace, c.session_id, c.turn_id, c.call_id, c.tool, c.title, c.kind,
	c.conv_seq, c.time_ns, c.bytes, c.notes, (SELECT COUNT(*) FROM cp_files f WHERE f.checkpoint_id = c.id)
	FROM checkpoints c`

func scanCheckpoint(row scanner) (Checkpoint, error) {
	var (
		c     Checkpoint
		conv  sql.NullInt64
		ns    int64
		notes string
	)
	if err := row.Scan(&c.ID, &c.Workspace, &c.SessionID, &c.TurnID, &c.CallID, &c.Tool, &c.Title, &c.Kind,
		&conv, &ns, &c.Bytes, &notes, &c.Changed); err != nil {
		return c, err
	}
	c.ConvSeq = -1
	if conv.Valid {
		c.ConvSeq = int(conv.Int64)
	}
	c.Time = time.Unix(0, ns)
	_ = json.Unmarshal([]byte(notes), &c.Notes)
	return c, nil
}

// Checkpoints lists a session's checkpoints, oldest first, without their
// files.
func (s *Store) Checkpoints(ctx context.Context, sessionID string) ([]Checkpoint, error) {
	rows, err := s.db.QueryContext(ctx, checkpointSelect+` WHERE c.session_id = ? ORDER BY c.id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	defer rows.Close()
	var out []Checkpoint
	for rows.Next() {
		c, err := scanCheckpoint(rows)
		if err != nil {
			return nil, fmt.Errorf("list checkpoints: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// GetCheckpoint returns one checkpoint with its files.
func (s *Store) GetCheckpoint(ctx context.Context, id int64) (Checkpoint, error) {
	c, err := scanCheckpoint(s.db.QueryRowContext(ctx, checkpointSelect+` WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("checkpoint %d: %w", id, ErrNoCheckpoint)
	}
	if err != nil {
		return c, fmt.Errorf("read checkpoint %d: %w", id, err)
	}
	c.Files, err = s.checkpointFiles(ctx, id)
	return c, err
}

func (s *Store) checkpointFiles(ctx context.Context, id int64) ([]CheckpointFile, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, before, after FROM cp_files WHERE checkpoint_id = ? ORDER BY path`, id)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %d: %w", id, err)
	}
	defer rows.Close()
	var out []CheckpointFile
	for rows.Next() {
		var f CheckpointFile
		var b, a string
		if err := rows.Scan(&f.Path, &b, &a); err != nil {
			return nil, fmt.Errorf("read checkpoint %d: %w", id, err)
		}
		if err := errors.Join(json.Unmarshal([]byte(b), &f.Before), json.Unmarshal([]byte(a), &f.After)); err != nil {
			return nil, fmt.Errorf("read checkpoint %d, %s: %w", id, f.Path, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// CheckpointsFrom returns the session's checkpoints from id on (id
// included), oldest first, with their files: what restoring to id undoes.
func (s *Store) CheckpointsFrom(ctx context.Context, sessionID string, id int64) ([]Checkpoint, error) {
	list, err := s.Checkpoints(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var out []Checkpoint
	for _, c := range list {
		if c.ID < id {
			continue
		}
		if c.Files, err = s.checkpointFiles(ctx, c.ID); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// PruneCheckpoints drops a session's oldest checkpoints until at most
// keep remain and they keep at most keepBytes of content (0: no bound;
// the newest always stays), then the contents nothing names any more. It
// returns how many it dropped. A step's checkpoint that changed nothing
// (a bash call that only read) does not count against keep, so read-only
// steps do not push out the checkpoints that can restore something; such
// empty ones go with the older ones around them, and beyond
// emptyPerKept times keep of them in all.
func (s *Store) PruneCheckpoints(ctx context.Context, sessionID string, keep int, keepBytes int64) (int, error) {
	var (
		count, counted int
		bytes          int64
	)
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN kind = ? AND NOT EXISTS
		(SELECT 1 FROM cp_files f WHERE f.checkpoint_id = checkpoints.id) THEN 0 ELSE 1 END), 0), COALESCE(SUM(bytes), 0)
		FROM checkpoints WHERE session_id = ?`, CheckpointStep, sessionID).Scan(&count, &counted, &bytes); err != nil {
		return 0, fmt.Errorf("prune checkpoints: %w", err)
	}
	over := func(counted, count int, bytes int64) bool {
		return (keep > 0 && (counted > keep || count > keep*(emptyPerKept+1))) || (keepBytes > 0 && bytes > keepBytes)
	}
	if !over(counted, count, bytes) {
		return 0, nil // the usual case, without listing
	}
	list, err := s.Checkpoints(ctx, sessionID)
	if err != nil {
		return 0, err
	}
	var drop []int64
	for _, c := range list[:len(list)-1] { // the newest stays, whatever its size
		if !over(counted, count, bytes) {
			break
		}
		drop = append(drop, c.ID)
		count--
		bytes -= c.Bytes
		if c.Kind != CheckpointStep || c.Changed > 0 {
			counted--
		}
	}
	if len(drop) == 0 {
		return 0, nil
	}
	return len(drop), s.dropCheckpoints(ctx, `id <= ?`, sessionID, drop[len(drop)-1])
}

// emptyPerKept bounds a session's empty step checkpoints: at most this
// many times the checkpoints kept.
const emptyPerKept = 4

// dropCheckpoints deletes the session's checkpoints matching cond (with
// arg) and the contents nothing names any more, in one transaction.
func (s *Store) dropCheckpoints(ctx context.Context, cond, sessionID string, arg ...any) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("drop checkpoints: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	where := `session_id = ?`
	args := []any{sessionID}
	if cond != "" {
		where += " AND " + cond
		args = append(args, arg...)
	}
	if _, err = tx.ExecContext(ctx, `DELETE FROM cp_files WHERE checkpoint_id IN (SELECT id FROM checkpoints WHERE `+where+`)`, args...); err != nil {
		return fmt.Errorf("drop checkpoints: %w", err)
	}
	if _, err = tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE `+where, args...); err != nil {
		return fmt.Errorf("drop checkpoints: %w", err)
	}
	if err = collectBlobs(ctx, tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("drop checkpoints: %w", err)
	}
	return nil
}

// collectBlobs deletes the contents no checkpoint and no index entry
// names.
func collectBlobs(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM cp_blobs WHERE
		NOT EXISTS (SELECT 1 FROM cp_files WHERE before_hash = cp_blobs.hash)
		AND NOT EXISTS (SELECT 1 FROM cp_files WHERE after_hash = cp_blobs.hash)
		AND NOT EXISTS (SELECT 1 FROM cp_index WHERE hash = cp_blobs.hash)`); err != nil {
		return fmt.Errorf("drop unused contents: %w", err)
	}
	return nil
}

// markUsed notes that the workspace folder's index is in use now.
func markUsed(ctx context.Context, tx *sql.Tx, ws string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO cp_workspaces (workspace, used_ns) VALUES (?, ?)
		ON CONFLICT (workspace) DO UPDATE SET used_ns = excluded.used_ns`, ws, time.Now().UnixNano()); err != nil {
		return fmt.Errorf("save checkpoint index: %w", err)
	}
	return nil
}

// PruneIndexes drops the checkpoint index (the baseline) of every
// workspace folder whose index was not used since before, then the
// contents nothing names any more, and returns how many folders' indexes
// it dropped. It loses no checkpoint: a folder opened again is walked
// and read afresh, and its checkpoints name their contents themselves.
func (s *Store) PruneIndexes(ctx context.Context, before time.Time) (n int, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("prune checkpoint indexes: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	cutoff := before.UnixNano()
	if _, err = tx.ExecContext(ctx, `DELETE FROM cp_index WHERE workspace IN
		(SELECT workspace FROM cp_workspaces WHERE used_ns < ?)`, cutoff); err != nil {
		return 0, fmt.Errorf("prune checkpoint indexes: %w", err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM cp_workspaces WHERE used_ns < ?`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune checkpoint indexes: %w", err)
	}
	dropped, _ := res.RowsAffected()
	if dropped > 0 {
		if err = collectBlobs(ctx, tx); err != nil {
			return 0, err
		}
	}
	if err = tx.Commit(); err != nil {
		return 0, fmt.Errorf("prune checkpoint indexes: %w", err)
	}
	return int(dropped), nil
}

// CollectBlobs deletes those of the contents hashes that no checkpoint
// and no index entry names any more (the baseline's old versions of
// files that changed), without scanning every content kept: what a
// refresh stopped naming, collected as it goes, so the store does not
// grow with every version of every file.
func (s *Store) CollectBlobs(ctx context.Context, hashes []string) error {
	const batch = 200
	for len(hashes) > 0 {
		n := min(batch, len(hashes))
		part := hashes[:n]
		hashes = hashes[n:]
		args := make([]any, len(part))
		for i, h := range part {
			args[i] = h
		}
		marks := strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")
		if _, err := s.db.ExecContext(ctx, `DELETE FROM cp_blobs WHERE hash IN (`+marks+`)
			AND NOT EXISTS (SELECT 1 FROM cp_files WHERE before_hash = cp_blobs.hash)
			AND NOT EXISTS (SELECT 1 FROM cp_files WHERE after_hash = cp_blobs.hash)
			AND NOT EXISTS (SELECT 1 FROM cp_index WHERE hash = cp_blobs.hash)`, args...); err != nil {
			return fmt.Errorf("drop unused contents: %w", err)
		}
	}
	return nil
}

// BlobBytes is the size of every content kept, for reports and tests.
func (s *Store) BlobBytes(ctx context.Context) (n int64, count int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(size), 0), COUNT(*) FROM cp_blobs`).Scan(&n, &count)
	return n, count, err
}
