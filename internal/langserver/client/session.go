package client

import (
	"github.com/agentls/agentls/internal/langserver/framing"
	"github.com/agentls/agentls/internal/proc"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/overlay"
)

// session is one run of a server process: its connection, what it
// negotiated, the documents it has open and the diagnostics it published.
// A restart makes a new session; the Client outlives them.
type session struct {
	c      *Client
	name   string
	log    *slog.Logger
	proc   *proc.Proc
	conn   jsonrpc2.Conn
	ctx    context.Context // ends when the process or the connection ends
	cancel context.CancelFunc
	// stopping is set when agentls ends the process on purpose, so its
	// exit is not counted as a crash.
	stopping atomic.Bool
	// shared is the connection to a server shared with the editor (nil:
	// the session's own process): the session never ends that process,
	// and the editor's documents are the editor's (shared.go).
	shared SharedConn

	enc      encoding
	caps     serverCaps
	settings any // Settings normalized to JSON values
	init     any // initializationOptions

	docMu    sync.Mutex
	docs     map[string]*doc
	versions map[string]int32 // last version sent per path, kept across close and reopen

	diagMu   sync.Mutex
	pushed   map[string]*published
	pulled   map[string]*documentDiagnosticReport
	diagWake chan struct{} // closed and replaced on every publish

	regMu sync.Mutex
	regs  map[string]registration
	watch []watcher

	progMu   sync.Mutex
	progress map[string]string // active work-done progress: token → title
	progIdle chan struct{}     // while progress is not empty, closed when it empties; else nil
	// outlasted holds the tokens of progress that outlasted a whole
	// waitIdle: not waited for again.
	outlasted map[string]bool

	// Requests in flight, for the watchdog (see track).
	reqMu    sync.Mutex
	reqs     map[uint64]pendingRequest
	reqSeq   uint64
	watching bool
}

// startSession starts the server process as l says (prepare) and
// initializes it.
func startSession(ctx context.Context, c *Client, l launch) (*session, error) {
	sl, err := c.m.sandbox.Launch(l.argv[0], l.env)
	if err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", c.name, strings.Join(l.argv, " "), err)
	}
	p, err := proc.Start(l.argv, c.root, sl.Env, sl.Start)
	if err != nil {
		sl.Release()
		return nil, fmt.Errorf("start %s (%s): %w; check lsp.%s.command", c.name, strings.Join(l.argv, " "), err, c.name)
	}
	go func() {
		<-p.Exited()
		sl.Release()
	}()
	s := newSession(c, p, normalize(l.settings), l.init)
	s.conn = jsonrpc2.NewConn(framing.New(p, framing.Options{MaxMessageSize: 64 << 20, Log: s.log}))
	s.conn.Go(s.ctx, s.handle)
	go s.watchExit()

	// Starting is not abandoned when the caller gives up: the next caller
	// gets the server. It is when agentls shuts the servers down.
	ictx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(c.m.life, cancel)()
	var res initializeResult
	if err := s.request(ictx, c.m.startTimeout, "initialize", s.initializeParams(), &res); err != nil {
		s.stopping.Store(true)
		s.kill()
		if errors.Is(err, errExited) {
			return nil, fmt.Errorf("%s exited while starting (%s); check that `%s` works in %s", c.name, p.ExitStatus(), strings.Join(l.argv, " "), c.root)
		}
		return nil, fmt.Errorf("initialize %s: %w", c.name, err)
	}
	s.negotiated(res)
	if err := s.conn.Notify(ictx, "initialized", struct{}{}); err != nil {
		s.kill()
		return nil, fmt.Errorf("initialize %s: %w", c.name, err)
	}
	if s.settings != nil && s.shared == nil {
		_ = s.conn.Notify(ictx, "workspace/didChangeConfiguration", map[string]any{"settings": s.settings})
	}
	s.log.Debug("language server started", "encoding", s.enc.String())
	return s, nil
}

