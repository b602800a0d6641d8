// Package lsp is the editor-facing language server: lifecycle, the overlay
// of open documents, the agentls.* commands, work-done progress, and the
// editor adapter that asks through window/showMessageRequest.
//
// Methods are grouped by family, one file each (lifecycle.go, textsync.go,
// command.go); the Server struct holds all state.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/framing"
	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/langserver/wrap"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// Options configure a Server.
type Options struct {
	// Name and Version are reported in serverInfo.
	Name, Version string
	// App makes the connection's workspace environment and its session
	// (the composition root); nil means app.New with no user config.
	App *app.App
	// EditTimeout bounds the editor's answer to an edit (applyEdit, and
	// the plugin's save); 0 means DefaultEditTimeout.
	EditTimeout time.Duration
	// Wrap is the language server to wrap (agentls serve --wrap CMD…):
	// started at initialize, it answers the editor's standard requests
	// and the lsp_* tools use it (wrap.go). Empty: agentls serves alone.
	Wrap []string
}

type lifecycle int

const (
	stateNew lifecycle = iota
	stateInitialized
	stateShutdown
)

// MaxMessageSize bounds one incoming message. A larger one is skipped and
// answered with an error; the connection stays up.
const MaxMessageSize = 32 << 20

// Server is one editor connection's language server.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn
	docs *overlay.Store
	env  *app.Env         // the connection's workspace environment
	ws   *tools.Workspace // env's workspace
	lsp  *tools.LSPEnv    // env's language servers (the lsp_* tools')

	// base lives as long as the connection; turns run under it.
	base   context.Context
	cancel context.CancelFunc
	exit   chan int
	// editor is the editor's stream when a server is wrapped (nil
	// otherwise); wrapLost is signalled when that server ends unasked.
	wrapIn   *wrap.Editor
	wrapLost chan struct{}

	mu         sync.Mutex
	state      lifecycle
	caps       clientCaps
	clientName string // initialize's clientInfo.name, for wording (wording.go)
	// configChanged: the client's settings changed since the session was
	// made; the next ask remakes it from them, resuming the conversation.
	configChanged bool
	// configGen is the user's config file generation the session was made
	// with (App.UserConfig): a saved change counts as changed settings.
	configGen int
	editor    config.Config // initializationOptions
	session   *app.Session
	gate      *permission.Gate
	// chosenModel is a model chosen (agentls.setModel) before there is a
	// session; settingsModel is the model the settings named when the
	// session was made or its model chosen: a later change of the
	// settings' model is a choice too (model.go).
	chosenModel, settingsModel string
	pending                    map[string]permission.Question
	approved                   map[string]permission.Answer // out-of-band answers not yet reported (agentls/askDone)
	questions                  openQuestions                // the agent's questions sent out of band (questionasync.go)
	trust                      trustState
	turns                      map[string]*turnReporter // running turns by progress token
	inflight                   map[string]context.CancelFunc
	// wrapProblem says why the wrapped server did not start, shown once
	// the editor is initialized.
	wrapProblem string
	// agentEdits counts, by path, the agent's edits being applied through
	// the editor: the didChange and didSave they cause are not the
	// person's (personChanged).
	agentEdits map[string]int
	// agentTexts are, by path, the buffer texts the agent's edits applied
	// through the editor leave, until a didChange brings that text: the
	// editor may send it after answering the applyEdit (Neovim debounces
	// didChange), and it is still the agent's change.
	agentTexts map[string]string
	inline     inlineState   // inline completion (inline.go)
	next       nextEditState // next-edit suggestions (nextedit.go)
	symbols    symbolLookups // the symbols near the cursor (inlinectx.go)
}

// docOverlay adapts the overlay store to the tools' Overlay interface.
type docOverlay struct{ s *overlay.Store }

func (o docOverlay) Document(path string) (tools.Document, bool) {
	text, v, ok := o.s.Get(path)
	return tools.Document{Text: text, Version: v}, ok
}

