// Package store keeps agentls's durable record in a per-user SQLite
// database: every file change the agent makes (so a whole turn can be
// reverted later, even from another process), the checkpoints of every
// step that may change files (so any step can be undone, bash's included),
// and every permission decision (so they can be audited). It uses modernc.org/sqlite, so no cgo, and WAL
// with a busy timeout, so an editor's server and `agentls run` can share
// one database file.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// MaxContentBytes bounds each content recorded with a change, so one huge
// or generated file cannot bloat the database; larger changes are refused.
const MaxContentBytes = 10 << 20

// busyTimeout is how long a statement waits for another process's write
// lock before failing with "database is locked".
const busyTimeout = 5 * time.Second

// ErrNoTurn is returned by LastTurn when the workspace has no turn with
// changes left to revert.
var ErrNoTurn = errors.New("no agent turn with changes left to revert in this workspace")

// ErrTooLarge is returned (wrapped) by RecordChange when a content exceeds
// MaxContentBytes.
var ErrTooLarge = errors.New("content too large to record")

// DefaultPath is the database file inside agentls's data directory (e.g.
// $XDG_DATA_HOME/agentls), shared by every workspace of the user.
func DefaultPath(dataDir string) string {
	return filepath.Join(dataDir, "agentls.db")
}

// Store is an open agentls database. It is safe for concurrent use.
type Store struct {
	db *sql.DB
}

// Open opens the database at path, creating it and its directory if needed
// (private to the user: it holds file contents), and migrates its schema to
// the version this build knows. It fails if the database was written by a
// newer agentls with a schema this build does not know.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open store %s: create directory: %w", abs, err)
	}
	// Create the file ourselves so it is 0600: SQLite would use the umask,
	// and the -wal/-shm files copy the main file's mode.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}

	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	// One connection: SQLite has a single writer anyway, and queueing in
	// database/sql (FIFO, context-aware) beats SQLite's sleep-and-retry busy
	// handler; busy_timeout then only matters against other processes.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)

	s := &Store{db: db}
	if err := s.migrateWaiting(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	return s, nil
}

