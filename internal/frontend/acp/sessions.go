package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// session is one ACP session: an agentls session in the environment of
// its workspace, which the connection's other sessions on the same
// folders share (one gopls, one set of MCP servers, one history store);
// permission prompts are asked in this session's name, and the client's
// file system in the name of the session whose call reads or writes.
type session struct {
	srv   *Server
	id    string
	ws    *sharedEnv
	env   *app.Env
	as    *app.Session
	files *clientFiles
	tr    *translator

	mu        sync.Mutex
	busy      bool // a prompt is being answered
	cancelled bool // session/cancel arrived for the prompt being answered
	turn      *agent.Turn
}

// open makes a session's environment and agentls session; resume names a
// stored session to continue ("" starts a new one).
func (s *Server) open(ctx context.Context, method, cwd string, extra []string, servers []sdk.McpServer, resume string) (*session, error) {
	roots, err := rootsOf(method, cwd, extra)
	if err != nil {
		return nil, err
	}
	mcp, err := mcpServers(method, servers)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspaceFor(roots)
	if err != nil {
		return nil, reqErr(codeInvalidParams, "%s: open the workspace %s: %v", method, roots[0], err)
	}
	env, files := ws.env, ws.files
	ss := &session{srv: s, ws: ws, env: env, files: files}
	ss.tr = newTranslator(ss)
	so := app.SessionOptions{Asker: &asker{ss: ss}, Channel: Channel, MCPServers: mcp, Resume: resume}
	if e := s.clientCaps().Elicitation; e != nil && e.Form != nil {
		so.Questioner = questioner{ss: ss}
	}
	as, err := env.NewSession(ctx, so)
	if err != nil {
		s.releaseWorkspace(ws)
		switch {
		case errors.Is(err, store.ErrNoSession):
			return nil, reqErr(codeNotFound, "%s: %v; session/list shows the stored sessions of a folder", method, err)
		case errors.Is(err, app.ErrNoHistory):
			return nil, reqErr(codeInvalidRequest, "%s: %v; start a new session with session/new", method, err)
		}
		return nil, reqErr(codeInternal, "%s: %v", method, err)
	}
	ss.id, ss.as = as.ID, as
	files.addSession(as.ID)
	return ss, nil
}

// rootsOf checks the session's folders: cwd first (relative paths start
// there), then the additional directories.
func rootsOf(method, cwd string, extra []string) ([]string, error) {
	var roots []string
	for i, d := range append([]string{cwd}, extra...) {
		name := "cwd"
		if i > 0 {
			name = "additionalDirectories"
		}
		if !filepath.IsAbs(d) {
			return nil, reqErr(codeInvalidParams, "%s: %s %q must be an absolute path to a folder", method, name, d)
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, reqErr(codeInvalidParams, "%s: %s %s is not a folder agentls can open", method, name, d)
		}
		roots = append(roots, filepath.Clean(d))
	}
	return roots, nil
}

// mcpServers turns the client's MCP servers into agentls's form: entries
// like the editor settings' own `mcp` ones (the person configured them in
// their client), named so their tools can be (lower case, at most 32
// characters, unique). SSE servers are refused: MCP replaced SSE with
// streamable HTTP, which agentls speaks.
func mcpServers(method string, in []sdk.McpServer) (config.MCPServers, error) {
	out := config.MCPServers{}
	for i, m := range in {
		var name string
		var c config.MCPServer
		switch {
		case m.Stdio != nil:
			name = m.Stdio.Name
			c = config.MCPServer{Type: "stdio", Command: []string{m.Stdio.Command}, Args: m.Stdio.Args}
			for _, e := range m.Stdio.Env {
				if c.Env == nil {
					c.Env = map[string]string{}
				}
				c.Env[e.Name] = e.Value
			}
		case m.Http != nil:
			name = m.Http.Name
			c = config.MCPServer{Type: "http", URL: m.Http.Url, Headers: headers(m.Http.Headers)}
		case m.Sse != nil:
			return nil, reqErr(codeInvalidParams, "%s: mcpServers[%d] (%s) uses SSE, which agentls does not speak: give the server's streamable HTTP endpoint instead", method, i, m.Sse.Name)
		default:
			return nil, reqErr(codeInvalidParams, "%s: mcpServers[%d] is neither a stdio nor an http server", method, i)
		}
		c.From = "the ACP client's mcpServers"
		key := mcpName(name, i)
		for n := 2; ; n++ {
			if _, taken := out[key]; !taken {
				break
			}
			key = mcpName(fmt.Sprintf("%s-%d", name, n), i)
		}
		out[key] = c
	}
	if err := (config.Config{MCP: out}).Validate(); err != nil {
		return nil, reqErr(codeInvalidParams, "%s: mcpServers: %v", method, err)
	}
	return out, nil
}

// mcpName makes a client's server name one agentls accepts: lower case
// letters, digits, - and _, starting with a letter or digit, at most 32
// characters; i names a server without a usable name.
func mcpName(name string, i int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-_")
	if s == "" {
		s = fmt.Sprintf("server%d", i+1)
	}
	if len(s) > 32 {
		s = strings.TrimRight(s[:32], "-_")
	}
	return s
}

