package acp

import (
	"strings"

	"github.com/agentls/agentls/internal/app"
)

// sharedEnv is the environment of one set of folders on this connection:
// the sessions opened on them share it — its language servers, MCP
// servers, sandbox and history store — and it closes with the last of
// them.
type sharedEnv struct {
	key   string
	env   *app.Env
	files *clientFiles
	terms *clientTerminals // nil unless the client offers terminals
	refs  int
}

// workspaceFor returns the connection's environment for roots, opening it
// for the first session on them; each call takes a reference that
// releaseWorkspace gives back.
func (s *Server) workspaceFor(roots []string) (*sharedEnv, error) {
	key := strings.Join(roots, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if ws, ok := s.workspaces[key]; ok {
		ws.refs++
		return ws, nil
	}
	files := newClientFiles(s.conn, s.caps.Fs, s.o.FileTimeout, s.log)
	fe := app.Frontend{Roots: roots, AskTrust: s.o.AskTrust}
	if files.active() {
		fe.Overlay, fe.Applier = files, files
	}
	var terms *clientTerminals
	if s.caps.Terminal {
		terms = newClientTerminals(s.conn, files.has, s.log)
		fe.Terminals = terms
	}
	env, err := s.o.App.Open(fe)
	if err != nil {
		return nil, err
	}
	files.setInside(env.Workspace().Inside)
	ws := &sharedEnv{key: key, env: env, files: files, terms: terms, refs: 1}
	if s.workspaces == nil {
		s.workspaces = map[string]*sharedEnv{}
	}
	s.workspaces[key] = ws
	return ws, nil
}

// releaseWorkspace gives a reference back, closing the environment when
// no session uses it any more.
func (s *Server) releaseWorkspace(ws *sharedEnv) {
	s.mu.Lock()
	ws.refs--
	last := ws.refs == 0
	if last {
		delete(s.workspaces, ws.key)
	}
	s.mu.Unlock()
	if last {
		ws.env.Close()
	}
}
