package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/langserver/client"
)

// Options configure Serve.
type Options struct {
	// App is the composition root every session is made from.
	App *app.App
	// Name and Version are reported in initialize's agentInfo.
	Name, Version string
	// AskTrust is told when a language server's full form would run code
	// from a folder the person has not trusted; nil logs it.
	AskTrust func(client.TrustRequest)
	// FileTimeout bounds one fs/read_text_file or fs/write_text_file
	// request; 0 means DefaultFileTimeout. A read that fails or times out
	// falls back to the disk.
	FileTimeout time.Duration
	// ShutdownTimeout bounds how long running turns may take to stop when
	// the connection ends; 0 means 10 s.
	ShutdownTimeout time.Duration
}

// DefaultFileTimeout bounds a request to the client's file system.
const DefaultFileTimeout = 10 * time.Second

// Channel names ACP in permission events and the audit log.
const Channel = "acp"

// Server is one ACP connection: the client's capabilities and the
// sessions it opened. Every method the SDK calls is one of ACP's agent
// methods (initialize, session/new, …).
type Server struct {
	o    Options
	log  *slog.Logger
	conn *sdk.AgentSideConnection
	// base outlives every request: turns run on it, so a session/prompt
	// request whose context the SDK cancels (it does so for an earlier
	// prompt of the same session) does not stop the turn; session/cancel
	// and the end of the connection do.
	base context.Context
	stop context.CancelFunc

	mu       sync.Mutex
	inited   bool
	caps     sdk.ClientCapabilities
	sessions map[string]*session
	// workspaces are the environments of the sessions' folders, shared by
	// the sessions on the same folders (sharedenv.go).
	workspaces map[string]*sharedEnv
}

// Serve runs an ACP agent on one connection (in: what the client sends,
// out: where agentls writes) until the client closes it or ctx ends, then
// stops every turn and closes every session's environment.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.App == nil {
		return fmt.Errorf("acp: no composition root (Options.App)")
	}
	if o.FileTimeout <= 0 {
		o.FileTimeout = DefaultFileTimeout
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	if o.Name == "" {
		o.Name = "agentls"
	}
	base, stop := context.WithCancel(ctx)
	s := &Server{o: o, log: o.App.Log(), base: base, stop: stop, sessions: map[string]*session{}}
	pr, pw := io.Pipe()
	w := newWire(in, out, s.log, s.watch)
	sdkLog := newClosingHandler(s.log.Handler())
	defer sdkLog.close()
	s.conn = sdk.NewAgentSideConnection(s, w, pr)
	s.conn.SetLogger(slog.New(sdkLog))
	// The pump starts only now: no request reaches a handler before conn is set.
	go w.pump(pw)
	select {
	case <-s.conn.Done():
		s.log.Info("acp: the client closed the connection")
	case <-ctx.Done():
		s.log.Info("acp: stopping", "reason", context.Cause(ctx))
	}
	s.shutdown(w)
	return nil
}

// shutdown cancels every turn (their prompts are answered "cancelled"),
// waits a bounded time for every request read to be answered, and closes
// the sessions' environments.
func (s *Server) shutdown(w *wire) {
	s.stop()
	if !w.drain(s.o.ShutdownTimeout) {
		s.log.Warn("acp: some requests were not answered before the connection ended")
	}
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	deadline := time.Now().Add(s.o.ShutdownTimeout)
	for _, ss := range all {
		ss.close(time.Until(deadline))
	}
}

// watch is told of every request before it is handled (wire.check): a
// session made or loaded gets its slash commands and the settings'
// warnings once the reply carrying its id is out.
func (s *Server) watch(method string, params json.RawMessage) func(json.RawMessage) {
	switch method {
	case sdk.AgentMethodSessionNew:
		return func(result json.RawMessage) {
			var r struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(result, &r) == nil && r.SessionID != "" {
				s.sessionReady(r.SessionID)
			}
		}
	case sdk.AgentMethodSessionLoad, sdk.AgentMethodSessionResume:
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(params, &p) != nil || p.SessionID == "" {
			return nil
		}
		return func(result json.RawMessage) {
			if result != nil {
				s.sessionReady(p.SessionID)
			}
		}
	}
	return nil
}

