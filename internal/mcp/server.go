package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
)

// Crash policy: a server that stops on its own restarts on next use, at
// most maxRestarts times within crashWindow; one that cannot start is
// tried again after crashWindow, or by the next session.
const (
	maxRestarts = 3
	crashWindow = time.Minute
	// maxTools bounds the tools taken from one server.
	maxTools = 500
)

// errNotRunning marks a call to a server that is not running.
var errNotRunning = errors.New("MCP server is not running")

// state is where a server is in its life.
type state int

const (
	stateIdle     state = iota // not started yet
	stateStarting              // connecting and listing its tools
	stateReady                 // connected
	stateDown                  // stopped after it was ready; restarts on next use
	stateFailed                // could not start, or crashed too often
	stateClosed                // removed or shut down for good
)

// String is the state in words (ServerState.State).
func (st state) String() string {
	switch st {
	case stateStarting:
		return "starting"
	case stateReady:
		return "connected"
	case stateDown:
		return "stopped"
	case stateFailed:
		return "failed"
	case stateClosed:
		return "closed"
	}
	return "not started"
}

// server is one configured MCP server and its current connection.
type server struct {
	m    *Manager
	name string
	cfg  config.MCPServer
	log  *slog.Logger
	// startTimeout bounds a start; toolTimeout one call; pingTimeout the
	// wait for a ping's answer during a call (0: no pings).
	startTimeout, toolTimeout, pingTimeout time.Duration
	// ctx ends with the server: a start in progress gives up.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	state    state
	gen      int           // counts starts; a stale start or watcher sees a newer one
	done     chan struct{} // closed when the start in progress ends
	sess     *sdk.ClientSession
	conn     launch
	why      string // the last failure, for messages
	failedAt time.Time
	restarts []time.Time
	dirty    bool // tools/list_changed since the last listing
	listing  listing

	listMu sync.Mutex // one listing at a time
}

// listing is what the server offered at its last tools/list.
type listing struct {
	tools     []*serverTool
	caps      map[permission.Capability]bool
	resources bool // it has resources (list_mcp_resources, read_mcp_resource)
}

func newServer(m *Manager, name string, cfg config.MCPServer) *server {
	s := &server{m: m, name: name, cfg: cfg, log: m.log.With("mcp", name),
		startTimeout: config.DefaultMCPStartupTimeout, toolTimeout: config.DefaultMCPToolTimeout, pingTimeout: config.DefaultMCPPingTimeout}
	if d, err := time.ParseDuration(cfg.StartupTimeout); err == nil && d > 0 {
		s.startTimeout = d
	}
	if d, err := time.ParseDuration(cfg.ToolTimeout); err == nil && d > 0 {
		s.toolTimeout = d
	}
	if d, err := time.ParseDuration(cfg.PingTimeout); err == nil && d >= 0 {
		s.pingTimeout = d
	}
	s.ctx, s.cancel = context.WithCancel(m.ctx)
	return s
}

// where names the server's configuration, for messages.
func (s *server) where() string {
	if s.cfg.From == "" {
		return "mcp." + s.name
	}
	return "mcp." + s.name + " in " + s.cfg.From
}

// ensure starts the server when it should run and does not: the first
// time, after it stopped (under the crash policy), or after a failure
// once crashWindow has passed. It returns a channel closed when the start
// in progress ends, or nil when none is.
func (s *server) ensure() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case stateStarting:
		return s.done
	case stateReady, stateClosed:
		return nil
	case stateFailed:
		if time.Since(s.failedAt) < crashWindow {
			return nil
		}
	case stateDown:
		now := time.Now()
		kept := s.restarts[:0]
		for _, t := range s.restarts {
			if now.Sub(t) < crashWindow {
				kept = append(kept, t)
			}
		}
		if len(kept) >= maxRestarts {
			s.restarts, s.state, s.failedAt = kept, stateFailed, now
			s.why = fmt.Sprintf("it stopped %d times within a minute (last: %s)", len(kept)+1, s.why)
			s.m.notice("mcp: server %s is not restarted for now: %s; fix %s", s.name, s.why, s.where())
			return nil
		}
		s.restarts = append(kept, now)
		s.log.Warn("restarting MCP server", "restart", len(s.restarts))
	}
	s.state, s.done = stateStarting, make(chan struct{})
	s.gen++
	go s.start(s.gen, s.done)
	return s.done
}

// reset lets a failed server be tried again at once (a new session).
func (s *server) reset() {
	s.mu.Lock()
	if s.state == stateFailed {
		s.state, s.restarts = stateIdle, nil
	}
	s.mu.Unlock()
}

