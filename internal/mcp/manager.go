package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"sync"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools"
)

// maxNotices bounds the notices kept for sessions that have not read them.
const maxNotices = 100

// Options configure a Manager.
type Options struct {
	// Roots returns the workspace folders: offered to servers as MCP
	// roots, and the working folder of the person's own servers.
	Roots func() []string
	// Trusted reports whether a workspace folder is trusted (the one rule
	// of config/trust), asked at every start: while a folder is not, the
	// person's own servers start clear of it. Nil trusts none.
	Trusted func(folder string) bool
	// Getenv reads the variables ${VAR} names; nil means os.Getenv.
	Getenv func(string) string
	// OutputDir keeps the full text of results cut for the model; empty
	// keeps none.
	OutputDir string
	// Log receives starts, failures and crashes; nil discards them.
	Log *slog.Logger
	// Version is agentls's version, told to servers.
	Version string
	// Sandbox confines the stdio servers' programs; nil starts them
	// unconfined, with the allow-listed environment.
	Sandbox *sandbox.Sandbox
}

// Manager is the MCP servers of one workspace environment. It is safe
// for concurrent use; Close ends every server.
type Manager struct {
	opts   Options
	log    *slog.Logger
	sdkLog *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
	res     *resourceTools
	notes   []note
	seq     int // sequence number of the last notice
}

// note is one notice with its sequence number.
type note struct {
	seq  int
	text string
}

// NewManager returns a manager with no servers; Configure adds them.
func NewManager(o Options) *Manager {
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	ctx, cancel := context.WithCancel(context.Background())
	// The SDK logs the protocol's own chatter; only its warnings matter.
	sdkLog := slog.New(levelHandler{o.Log.Handler(), slog.LevelWarn})
	return &Manager{opts: o, log: o.Log, sdkLog: sdkLog, ctx: ctx, cancel: cancel, servers: map[string]*server{}}
}

// Configure sets the servers (a session's resolved `mcp`): new ones are
// added (started when their tools are first needed), removed, disabled
// and changed ones are stopped, unchanged ones keep running — and one
// that failed is tried again.
func (m *Manager) Configure(servers config.MCPServers) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var stop []*server
	for name, s := range m.servers {
		if cfg, ok := servers[name]; !ok || cfg.Disabled || !reflect.DeepEqual(cfg, s.cfg) {
			stop = append(stop, s)
			delete(m.servers, name)
		}
	}
	for name, cfg := range servers {
		if cfg.Disabled {
			continue
		}
		if s, ok := m.servers[name]; ok {
			s.reset()
			continue
		}
		m.servers[name] = newServer(m, name, cfg)
	}
	m.mu.Unlock()
	for _, s := range stop {
		s.close()
	}
}

// Source is the servers' tools for one session's registry: it reads the
// tools at each step and the notices given since it was made.
func (m *Manager) Source() tools.Source {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &source{m: m, seen: m.seq}
}

// Known reports whether a capability is one of the servers' tools as they
// last listed them (or a resource tool's), for the gate.
func (m *Manager) Known(c permission.Capability) bool {
	if c == listAllCapability() {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.res != nil
	}
	for _, s := range m.snapshot() {
		s.mu.Lock()
		ok := s.listing.caps[c]
		s.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// Close stops every server; the manager takes no new ones.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	m.servers = map[string]*server{}
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.close)
	}
	wg.Wait()
}

// tools starts what must start and returns every running server's tools,
// the servers in name order, and the resource tools when a server has
// resources.
func (m *Manager) tools(ctx context.Context) []tools.Tool {
	servers := m.snapshot()
	listings := make([]listing, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { listings[i] = s.current(ctx) })
	}
	wg.Wait()
	var out []tools.Tool
	var withResources []string
	for i, ls := range listings {
		for _, t := range ls.tools {
			out = append(out, t)
		}
		if ls.resources {
			withResources = append(withResources, servers[i].name)
		}
	}
	return append(out, m.resourceTools(withResources)...)
}

// snapshot lists the servers in name order.
func (m *Manager) snapshot() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.servers))
	for _, name := range slices.Sorted(maps.Keys(m.servers)) {
		out = append(out, m.servers[name])
	}
	return out
}

// server returns the named server, or nil.
func (m *Manager) server(name string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[name]
}

// notice records something the person should know (a server that failed
// or stopped) for every session's next step, and logs it.
func (m *Manager) notice(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	m.log.Info(text) // the person sees it as a warning event; the log keeps it
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	m.notes = append(m.notes, note{seq: m.seq, text: text})
	if len(m.notes) > maxNotices {
		m.notes = slices.Delete(m.notes, 0, len(m.notes)-maxNotices)
	}
}

// noticesAfter returns the notices after sequence number seen, and the
// last sequence number.
func (m *Manager) noticesAfter(seen int) ([]string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, n := range m.notes {
		if n.seq > seen {
			out = append(out, n.text)
		}
	}
	return out, m.seq
}

func (m *Manager) roots() []string {
	if m.opts.Roots == nil {
		return nil
	}
	return m.opts.Roots()
}

func (m *Manager) trusted(folder string) bool {
	return m.opts.Trusted != nil && m.opts.Trusted(folder)
}

func (m *Manager) getenv(name string) string { return m.opts.Getenv(name) }

// source is one session's view of the servers' tools.
type source struct {
	m    *Manager
	mu   sync.Mutex
	seen int
}

// Tools implements tools.Source.
func (v *source) Tools(ctx context.Context) ([]tools.Tool, []string) {
	ts := v.m.tools(ctx)
	v.mu.Lock()
	defer v.mu.Unlock()
	notes, seq := v.m.noticesAfter(v.seen)
	v.seen = seq
	return ts, notes
}

// levelHandler passes on the records at or above a level.
type levelHandler struct {
	slog.Handler
	min slog.Level
}

// Enabled implements slog.Handler.
func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

// WithAttrs implements slog.Handler.
func (h levelHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return levelHandler{h.Handler.WithAttrs(a), h.min}
}

// WithGroup implements slog.Handler.
func (h levelHandler) WithGroup(n string) slog.Handler {
	return levelHandler{h.Handler.WithGroup(n), h.min}
}

// ServerState is what one configured server is doing now, for the
// model's description of its environment.
type ServerState struct {
	// Name is the server's name under `mcp`.
	Name string
	// State is "not started", "starting", "connected", "stopped" (it
	// restarts when its tools are next used) or "failed".
	State string
	// Tools is how many tools it offered at its last listing (connected
	// servers only).
	Tools int
}

// States lists the servers, in name order, and what each is doing; it
// starts nothing.
func (m *Manager) States() []ServerState {
	var out []ServerState
	for _, s := range m.snapshot() {
		s.mu.Lock()
		st := ServerState{Name: s.name, State: s.state.String()}
		if s.state == stateReady {
			st.Tools = len(s.listing.tools)
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}