// newSession is a session on p, not yet connected.
func newSession(c *Client, p *proc.Proc, settings, init any) *session {
	s := &session{
		c:         c,
		name:      c.name,
		log:       c.log.With("pid", p.Pid()),
		proc:      p,
		docs:      map[string]*doc{},
		versions:  map[string]int32{},
		pushed:    map[string]*published{},
		pulled:    map[string]*documentDiagnosticReport{},
		diagWake:  make(chan struct{}),
		regs:      map[string]registration{},
		progress:  map[string]string{},
		outlasted: map[string]bool{},
		reqs:      map[uint64]pendingRequest{},
		settings:  settings,
		init:      init,
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// negotiated records what initialize's result says: the capabilities
// and the position encoding.
func (s *session) negotiated(res initializeResult) {
	s.caps = res.Capabilities
	enc := res.Capabilities.PositionEncoding
	if enc == "" {
		enc = res.Capabilities.OffsetEncoding
	}
	if enc == "" {
		enc = res.OffsetEncoding
	}
	s.enc = parseEncoding(enc)
}

// watchExit ends the session when the process exits or the connection
// breaks (a server that closed stdout but lingers is killed).
func (s *session) watchExit() {
	select {
	case <-s.proc.Exited():
	case <-s.conn.Done():
		if s.shared != nil {
			break // detached; the process is the editor's
		}
		select {
		case <-s.proc.Exited():
		case <-time.After(2 * time.Second):
			s.proc.Kill()
			<-s.proc.Exited()
		}
	}
	s.cancel()
	_ = s.conn.Close()
	if !s.stopping.Load() {
		s.log.Warn("language server exited", "status", s.proc.ExitStatus())
	}
}

// alive reports whether the process is still serving.
func (s *session) alive() bool {
	return s.ctx.Err() == nil
}

// kill ends the process now and waits (briefly) for it to be reaped.
func (s *session) kill() {
	if s.shared == nil {
		s.proc.Kill()
		select {
		case <-s.proc.Exited():
		case <-time.After(2 * time.Second):
		}
	}
	s.cancel()
	_ = s.conn.Close()
}

// died reports whether err means the process is gone, and if so makes
// sure the session reads as dead.
func (s *session) died(err error) bool {
	if !errors.Is(err, errExited) && !errors.Is(err, framing.ErrTransport) {
		return false
	}
	s.kill()
	return true
}

// stop ends the process politely: shutdown (with no params: tsgo rejects
// `"params": null`), exit, then a kill once grace is over.
func (s *session) stop(ctx context.Context, grace time.Duration) {
	s.stopping.Store(true)
	if s.alive() && s.shared == nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer cancel()
		if err := s.request(sctx, grace, "shutdown", nil, nil); err == nil {
			_ = s.conn.Notify(sctx, "exit", nil)
		}
		select {
		case <-s.proc.Exited():
		case <-sctx.Done():
		}
	}
	s.kill()
}

// request sends one request and waits for its answer, at most timeout.
// The error says which server and request failed, and what to do.
func (s *session) request(ctx context.Context, timeout time.Duration, method string, params, result any) error {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := s.track(cancel, timeout)
	defer done()
	id, err := s.conn.Call(rctx, method, params, result)
	if err == nil {
		return nil
	}
	var rpcErr *jsonrpc2.Error
	switch {
	case errors.As(err, &rpcErr):
		return &ServerError{Server: s.name, Method: method, Code: int64(rpcErr.Code), Message: rpcErr.Message}
	case !s.alive() || errors.Is(err, framing.ErrTransport):
		return kindErrorf(errExited, "%s exited while answering %s (%s); it restarts on next use", s.name, method, s.proc.ExitStatus())
	case ctx.Err() != nil:
		s.cancelRequest(id)
		return fmt.Errorf("%s: %s: %w", s.name, method, ctx.Err())
	case errors.Is(context.Cause(rctx), errTimedOut):
		s.cancelRequest(id)
		busy := ""
		if b := s.busy(); b != "" {
			busy = "; it is busy: " + b
		}
		return kindErrorf(ErrTimeout, "%s did not answer %s within %s%s; the request was cancelled: try again, and if it keeps happening restart the server (lsp_restart %s)", s.name, method, timeout, busy, s.name)
	}
	return fmt.Errorf("%s: %s: unexpected answer: %w", s.name, method, err)
}

// cancelRequest tells the server to stop working on a request nobody
// waits for any more.
func (s *session) cancelRequest(id jsonrpc2.ID) {
	_ = s.conn.Notify(context.Background(), "$/cancelRequest", struct {
		ID *jsonrpc2.ID `json:"id"`
	}{&id})
}

// notify sends a notification; only a dead connection makes it fail.
func (s *session) notify(method string, params any) error {
	if err := s.conn.Notify(s.ctx, method, params); err != nil {
		return kindErrorf(errExited, "%s: send %s: %v (%s)", s.name, method, err, s.proc.ExitStatus())
	}
	return nil
}

// busy describes the server's work-done progress in flight, if any.
func (s *session) busy() string {
	s.progMu.Lock()
	defer s.progMu.Unlock()
	var titles []string
	for _, t := range s.progress {
		titles = append(titles, t)
	}
	return strings.Join(titles, ", ")
}

// initializeParams declares what agentls's tools actually use.
func (s *session) initializeParams() map[string]any {
	root := s.c.root
	rootURI := overlay.PathToURI(root)
	symbolKinds := make([]int, 26)
	for i := range symbolKinds {
		symbolKinds[i] = i + 1
	}
	initOptions := s.init
	// A confined server cannot signal agentls (Landlock scopes signals),
	// and servers that watch their client with kill(pid, 0) would take
	// the refusal for agentls's death and exit: a confined one is told no
	// process id, and ends when its input closes instead.
	var pid any = os.Getpid()
	if s.c.m.sandbox.Confined() {
		pid = nil
	}
	return map[string]any{
		"processId":  pid,
		"clientInfo": map[string]any{"name": "agentls"},
		"locale":     "en",
		"rootUri":    rootURI,
		"rootPath":   root,
		"workspaceFolders": []map[string]any{
			{"uri": rootURI, "name": filepath.Base(root)},
		},
		"initializationOptions": initOptions,
		"trace":                 "off",
		"capabilities": map[string]any{
			"general": map[string]any{
				"positionEncodings": []string{"utf-16"},
			},
			"workspace": map[string]any{
				// agentls applies edits through its own pipeline, not on
				// the server's say-so.
				"applyEdit":              false,
				"configuration":          true,
				"workspaceFolders":       true,
				"didChangeConfiguration": map[string]any{"dynamicRegistration": false},
				"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": true, "relativePatternSupport": true},
				"symbol": map[string]any{
					"dynamicRegistration": false,
					"symbolKind":          map[string]any{"valueSet": symbolKinds},
				},
				"workspaceEdit": map[string]any{
					"documentChanges":    true,
					"resourceOperations": []string{"create", "rename", "delete"},
					"failureHandling":    "abort",
				},
				"diagnostics": map[string]any{"refreshSupport": true},
			},
			"textDocument": map[string]any{
				"synchronization": map[string]any{
					"dynamicRegistration": false,
					"didSave":             true,
					"willSave":            false,
					"willSaveWaitUntil":   false,
				},
				"definition": map[string]any{"linkSupport": true},
				"hover":      map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"references": map[string]any{},
				"documentSymbol": map[string]any{
					"hierarchicalDocumentSymbolSupport": true,
					"symbolKind":                        map[string]any{"valueSet": symbolKinds},
				},
				"rename": map[string]any{
					"prepareSupport": true,
				},
				"callHierarchy": map[string]any{"dynamicRegistration": false},
				"publishDiagnostics": map[string]any{
					"relatedInformation":     true,
					"versionSupport":         true,
					"codeDescriptionSupport": true,
					"dataSupport":            false,
					"tagSupport":             map[string]any{"valueSet": []int{1, 2}},
				},
				"diagnostic": map[string]any{
					"dynamicRegistration":    true,
					"relatedDocumentSupport": false,
				},
			},
			"window": map[string]any{
				"workDoneProgress": true,
				"showMessage":      map[string]any{},
				"showDocument":     map[string]any{"support": false},
			},
		},
	}
}

// normalize turns settings into plain JSON values (maps, slices, strings,
// numbers) so they can be looked up by section path.
func normalize(v any) any {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return nil
	}
	return out
}