// migrateWaiting migrates, trying again while another process holds the
// database for up to busyTimeout. SQLite's busy handler does not cover a
// new database switched to WAL by another connection at that moment: its
// BEGIN fails with SQLITE_BUSY at once (two agentls processes started
// together, the loser ran without history).
func (s *Store) migrateWaiting(ctx context.Context) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := s.migrate(ctx)
		if err == nil || !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("migrate schema: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (any extended code):
// another connection holds the lock.
func isBusy(err error) bool {
	const sqliteBusy = 5
	var e interface{ Code() int }
	return errors.As(err, &e) && e.Code()&0xff == sqliteBusy
}

// dsn is a file: URI for path, so names with '?', '#' or '%' reach SQLite
// intact, with the per-connection settings as driver parameters.
// _txlock=immediate takes the write lock at BEGIN, where busy_timeout
// applies, instead of failing with SQLITE_BUSY on a later lock upgrade.
func dsn(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String() + fmt.Sprintf("?_busy_timeout=%d&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate",
		busyTimeout.Milliseconds())
}

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// migrations returns the schema migrations: element i brings the schema
// from version i to version i+1. Append only: never edit one that shipped.
func migrations() []string {
	return []string{
		// 1: changes and decisions.
		`CREATE TABLE changes (
		id                INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: ids are handed out
		workspace         TEXT    NOT NULL,
		session_id        TEXT    NOT NULL,
		turn_id           TEXT    NOT NULL,
		tool              TEXT    NOT NULL,
		path              TEXT    NOT NULL,
		before_text       TEXT    NOT NULL,
		before_exists     INTEGER NOT NULL,
		intermediate_text TEXT,               -- NULL: the user had not changed the file
		after_text        TEXT    NOT NULL,
		after_exists      INTEGER NOT NULL,
		time_ns           INTEGER NOT NULL,   -- Unix nanoseconds
		reverted          INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX changes_turn ON changes (workspace, turn_id, id);
	CREATE INDEX changes_unreverted ON changes (workspace, reverted, id);
	CREATE TABLE decisions (
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		time_ns    INTEGER NOT NULL,
		workspace  TEXT NOT NULL,
		session_id TEXT NOT NULL,
		turn_id    TEXT NOT NULL,
		tool       TEXT NOT NULL,
		capability TEXT NOT NULL,
		action     TEXT NOT NULL,
		scope      TEXT NOT NULL,
		decision   TEXT NOT NULL,
		source     TEXT NOT NULL,
		rule       TEXT NOT NULL,
		channel    TEXT NOT NULL,
		reason     TEXT NOT NULL
	);
	CREATE INDEX decisions_workspace ON decisions (workspace, id);`,
		// 2: persistent "Always allow" grants.
		`CREATE TABLE grants (
		workspace  TEXT NOT NULL,
		tool       TEXT NOT NULL,
		capability TEXT NOT NULL,
		action     TEXT NOT NULL,
		scope      TEXT NOT NULL,
		time_ns    INTEGER NOT NULL,
		PRIMARY KEY (workspace, tool, capability, action, scope)
	);`,
		// 3: sessions and their conversation, record by record.
		`CREATE TABLE sessions (
		id         TEXT PRIMARY KEY,
		workspace  TEXT NOT NULL,
		title      TEXT NOT NULL,   -- the first prompt, shortened
		model      TEXT NOT NULL,
		channel    TEXT NOT NULL,
		created_ns INTEGER NOT NULL,
		updated_ns INTEGER NOT NULL
	);
	CREATE INDEX sessions_workspace ON sessions (workspace, updated_ns);
	CREATE TABLE session_records (
		session_id TEXT    NOT NULL,
		seq        INTEGER NOT NULL,
		kind       TEXT    NOT NULL,  -- message, compaction, usage, todos
		data       TEXT    NOT NULL,  -- JSON
		time_ns    INTEGER NOT NULL,
		PRIMARY KEY (session_id, seq)
	);`,
		// 4: grants bound to the environment of the granted program
		// (permission.Request.GrantEnv) and keyed by it. Grants for
		// programs whose environment is now bound (go, npm, pnpm, yarn,
		// bun, npx, node, make, cargo, pytest, python) were given without
		// one and would never match again: they are dropped (the person is
		// asked once more). Every other grant is kept, with no environment.
		`CREATE TABLE grants_v4 (
		workspace  TEXT NOT NULL,
		tool       TEXT NOT NULL,
		capability TEXT NOT NULL,
		action     TEXT NOT NULL,
		scope      TEXT NOT NULL,
		env        TEXT NOT NULL DEFAULT '',
		time_ns    INTEGER NOT NULL,
		PRIMARY KEY (workspace, tool, capability, action, scope, env)
	);
	INSERT INTO grants_v4 (workspace, tool, capability, action, scope, env, time_ns)
		SELECT workspace, tool, capability, action, scope, '', time_ns FROM grants
		WHERE NOT (scope GLOB 'cmd:go' OR scope GLOB 'cmd:go *'
			OR scope GLOB 'cmd:npm' OR scope GLOB 'cmd:npm *' OR scope GLOB 'cmd:pnpm' OR scope GLOB 'cmd:pnpm *'
			OR scope GLOB 'cmd:yarn' OR scope GLOB 'cmd:yarn *' OR scope GLOB 'cmd:bun' OR scope GLOB 'cmd:bun *'
			OR scope GLOB 'cmd:npx *' OR scope GLOB 'cmd:node' OR scope GLOB 'cmd:node *' OR scope GLOB 'cmd:nodejs *'
			OR scope GLOB 'cmd:node[0-9]*' OR scope GLOB 'cmd:make' OR scope GLOB 'cmd:make *'
			OR scope GLOB 'cmd:gmake' OR scope GLOB 'cmd:gmake *' OR scope GLOB 'cmd:cargo' OR scope GLOB 'cmd:cargo *'
			OR scope GLOB 'cmd:pytest' OR scope GLOB 'cmd:pytest *' OR scope GLOB 'cmd:python' OR scope GLOB 'cmd:python *'
			OR scope GLOB 'cmd:python[0-9]*');
	DROP TABLE grants;
	ALTER TABLE grants_v4 RENAME TO grants;`,
		// 5: checkpoints (checkpoints.go): contents by hash, each
		// checkpoint's files before and after its step, and the stat
		// cache of the workspace folders they are taken in.
		`CREATE TABLE cp_blobs (
		hash TEXT PRIMARY KEY,   -- SHA-256 of data, hex
		size INTEGER NOT NULL,
		data BLOB NOT NULL
	);
	CREATE TABLE checkpoints (
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		workspace  TEXT    NOT NULL,
		session_id TEXT    NOT NULL,
		turn_id    TEXT    NOT NULL,
		call_id    TEXT    NOT NULL,
		tool       TEXT    NOT NULL,
		title      TEXT    NOT NULL,
		kind       TEXT    NOT NULL,  -- step, restore
		conv_seq   INTEGER,           -- the conversation's records before it; NULL: unknown
		time_ns    INTEGER NOT NULL,
		bytes      INTEGER NOT NULL,  -- content it alone keeps, for retention
		notes      TEXT    NOT NULL   -- JSON list: what it could not keep
	);
	CREATE INDEX checkpoints_session ON checkpoints (session_id, id);
	CREATE TABLE cp_files (
		checkpoint_id INTEGER NOT NULL,
		path          TEXT    NOT NULL,   -- absolute
		before        TEXT    NOT NULL,   -- JSON FileState
		after         TEXT    NOT NULL,
		before_hash   TEXT    NOT NULL,
		after_hash    TEXT    NOT NULL,
		PRIMARY KEY (checkpoint_id, path)
	);
	CREATE INDEX cp_files_before ON cp_files (before_hash);
	CREATE INDEX cp_files_after ON cp_files (after_hash);
	CREATE TABLE cp_index (
		workspace TEXT NOT NULL,
		path      TEXT NOT NULL,   -- relative to workspace
		entry     TEXT NOT NULL,   -- JSON IndexEntry
		hash      TEXT NOT NULL,
		PRIMARY KEY (workspace, path)
	);
	CREATE INDEX cp_index_hash ON cp_index (hash);`,
		// 6: when each workspace folder's checkpoint index was last used,
		// so the index of a folder no longer opened can go (PruneIndexes).
		`CREATE TABLE cp_workspaces (
		workspace TEXT PRIMARY KEY,
		used_ns   INTEGER NOT NULL
	);
	INSERT INTO cp_workspaces (workspace, used_ns)
		SELECT DISTINCT workspace, CAST((julianday('now') - 2440587.5) * 86400000000000 AS INTEGER) FROM cp_index;`,
	}
}

// migrate applies the missing migrations in one immediate transaction, so
// two processes opening a new database at once do not both apply them.
func (s *Store) migrate(ctx context.Context) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate schema: begin: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_ns INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrate schema: create version table: %w", err)
	}
	ms := migrations()
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&version); err != nil {
		return fmt.Errorf("migrate schema: read version: %w", err)
	}
	if version > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this agentls knows (%d): upgrade agentls", version, len(ms))
	}
	for v := version; v < len(ms); v++ {
		if _, err := tx.ExecContext(ctx, ms[v]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_ns) VALUES (?, ?)`,
			v+1, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("migrate schema to version %d: record version: %w", v+1, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate schema: commit: %w", err)
	}
	return nil
}

// Change is one file change the agent made, with what is needed to undo it.
type Change struct {
	// ID is assigned by RecordChange.
	ID int64
	// Workspace is the workspace's absolute root: the key revert looks
	// turns up by.
	Workspace string
	SessionID string
	// TurnID must be unique within the workspace across sessions and
	// processes: revert gathers a turn's changes by it.
	TurnID string
	Tool   string
	// Path is the changed file's absolute path.
	Path string
	// Before is the content the agent last saw before its change (the
	// original); BeforeExists is false when the file did not exist.
	Before       string
	BeforeExists bool
	// Intermediate is the file's content just before the change when the
	// user had changed it since agentls last read it; nil otherwise. It
	// implies the file existed.
	Intermediate *string
	// After is the content the agent wrote; AfterExists is false when the
	// change deleted the file.
	After       string
	AfterExists bool
	// Time is when the change was made; zero means now.
	Time time.Time
	// Reverted is set by MarkReverted; RecordChange ignores it.
	Reverted bool
}

// RecordChange stores c and returns its ID. It refuses contents over
// MaxContentBytes (ErrTooLarge) and changes that could not be reverted
// safely: relative paths, no turn, or content for a file said not to exist.
func (s *Store) RecordChange(ctx context.Context, c Change) (int64, error) {
	if err := validateChange(&c); err != nil {
		return 0, fmt.Errorf("record change to %s: %w", c.Path, err)
	}
	if c.Time.IsZero() {
		c.Time = time.Now()
	}
	var intermediate sql.NullString
	if c.Intermediate != nil {
		intermediate = sql.NullString{String: *c.Intermediate, Valid: true}
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO changes
		(workspace, session_id, turn_id, tool, path, before_text, before_exists, intermediate_text, after_text, after_exists, time_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Workspace, c.SessionID, c.TurnID, c.Tool, c.Path, c.Before, c.BeforeExists, intermediate,
		c.After, c.AfterExists, c.Time.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("record change to %s: %w", c.Path, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("record change to %s: read its id: %w", c.Path, err)
	}
	return id, nil
}

// validateChange checks c and cleans its paths in place.
func validateChange(c *Change) error {
	if !filepath.IsAbs(c.Workspace) {
		return fmt.Errorf("workspace %q is not an absolute path", c.Workspace)
	}
	if !filepath.IsAbs(c.Path) {
		return fmt.Errorf("path %q is not absolute", c.Path)
	}
	if c.TurnID == "" {
		return errors.New("no turn id")
	}
	c.Workspace, c.Path = filepath.Clean(c.Workspace), filepath.Clean(c.Path)
	if !c.BeforeExists && c.Before != "" {
		return errors.New("before content given for a file that did not exist")
	}
	if !c.AfterExists && c.After != "" {
		return errors.New("after content given for a deleted file")
	}
	for _, x := range []struct {
		name string
		text *string
	}{{"before", &c.Before}, {"intermediate", c.Intermediate}, {"after", &c.After}} {
		if x.text != nil && len(*x.text) > MaxContentBytes {
			return fmt.Errorf("%w: %s content is %d bytes, over the %d-byte limit", ErrTooLarge, x.name, len(*x.text), MaxContentBytes)
		}
	}
	return nil
}

// cleanWorkspace normalizes a workspace key the way RecordChange does, so
// "/w/" and "/w" name the same workspace.
func cleanWorkspace(ws string) string {
	if ws == "" {
		return ""
	}
	return filepath.Clean(ws)
}

// TurnChanges returns the turn's changes in the order they were recorded,
// reverted ones included (PlanRevert skips those).
func (s *Store) TurnChanges(ctx context.Context, workspace, turnID string) ([]Change, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, workspace, session_id, turn_id, tool, path,
		before_text, before_exists, intermediate_text, after_text, after_exists, time_ns, reverted
		FROM changes WHERE workspace = ? AND turn_id = ? ORDER BY id`, cleanWorkspace(workspace), turnID)
	if err != nil {
		return nil, fmt.Errorf("read changes of turn %s: %w", turnID, err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var (
			c            Change
			intermediate sql.NullString
			ns           int64
		)
		if err := rows.Scan(&c.ID, &c.Workspace, &c.SessionID, &c.TurnID, &c.Tool, &c.Path,
			&c.Before, &c.BeforeExists, &intermediate, &c.After, &c.AfterExists, &ns, &c.Reverted); err != nil {
			return nil, fmt.Errorf("read changes of turn %s: %w", turnID, err)
		}
		if intermediate.Valid {
			c.Intermediate = &intermediate.String
		}
		c.Time = time.Unix(0, ns)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read changes of turn %s: %w", turnID, err)
	}
	return out, nil
}

