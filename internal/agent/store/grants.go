package store

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// Grant is a persistent "Always allow" answer for one workspace. Scope is
// "cmd:<fingerprint>" for shell commands or "dir:<path relative to the
// root>" for files, as the permission gate defines it. Env is the digest
// of what shaped the granted program (permission.Request.GrantEnv): the
// grant covers it only while that is unchanged.
type Grant struct {
	Workspace, Tool, Capability, Action, Scope, Env string
	Time                                            time.Time
}

// HasGrant reports whether exactly this grant was saved.
func (s *Store) HasGrant(ctx context.Context, g Grant) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM grants WHERE workspace = ? AND tool = ? AND capability = ? AND action = ? AND scope = ? AND env = ?`,
		filepath.Clean(g.Workspace), g.Tool, g.Capability, g.Action, g.Scope, g.Env).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read grant: %w", err)
	}
	return n > 0, nil
}

// SaveGrant remembers a grant (saving it twice is harmless).
func (s *Store) SaveGrant(ctx context.Context, g Grant) error {
	if !filepath.IsAbs(g.Workspace) {
		return fmt.Errorf("save grant: workspace %q is not absolute", g.Workspace)
	}
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO grants (workspace, tool, capability, action, scope, env, time_ns) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		filepath.Clean(g.Workspace), g.Tool, g.Capability, g.Action, g.Scope, g.Env, time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("save grant: %w", err)
	}
	return nil
}

// Grants lists a workspace's grants ("" = every workspace), oldest first.
func (s *Store) Grants(ctx context.Context, workspace string) ([]Grant, error) {
	q := `SELECT workspace, tool, capability, action, scope, env, time_ns FROM grants`
	args := []any{}
	if workspace != "" {
		q += ` WHERE workspace = ?`
		args = append(args, filepath.Clean(workspace))
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY time_ns, rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	var out []Grant
	for rows.Next() {
		var g Grant
		var ns int64
		if err := rows.Scan(&g.Workspace, &g.Tool, &g.Capability, &g.Action, &g.Scope, &g.Env, &ns); err != nil {
			return nil, fmt.Errorf("list grants: %w", err)
		}
		g.Time = time.Unix(0, ns)
		out = append(out, g)
	}
	return out, rows.Err()
}

// RevokeGrant forgets a grant; it reports whether one was removed.
func (s *Store) RevokeGrant(ctx context.Context, g Grant) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM grants WHERE workspace = ? AND tool = ? AND capability = ? AND action = ? AND scope = ? AND env = ?`,
		filepath.Clean(g.Workspace), g.Tool, g.Capability, g.Action, g.Scope, g.Env)
	if err != nil {
		return false, fmt.Errorf("revoke grant: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
