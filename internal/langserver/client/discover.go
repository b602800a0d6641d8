package client

import (
	"context"
	"path/filepath"
	"strings"
)

// Bounds of Discover's walk.
const (
	// discoverEntries bounds the entries walked per workspace folder.
	discoverEntries = 5000
	// discoverTypes bounds the file types tried.
	discoverTypes = 64
)

// Walk lists a workspace folder for Discover: it calls visit with every
// entry below root (absolute path, and whether it is a folder) until
// visit returns false. The workspace decides what to skip (ignored or
// unreadable folders).
type Walk func(ctx context.Context, root string, visit func(path string, dir bool) bool)

// Discover returns every server of the workspace, for the queries that
// name no file: first it starts the servers for the languages the
// workspace's files are in, found by walking each folder (at most 5,000
// entries) once per set of folders and syncing the first file of each
// type.
func (s *Servers) Discover(ctx context.Context, walk Walk) ([]*Client, error) {
	m, err := s.Manager()
	if err != nil {
		return nil, err
	}
	key := strings.Join(s.ws.Roots(), "\x00")
	s.mu.Lock()
	done := s.discovered == key
	s.mu.Unlock()
	if done {
		return m.Clients(), nil
	}
	firsts := s.samples(ctx, walk)
	for _, f := range firsts {
		if err := m.Sync(ctx, f); err != nil && !Unavailable(err) {
			s.log.Debug("discover language servers", "path", f, "error", err)
		}
	}
	s.mu.Lock()
	s.discovered = key
	s.mu.Unlock()
	return m.Clients(), nil
}

// samples are the first file of each type in the workspace folders (at
// most 5,000 entries walked per folder, 64 types), walked once per set of
// folders: a walk cut short by ctx is not kept.
func (s *Servers) samples(ctx context.Context, walk Walk) []string {
	roots := s.ws.Roots()
	key := strings.Join(roots, "\x00")
	s.mu.Lock()
	if s.sampled == key && s.sampledFiles != nil {
		out := s.sampledFiles
		s.mu.Unlock()
		return out
	}
	s.mu.Unlock()
	firsts := []string{}
	seen := map[string]bool{}
	for _, r := range roots {
		n := 0
		walk(ctx, r, func(path string, dir bool) bool {
			if n++; n > discoverEntries {
				return false
			}
			if dir {
				return true
			}
			typ := strings.ToLower(filepath.Ext(path))
			if typ == "" {
				typ = strings.ToLower(filepath.Base(path))
			}
			if !seen[typ] && len(seen) < discoverTypes {
				seen[typ] = true
				firsts = append(firsts, path)
			}
			return true
		})
	}
	if ctx.Err() == nil {
		s.mu.Lock()
		s.sampled, s.sampledFiles = key, firsts
		s.mu.Unlock()
	}
	return firsts
}