// Serve runs the server on rwc (stdin/stdout in production, a pipe in
// tests) until the client sends exit or closes the connection. It returns
// the process exit code: 0 after shutdown then exit, 1 otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	s, err := newServer(ctx, opts)
	if err != nil {
		opts.App.Log().Error("start the server", "error", err)
		return 1
	}
	var stream jsonrpc2.Stream = framing.New(rwc, framing.Options{MaxMessageSize: MaxMessageSize, AnswerBadFrames: true, Peer: "client", Log: s.log})
	if len(opts.Wrap) > 0 {
		s.wrapIn = wrap.NewEditor(stream, s.wrapRoute)
		stream = s.wrapIn
	}
	s.conn = jsonrpc2.NewConn(stream)
	s.conn.Go(s.base, s.handle)
	defer s.cancel()
	defer s.closeWithin(exitCloseBound)
	select {
	case code := <-s.exit:
		s.cancel()
		// Close flushes what is queued for the client, then closes the
		// connection. The reader may stay blocked in a read of stdin that
		// Close cannot interrupt (a pipe the editor keeps open), so do not
		// wait for it: the process exits with the code now.
		_ = s.conn.Close()
		return code
	case <-ctx.Done():
		// SIGTERM/SIGINT: stop now, like exit without shutdown.
		s.cancel()
		_ = s.conn.Close()
		return s.codeWithoutExit()
	case <-s.wrapLost:
		// The wrapped server ended unasked (watchWrapped said so).
		s.cancel()
		_ = s.conn.Close()
		return 1
	case <-s.conn.Done():
		s.cancel()
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			s.log.Warn("connection ended", "error", err)
		}
		return s.codeWithoutExit()
	}
}

// codeWithoutExit is the exit code when the connection ends without an
// exit notification: 0 after shutdown, 1 otherwise.
func (s *Server) codeWithoutExit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateShutdown {
		return 0
	}
	return 1
}

func newServer(ctx context.Context, opts Options) (*Server, error) {
	if opts.App == nil {
		opts.App = app.New(app.Options{})
	}
	if opts.Name == "" {
		opts.Name = "agentls"
	}
	docs := overlay.NewStore()
	base, cancel := context.WithCancel(ctx)
	s := &Server{
		opts: opts, log: opts.App.Log(), docs: docs,
		base: base, cancel: cancel, exit: make(chan int, 1), wrapLost: make(chan struct{}, 1),
		turns: map[string]*turnReporter{}, inflight: map[string]context.CancelFunc{},
	}
	env, err := opts.App.Open(app.Frontend{Overlay: docOverlay{docs}, Applier: editorApplier{s}, AskTrust: s.askTrust})
	if err != nil {
		cancel()
		return nil, err
	}
	s.env, s.ws, s.lsp = env, env.Workspace(), env.LSP()
	return s, nil
}

// closeSession ends what the connection left running (background jobs,
// language servers) and closes the history and the workspace folders.
func (s *Server) closeSession() {
	s.env.Close()
	if s.wrapIn != nil {
		if m := s.wrapIn.Mux(); m != nil {
			m.Close(2 * time.Second)
		}
	}
}

// exitCloseBound is how long agentls spends closing down after the
// connection ends before it exits anyway: the editor waits for the
// process (Neovim sends SIGTERM after a few seconds), and what is left is
// ended by the exit (language and MCP servers read EOF on stdin).
const exitCloseBound = 4 * time.Second

// closeWithin runs closeSession, waiting for it at most bound.
func (s *Server) closeWithin(bound time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.closeSession()
	}()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.log.Warn("still closing down; exiting anyway", "after", bound)
	}
}

// handle is the jsonrpc2 handler. It never returns an error: jsonrpc2
// ends the connection on one. Notifications run in order on the reading
// goroutine (document sync must be ordered); calls other than the
// lifecycle ones run concurrently so a slow one blocks nothing.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	call, isCall := req.(*jsonrpc2.Call)
	if !isCall {
		s.notification(ctx, req.Method(), req.Params())
		return nil
	}
	if err := s.admit(call.Method()); err != nil {
		s.reply(ctx, reply, call.Method(), nil, err)
		return nil
	}
	switch call.Method() {
	case "initialize", "shutdown":
		res, err := s.call(ctx, call.Method(), call.Params())
		s.reply(ctx, reply, call.Method(), res, err)
		return nil
	}
	key := fmt.Sprint(call.ID())
	cctx, cancel := context.WithCancel(s.base)
	s.mu.Lock()
	s.inflight[key] = cancel
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			cancel()
		}()
		var res any
		var err error
		if m := s.wrapped(); m != nil && call.Method() == "textDocument/codeAction" {
			res, err = s.mergedCodeAction(cctx, m, call.ID(), call.Params())
		} else {
			res, err = s.call(cctx, call.Method(), call.Params())
		}
		if err == nil && cctx.Err() != nil && s.base.Err() == nil {
			err = &jsonrpc2.Error{Code: codeRequestCancelled, Message: call.Method() + " was cancelled"}
		}
		s.reply(ctx, reply, call.Method(), res, err)
		if pr, ok := res.(postReplier); ok {
			pr.afterReply() // also after an error reply: it releases what waits
		}
	}()
	return nil
}

