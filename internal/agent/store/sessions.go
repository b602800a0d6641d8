package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrNoSession is returned when a session id, or a workspace's latest
// session, is not in the store.
var ErrNoSession = errors.New("no such session")

// SessionInfo describes a stored session.
type SessionInfo struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Title     string    `json:"title"`
	Model     string    `json:"model"`
	Channel   string    `json:"channel"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Records   int       `json:"records"`
}

// Record is one entry of a session's journal: a message, a compaction, a
// usage report or the todo list, as JSON the agent package defines.
type Record struct {
	Seq  int       `json:"seq"`
	Kind string    `json:"kind"`
	Data string    `json:"data"`
	Time time.Time `json:"time"`
}

// SaveSession creates a session's row, or refreshes its title, model and
// update time when it exists.
func (s *Store) SaveSession(ctx context.Context, info SessionInfo) error {
	now := time.Now().UnixNano()
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions (id, workspace, title, model, channel, created_ns, updated_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET model = excluded.model, updated_ns = excluded.updated_ns,
			title = CASE WHEN sessions.title = '' THEN excluded.title ELSE sessions.title END`,
		info.ID, info.Workspace, info.Title, info.Model, info.Channel, now, now)
	if err != nil {
		return fmt.Errorf("save session %s: %w", info.ID, err)
	}
	return nil
}

// AppendRecord adds one record at the end of a session's journal and
// returns its sequence number. Each record is its own committed
// transaction, so a crash loses at most the record being written.
func (s *Store) AppendRecord(ctx context.Context, sessionID, kind, data string) (seq int, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("append to session %s: %w", sessionID, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err = tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM session_records WHERE session_id = ?`, sessionID).Scan(&seq); err != nil {
		return 0, fmt.Errorf("append to session %s: %w", sessionID, err)
	}
	now := time.Now().UnixNano()
	if _, err = tx.ExecContext(ctx, `INSERT INTO session_records (session_id, seq, kind, data, time_ns) VALUES (?, ?, ?, ?, ?)`,
		sessionID, seq, kind, data, now); err != nil {
		return 0, fmt.Errorf("append to session %s: %w", sessionID, err)
	}
	if _, err = tx.ExecContext(ctx, `UPDATE sessions SET updated_ns = ? WHERE id = ?`, now, sessionID); err != nil {
		return 0, fmt.Errorf("append to session %s: %w", sessionID, err)
	}
	if err = tx.Commit(); err != nil {
		return 0, fmt.Errorf("append to session %s: %w", sessionID, err)
	}
	return seq, nil
}

// Records returns a session's journal in order.
func (s *Store) Records(ctx context.Context, sessionID string) ([]Record, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, kind, data, time_ns FROM session_records WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var r Record
		var ns int64
		if err := rows.Scan(&r.Seq, &r.Kind, &r.Data, &ns); err != nil {
			return nil, fmt.Errorf("read session %s: %w", sessionID, err)
		}
		r.Time = time.Unix(0, ns)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Session returns one session's description.
func (s *Store) Session(ctx context.Context, id string) (SessionInfo, error) {
	row := s.db.QueryRowContext(ctx, sessionSelect+` WHERE s.id = ? GROUP BY s.id`, id)
	info, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return info, fmt.Errorf("session %s: %w", id, ErrNoSession)
	}
	return info, err
}

// Sessions lists a workspace's sessions, most recently updated first
// ("" lists every workspace's).
func (s *Store) Sessions(ctx context.Context, workspace string) ([]SessionInfo, error) {
	q := sessionSelect
	args := []any{}
	if workspace != "" {
		q += ` WHERE s.workspace = ?`
		args = append(args, workspace)
	}
	rows, err := s.db.QueryContext(ctx, q+` GROUP BY s.id ORDER BY s.updated_ns DESC, s.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []SessionInfo
	for rows.Next() {
		info, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, rows.Err()
}

// LatestSession returns the workspace's most recently updated session.
func (s *Store) LatestSession(ctx context.Context, workspace string) (SessionInfo, error) {
	list, err := s.Sessions(ctx, workspace)
	if err != nil {
		return SessionInfo{}, err
	}
	if len(list) == 0 {
		return SessionInfo{}, fmt.Errorf("no session in %s: %w", workspace, ErrNoSession)
	}
	return list[0], nil
}

// DeleteSession removes a session, its journal and its checkpoints.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %s: %w", id, ErrNoSession)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_records WHERE session_id = ?`, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	// Its checkpoints go with it, and the contents only they kept.
	if _, err := tx.ExecContext(ctx, `DELETE FROM cp_files WHERE checkpoint_id IN (SELECT id FROM checkpoints WHERE session_id = ?)`, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE session_id = ?`, id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := collectBlobs(ctx, tx); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

const sessionSelect = `SELECT s.id, s.workspace, s.title, s.model, s.channel, s.created_ns, s.updated_ns, COUNT(r.seq)
	FROM sessions s LEFT JOIN session_records r ON r.session_id = s.id`

type scanner interface{ Scan(...any) error }

func scanSession(row scanner) (SessionInfo, error) {
	var info SessionInfo
	var created, updated int64
	if err := row.Scan(&info.ID, &info.Workspace, &info.Title, &info.Model, &info.Channel, &created, &updated, &info.Records); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return info, err
		}
		return info, fmt.Errorf("read session: %w", err)
	}
	info.Created, info.Updated = time.Unix(0, created), time.Unix(0, updated)
	return info, nil
}