func headers(hs []sdk.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// add registers an open session.
func (s *Server) add(ss *session) {
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
}

// remove forgets a session; it reports whether it was open.
func (s *Server) remove(ss *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[ss.id] != ss {
		return false
	}
	delete(s.sessions, ss.id)
	return true
}

// NewSession implements ACP's session/new: cwd is the workspace root.
func (s *Server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := s.ready("session/new"); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	ss, err := s.open(ctx, "session/new", p.Cwd, p.AdditionalDirectories, p.McpServers, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s.add(ss)
	s.log.Info("acp: session/new", "session", ss.id, "cwd", p.Cwd, "mode", ss.as.Gate.Mode(), "mcpServers", len(p.McpServers))
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(ss.id), Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

// LoadSession implements ACP's session/load: the stored session is
// opened, its conversation is sent again as session/update notifications,
// and it goes on from where it was.
func (s *Server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	ss, err := s.reopen(ctx, "session/load", p.SessionId, p.Cwd, p.AdditionalDirectories, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := ss.replay(ctx); err != nil {
		s.remove(ss)
		ss.close(s.o.ShutdownTimeout)
		return sdk.LoadSessionResponse{}, reqErr(codeInternal, "session/load: %v", err)
	}
	return sdk.LoadSessionResponse{Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

// ResumeSession implements ACP's session/resume: session/load without
// sending the conversation again.
func (s *Server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	ss, err := s.reopen(ctx, "session/resume", p.SessionId, p.Cwd, p.AdditionalDirectories, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

// reopen opens a stored session, replacing this connection's copy of it
// when it is idle.
func (s *Server) reopen(ctx context.Context, method string, id sdk.SessionId, cwd string, extra []string, servers []sdk.McpServer) (*session, error) {
	if err := s.ready(method); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, reqErr(codeInvalidParams, "%s: sessionId is empty: name a session from session/list", method)
	}
	if old := s.get(string(id)); old != nil {
		if old.isBusy() {
			return nil, reqErr(codeInvalidRequest, "%s: session %s is answering a prompt: send session/cancel and wait for the prompt's response first", method, id)
		}
		s.remove(old)
		old.close(s.o.ShutdownTimeout)
	}
	ss, err := s.open(ctx, method, cwd, extra, servers, string(id))
	if err != nil {
		return nil, err
	}
	s.add(ss)
	s.log.Info("acp: "+method, "session", ss.id, "cwd", cwd)
	return ss, nil
}

// ListSessions implements ACP's session/list: the stored sessions of a
// folder (every folder's when cwd is not given), most recent first.
func (s *Server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	if err := s.ready("session/list"); err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	var roots []string
	filter := ""
	if p.Cwd != nil && *p.Cwd != "" {
		r, err := rootsOf("session/list", *p.Cwd, nil)
		if err != nil {
			return sdk.ListSessionsResponse{}, err
		}
		roots, filter = r, r[0]
	}
	env, err := s.o.App.Open(app.Frontend{Roots: roots})
	if err != nil {
		return sdk.ListSessionsResponse{}, reqErr(codeInternal, "session/list: %v", err)
	}
	defer env.Close()
	st, err := env.Store(ctx)
	if err != nil {
		return sdk.ListSessionsResponse{}, reqErr(codeInvalidRequest, "session/list: %v", err)
	}
	list, err := st.Sessions(ctx, filter)
	if err != nil {
		return sdk.ListSessionsResponse{}, reqErr(codeInternal, "session/list: %v", err)
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, info := range list {
		title, updated := info.Title, info.Updated.UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(info.ID), Cwd: info.Workspace, Title: &title, UpdatedAt: &updated})
	}
	return out, nil
}

// CloseSession implements ACP's session/close: the running prompt is
// cancelled and the session's environment (language servers, background
// jobs) closes. The stored session stays: session/load opens it again.
func (s *Server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	ss, err := s.lookup("session/close", p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	if s.remove(ss) {
		ss.close(s.o.ShutdownTimeout)
	}
	return sdk.CloseSessionResponse{}, nil
}

// send sends one session/update for this session. A failure (the client
// went away) is logged: the turn goes on.
func (ss *session) send(u sdk.SessionUpdate) {
	err := ss.srv.conn.SessionUpdate(ss.srv.base, sdk.SessionNotification{SessionId: sdk.SessionId(ss.id), Update: u})
	if err != nil {
		ss.srv.log.Debug("acp: session/update not sent", "session", ss.id, "error", err)
	}
}

// isBusy reports whether a prompt is being answered.
func (ss *session) isBusy() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.busy
}

// close cancels the running turn, waits up to wait for it, and closes the
// environment.
func (ss *session) close(wait time.Duration) {
	ss.mu.Lock()
	t := ss.turn
	ss.mu.Unlock()
	if t != nil {
		t.Cancel()
		select {
		case <-t.Done():
		case <-time.After(max(wait, 0)):
			ss.srv.log.Warn("acp: a turn did not stop in time; closing its session anyway", "session", ss.id, "turn", t.ID)
		}
	}
	ss.as.Gate.EndSession(ss.id)
	ss.env.Workspace().ForgetReads(ss.id)
	ss.files.removeSession(ss.id)
	ss.srv.releaseWorkspace(ss.ws)
}