// sessionReady tells the client what a new session offers.
func (s *Server) sessionReady(id string) {
	ss := s.get(id)
	if ss == nil {
		return
	}
	ss.send(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: commandList()}})
	for _, w := range ss.as.Settings.Warnings {
		ss.send(sdk.UpdateAgentMessageText("agentls: " + w + "\n"))
	}
}

// reqErr is a JSON-RPC error whose message says what went wrong and what
// to do.
func reqErr(code int, format string, args ...any) *sdk.RequestError {
	return &sdk.RequestError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ready refuses session methods before initialize.
func (s *Server) ready(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.inited {
		return reqErr(codeInvalidRequest, "%s before initialize: send initialize (protocolVersion 1) first", method)
	}
	return nil
}

// clientCaps returns what the client said it can do.
func (s *Server) clientCaps() sdk.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// get returns an open session, or nil.
func (s *Server) get(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// lookup returns an open session or the error for a request naming one
// that is not.
func (s *Server) lookup(method string, id sdk.SessionId) (*session, error) {
	if err := s.ready(method); err != nil {
		return nil, err
	}
	if ss := s.get(string(id)); ss != nil {
		return ss, nil
	}
	return nil, reqErr(codeNotFound, "%s: session %q is not open on this connection: create one with session/new or open a stored one with session/load", method, id)
}

// Initialize implements ACP's initialize: agentls speaks protocol version
// 1 whatever the client asks for (the client disconnects if it cannot).
func (s *Server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.inited, s.caps = true, p.ClientCapabilities
	s.mu.Unlock()
	client := "unknown client"
	if p.ClientInfo != nil {
		client = p.ClientInfo.Name + " " + p.ClientInfo.Version
	}
	s.log.Info("acp: initialize", "client", client, "protocolVersion", p.ProtocolVersion,
		"fs.readTextFile", p.ClientCapabilities.Fs.ReadTextFile, "fs.writeTextFile", p.ClientCapabilities.Fs.WriteTextFile,
		"terminal", p.ClientCapabilities.Terminal)
	title := "agentls"
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
			// The client's MCP servers over streamable HTTP are used
			// (sessions.go); SSE is refused with a message.
			McpCapabilities: sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List: &sdk.SessionListCapabilities{}, Close: &sdk.SessionCloseCapabilities{}, Resume: &sdk.SessionResumeCapabilities{},
			},
		},
		AgentInfo:   &sdk.Implementation{Name: s.o.Name, Title: &title, Version: s.o.Version},
		AuthMethods: authMethods(),
	}, nil
}

// closingHandler passes the SDK's log records on until Serve returns;
// after that (the SDK's goroutines may still log the connection's end)
// they are dropped, so nothing writes to the log once Serve is done.
type closingHandler struct {
	h  slog.Handler
	st *closeState
}

// closeState is shared by a closingHandler and the handlers made from it.
type closeState struct {
	mu     sync.Mutex
	closed bool
}

func newClosingHandler(h slog.Handler) *closingHandler {
	return &closingHandler{h: h, st: &closeState{}}
}

func (c *closingHandler) close() {
	c.st.mu.Lock()
	c.st.closed = true
	c.st.mu.Unlock()
}

// Enabled implements slog.Handler.
func (c *closingHandler) Enabled(ctx context.Context, l slog.Level) bool { return c.h.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (c *closingHandler) Handle(ctx context.Context, r slog.Record) error {
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	if c.st.closed {
		return nil
	}
	return c.h.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (c *closingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &closingHandler{h: c.h.WithAttrs(as), st: c.st}
}

// WithGroup implements slog.Handler.
func (c *closingHandler) WithGroup(name string) slog.Handler {
	return &closingHandler{h: c.h.WithGroup(name), st: c.st}
}