// LastTurn returns the most recently recorded turn of the workspace that
// still has unreverted changes, the default target of a revert; ErrNoTurn
// when there is none. Reverting turns one after another walks back.
func (s *Store) LastTurn(ctx context.Context, workspace string) (string, error) {
	var turn string
	err := s.db.QueryRowContext(ctx, `SELECT turn_id FROM changes
		WHERE workspace = ? AND reverted = 0 ORDER BY id DESC LIMIT 1`, cleanWorkspace(workspace)).Scan(&turn)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoTurn
	}
	if err != nil {
		return "", fmt.Errorf("find last turn: %w", err)
	}
	return turn, nil
}

// LastSessionTurn is LastTurn among the turns of one session (and its
// subagents, whose ids extend it: "<session>-<call>"): an ACP client's
// /revert undoes its own session's turn, not another's in the same
// workspace. An empty sessionID is LastTurn.
func (s *Store) LastSessionTurn(ctx context.Context, workspace, sessionID string) (string, error) {
	if sessionID == "" {
		return s.LastTurn(ctx, workspace)
	}
	var turn string
	err := s.db.QueryRowContext(ctx, `SELECT turn_id FROM changes
		WHERE workspace = ? AND reverted = 0 AND (session_id = ? OR substr(session_id, 1, ?) = ?)
		ORDER BY id DESC LIMIT 1`, cleanWorkspace(workspace), sessionID, len(sessionID)+1, sessionID+"-").Scan(&turn)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoTurn
	}
	if err != nil {
		return "", fmt.Errorf("find last turn of session %s: %w", sessionID, err)
	}
	return turn, nil
}