// postReplier is a result with work to do once its reply is queued.
type postReplier interface{ afterReply() }

// admit applies the lifecycle rules to a request.
func (s *Server) admit(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.state == stateShutdown:
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown: the server only accepts exit now", method)
	case s.state == stateNew && method != "initialize":
		return jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize: send initialize first", method)
	case s.state != stateNew && method == "initialize":
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize sent twice")
	}
	return nil
}

func (s *Server) reply(ctx context.Context, reply jsonrpc2.Replier, method string, res any, err error) {
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: err.Error()}
		}
		err = rpcErr
		res = nil
	}
	if rerr := reply(ctx, res, err); rerr != nil {
		s.log.Warn("reply failed", "method", method, "error", rerr)
	}
}

// call dispatches a request by method.
func (s *Server) call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "initialize":
		return s.initialize(ctx, params)
	case "shutdown":
		return s.shutdown(ctx)
	case "workspace/executeCommand":
		return s.executeCommand(ctx, params)
	case "textDocument/codeAction":
		return s.codeAction(ctx, params)
	case "codeAction/resolve":
		// agentls's actions are complete; it offers resolve only for a
		// wrapped server's (wrapRoute).
		return json.RawMessage(params), nil
	case "textDocument/inlineCompletion":
		return s.inlineCompletion(ctx, params)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method %s is not supported by agentls", method)
}

// notification dispatches a notification by method. Unknown ones are
// ignored, as the spec asks.
func (s *Server) notification(ctx context.Context, method string, params json.RawMessage) {
	if method == "exit" {
		if m := s.wrapped(); m != nil {
			m.Notify(method, params)
		}
		s.exitNotification()
		return
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if m := s.wrapped(); m != nil && s.wrappedNotification(ctx, m, method, params, state == stateInitialized) {
		return
	}
	if state != stateInitialized {
		s.log.Debug("notification dropped outside the initialized state", "method", method)
		return
	}
	var err error
	switch method {
	case "initialized":
		s.reportConfigProblem()
		s.reportWrapProblem()
	case "$/setTrace":
	case "workspace/didChangeConfiguration":
		// The next ask re-reads the settings (a new model applies without a
		// restart); the conversation goes on.
		s.mu.Lock()
		s.configChanged = true
		s.mu.Unlock()
		s.inline.markStale()
	case "$/cancelRequest":
		err = s.cancelRequest(params)
	case "textDocument/didOpen":
		err = s.didOpen(params)
	case "textDocument/didChange":
		err = s.didChange(params)
	case "textDocument/didClose":
		err = s.didClose(params)
	case "textDocument/didSave":
		err = s.didSave(params)
	case "workspace/didChangeWorkspaceFolders":
		err = s.didChangeFolders(params)
	case "window/workDoneProgress/cancel":
		err = s.progressCancel(params)
	default:
		s.log.Debug("unknown notification ignored", "method", method)
	}
	if err != nil {
		s.log.Warn("notification failed", "method", method, "error", err)
		s.logMessage(ctx, 2, fmt.Sprintf("agentls: %s: %v", method, err))
	}
}

func (s *Server) cancelRequest(params json.RawMessage) error {
	var p cancelParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("bad params: %w", err)
	}
	s.mu.Lock()
	cancel := s.inflight[fmt.Sprint(p.ID)]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// decode unmarshals params, mapping failure to InvalidParams.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// logMessage sends window/logMessage; failures only reach the log.
func (s *Server) logMessage(ctx context.Context, typ int, msg string) {
	if err := s.conn.Notify(ctx, "window/logMessage", map[string]any{"type": typ, "message": msg}); err != nil {
		s.log.Debug("logMessage failed", "error", err)
	}
}

// showMessage sends window/showMessage.
func (s *Server) showMessage(ctx context.Context, typ int, msg string) {
	if err := s.conn.Notify(ctx, "window/showMessage", map[string]any{"type": typ, "message": msg}); err != nil {
		s.log.Debug("showMessage failed", "error", err)
	}
}