// start connects and lists the server's tools, bounded by startTimeout.
func (s *server) start(gen int, done chan struct{}) {
	defer close(done)
	ctx, cancel := context.WithTimeout(s.ctx, s.startTimeout)
	defer cancel()
	t0 := time.Now()
	sess, conn, ls, err := s.connect(ctx, gen)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("no answer within %v (startup_timeout; raise it if the server needs longer): %w", s.startTimeout, err)
	}
	s.mu.Lock()
	if s.gen != gen || s.state == stateClosed {
		s.mu.Unlock()
		closeConn(sess, conn)
		return
	}
	if err != nil {
		s.state, s.failedAt, s.why = stateFailed, time.Now(), err.Error()
		s.mu.Unlock()
		s.m.notice("mcp: server %s failed to start: %v; check %s (the rest keeps working)", s.name, err, s.where())
		return
	}
	s.state, s.sess, s.conn, s.listing = stateReady, sess, conn, ls
	s.mu.Unlock()
	s.log.Info("MCP server started", "tools", len(ls.tools), "resources", ls.resources, "took", time.Since(t0).Round(time.Millisecond))
	go s.watch(gen, sess, conn)
}

// connect starts one connection and lists its tools.
func (s *server) connect(ctx context.Context, gen int) (*sdk.ClientSession, launch, listing, error) {
	conn, err := s.m.launch(s.cfg)
	if err != nil {
		return nil, launch{}, listing{}, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agentls", Version: s.m.opts.Version}, &sdk.ClientOptions{
		Logger: s.m.sdkLog,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.mu.Lock()
			if s.gen == gen {
				s.dirty = true
			}
			s.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			s.log.Debug("MCP server log", "level", r.Params.Level, "data", r.Params.Data)
		},
	})
	for _, r := range s.m.roots() {
		client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: r}).String(), Name: r})
	}
	sess, err := client.Connect(ctx, conn.transport, nil)
	if err != nil {
		conn.stop()
		if conn.proc != nil {
			return nil, launch{}, listing{}, fmt.Errorf("%w (%s)", err, conn.status())
		}
		return nil, launch{}, listing{}, err
	}
	s.mu.Lock()
	s.dirty = false
	s.mu.Unlock()
	ls, err := s.list(ctx, sess)
	if err != nil {
		closeConn(sess, conn)
		return nil, launch{}, listing{}, err
	}
	return sess, conn, ls, nil
}

// list asks the server for its tools and builds their adapters.
func (s *server) list(ctx context.Context, sess *sdk.ClientSession) (listing, error) {
	ls := listing{caps: map[permission.Capability]bool{}}
	init := sess.InitializeResult()
	if init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil {
		ls.resources = true
		ls.caps[listCapability(s.name)], ls.caps[readCapability(s.name)] = true, true
	}
	if init != nil && init.Capabilities != nil && init.Capabilities.Tools == nil {
		return ls, nil // a server of resources only
	}
	names := map[string]string{}
	reserved := map[permission.Capability]bool{listCapability(s.name): true, readCapability(s.name): true}
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return listing{}, fmt.Errorf("list its tools: %w", err)
		}
		if len(ls.tools) == maxTools {
			s.m.notice("mcp: server %s offers more than %d tools; the rest are left out", s.name, maxTools)
			break
		}
		st := newServerTool(s, t)
		if other, taken := names[st.spec.Name]; taken || ls.caps[st.spec.Capability] || reserved[st.spec.Capability] {
			s.m.notice("mcp: tool %q of server %s is left out: its name %s or capability %s is another tool's (%s)", t.Name, s.name, st.spec.Name, st.spec.Capability, other)
			continue
		}
		names[st.spec.Name] = t.Name
		ls.caps[st.spec.Capability] = true
		ls.tools = append(ls.tools, st)
	}
	return ls, nil
}

// watch notices when the connection ends without agentls closing it.
func (s *server) watch(gen int, sess *sdk.ClientSession, conn launch) {
	_ = sess.Wait()
	s.mu.Lock()
	if s.gen != gen || s.state != stateReady {
		s.mu.Unlock()
		return
	}
	s.state, s.sess, s.conn = stateDown, nil, launch{}
	s.mu.Unlock()
	conn.stop()
	why := conn.status()
	s.mu.Lock()
	s.why = why
	s.mu.Unlock()
	s.m.notice("mcp: server %s stopped (%s); it restarts when its tools are next used", s.name, why)
}

// current waits (within ctx) for a start in progress, lists the tools
// again after tools/list_changed, and returns the tools of a running
// server; none while it is not running.
func (s *server) current(ctx context.Context) listing {
	if ch := s.ensure(); ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return listing{}
		}
	}
	s.mu.Lock()
	ready, dirty, sess := s.state == stateReady, s.dirty, s.sess
	s.mu.Unlock()
	if !ready {
		return listing{}
	}
	if dirty {
		s.relist(ctx, sess)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listing
}