// MarkReverted records that the changes were undone, so LastTurn moves on
// and a second revert does not restore them again. It is all or nothing:
// an unknown id fails the whole call.
func (s *Store) MarkReverted(ctx context.Context, ids []int64) (err error) {
	if len(ids) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mark changes reverted: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `UPDATE changes SET reverted = 1 WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("mark change %d reverted: %w", id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("mark change %d reverted: %w", id, err)
		}
		if n == 0 {
			return fmt.Errorf("mark change %d reverted: no such change", id)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("mark changes reverted: commit: %w", err)
	}
	return nil
}

// Decision is one permission decision, kept for audit.
type Decision struct {
	// Time is when it was decided; zero means now.
	Time time.Time

	// The rest are stored verbatim, as the permission gate reports them.
	Workspace, SessionID, TurnID, Tool, Capability, Action, Scope, Decision, Source, Rule, Channel, Reason string
}

// RecordDecision appends d to the audit log.
func (s *Store) RecordDecision(ctx context.Context, d Decision) error {
	if d.Time.IsZero() {
		d.Time = time.Now()
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO decisions
		(time_ns, workspace, session_id, turn_id, tool, capability, action, scope, decision, source, rule, channel, reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.Time.UnixNano(), cleanWorkspace(d.Workspace), d.SessionID, d.TurnID, d.Tool, d.Capability, d.Action,
		d.Scope, d.Decision, d.Source, d.Rule, d.Channel, d.Reason); err != nil {
		return fmt.Errorf("record %s decision for %s: %w", d.Decision, d.Tool, err)
	}
	return nil
}

// Decisions returns the workspace's most recent decisions, newest first, at
// most limit of them (limit <= 0: all).
func (s *Store) Decisions(ctx context.Context, workspace string, limit int) ([]Decision, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.db.QueryContext(ctx, `SELECT time_ns, workspace, session_id, turn_id, tool, capability,
		action, scope, decision, source, rule, channel, reason
		FROM decisions WHERE workspace = ? ORDER BY id DESC LIMIT ?`, cleanWorkspace(workspace), limit)
	if err != nil {
		return nil, fmt.Errorf("read decisions: %w", err)
	}
	defer rows.Close()
	var out []Decision
	for rows.Next() {
		var (
			d  Decision
			ns int64
		)
		if err := rows.Scan(&ns, &d.Workspace, &d.SessionID, &d.TurnID, &d.Tool, &d.Capability,
			&d.Action, &d.Scope, &d.Decision, &d.Source, &d.Rule, &d.Channel, &d.Reason); err != nil {
			return nil, fmt.Errorf("read decisions: %w", err)
		}
		d.Time = time.Unix(0, ns)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read decisions: %w", err)
	}
	return out, nil
}