// relist replaces the listing after tools/list_changed.
func (s *server) relist(ctx context.Context, sess *sdk.ClientSession) {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	s.mu.Lock()
	if !s.dirty || s.sess != sess {
		s.mu.Unlock()
		return
	}
	s.dirty = false
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()
	ls, err := s.list(ctx, sess)
	if err != nil {
		s.log.Warn("list MCP tools after tools/list_changed", "error", err)
		return
	}
	s.mu.Lock()
	if s.sess == sess {
		s.listing = ls
	}
	s.mu.Unlock()
}

// session returns the live connection for a call, starting the server
// again if it stopped (under the crash policy).
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	if ch := s.ensure(); ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case stateReady:
		return s.sess, nil
	case stateClosed:
		return nil, fmt.Errorf("%w: %s was removed from the configuration or agentls is shutting down", errNotRunning, s.name)
	}
	return nil, fmt.Errorf("%w: %s: %s; fix %s", errNotRunning, s.name, s.why, s.where())
}

// errStuck is the cause of a call given up because its server stopped
// answering pings.
var errStuck = errors.New("the server stopped answering")

// call runs one tool call, bounded by toolTimeout. Cancelling ctx cancels
// the call on the server (the SDK sends notifications/cancelled). While
// it runs, a server that leaves a ping unanswered for pingTimeout is
// stuck (stopped with SIGSTOP, deadlocked, a dead HTTP peer): the call
// ends at once saying so, and the server is stopped so that the next
// call starts it again instead of waiting out tool_timeout in turn.
func (s *server) call(ctx context.Context, params *sdk.CallToolParams) (*sdk.CallToolResult, error) {
	sess, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, s.toolTimeout)
	defer cancel()
	lctx, giveUp := context.WithCancelCause(cctx)
	defer giveUp(nil)
	if s.pingTimeout > 0 {
		go s.ping(lctx, sess, giveUp)
	}
	res, err := sess.CallTool(lctx, params)
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case context.Cause(lctx) == errStuck:
		s.stuck(sess, params.Name)
		return nil, fmt.Errorf("MCP server %s stopped answering during the call (no answer to a ping within %v): agentls stopped it, and it starts again at the next call of its tools; this call's work is lost", s.name, s.pingTimeout)
	case cctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("MCP server %s did not answer within %v (tool_timeout of %s; raise it if the tool needs longer)", s.name, s.toolTimeout, s.where())
	case errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF):
		return nil, fmt.Errorf("MCP server %s stopped during the call (%v); it restarts at the next call", s.name, err)
	}
	return nil, fmt.Errorf("MCP server %s: %w", s.name, err)
}

// ping asks the server whether it is alive after each quiet pingTimeout
// of a call, until ctx ends; an unanswered ping gives the call up with
// errStuck. Any answer counts, an error too: the server is reading.
func (s *server) ping(ctx context.Context, sess *sdk.ClientSession, giveUp context.CancelCauseFunc) {
	t := time.NewTimer(s.pingTimeout)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, s.pingTimeout)
		err := sess.Ping(pctx, nil)
		late := pctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		if late {
			s.log.Warn("MCP server did not answer a ping during a call", "timeout", s.pingTimeout, "error", err)
			giveUp(errStuck)
			return
		}
		t.Reset(s.pingTimeout)
	}
}

// stuck stops a server that left a ping unanswered (the process is
// killed at once: a stopped one would not exit on its own), so that the
// next use starts it again under the crash policy; the person is told.
func (s *server) stuck(sess *sdk.ClientSession, tool string) {
	s.mu.Lock()
	if s.sess != sess || s.state != stateReady {
		s.mu.Unlock()
		return // another call found it stuck first, or it ended meanwhile
	}
	conn := s.conn
	s.state, s.sess, s.conn = stateDown, nil, launch{}
	s.why = fmt.Sprintf("no answer to a ping within %v during a call of %s", s.pingTimeout, tool)
	s.mu.Unlock()
	conn.kill()
	closeConn(sess, launch{})
	s.m.notice("mcp: server %s stopped answering (%s); agentls stopped it, and it restarts when its tools are next used (ping_timeout of %s)", s.name, s.why, s.where())
}

// close stops the server for good, waiting for a start in progress.
func (s *server) close() {
	s.mu.Lock()
	s.state = stateClosed
	sess, conn, done := s.sess, s.conn, s.done
	s.sess, s.conn = nil, launch{}
	s.mu.Unlock()
	s.cancel()
	closeConn(sess, conn)
	if done != nil {
		<-done // the start sees stateClosed and cleans up after itself
	}
}

// closeConn closes a session and stops its process.
func closeConn(sess *sdk.ClientSession, conn launch) {
	if sess != nil {
		_ = sess.Close()
	}
	conn.stop()
}
