package client

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/internal/config"
)

// servedMax bounds how many files' served texts Servers keeps.
const servedMax = 256

// Servers are the language servers of one workspace over their whole
// life: a Manager built on first use, from the configuration read at that
// moment (a session that never touches code starts nothing), replaced
// when the configuration changes, and shut down once. It remembers the
// text each file was last given to a server, so that edits a server
// computed can be checked against the text they were computed on
// (EditedText), and it finds which languages a workspace holds
// (Discover). It is safe for concurrent use.
type Servers struct {
	ws    servedWorkspace
	log   *slog.Logger
	cfgFn func() Config

	mu         sync.Mutex
	m          *Manager
	cfg        *Config
	closed     bool
	discovered string // the roots Discover ran for
	// sampled are the roots sampledFiles were walked for (samples).
	sampled      string
	sampledFiles []string
	lookPath     func(string) (string, error) // Coverage's
	shared       Shared                       // the server shared with the editor (Share)

	smu    sync.Mutex
	served map[string]string
}

// NewServers returns the servers over ws. cfg is called once, when the
// first server is needed (nil: built-in servers only); log may be nil.
// Nothing starts until a file is used.
func NewServers(ws Workspace, cfg func() Config, log *slog.Logger) *Servers {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Servers{log: log, cfgFn: cfg, served: map[string]string{}, lookPath: exec.LookPath}
	s.ws = servedWorkspace{inner: ws, s: s}
	return s
}

// Configure sets the configuration. Before the first server starts it
// just replaces the one NewServers' cfg would give; afterwards a different
// configuration stops the running servers, which restart on next use, and
// restarted reports it: the editor's documents must then be synced again.
func (s *Servers) Configure(cfg Config) (restarted bool) {
	s.mu.Lock()
	if s.closed || s.cfg != nil && sameConfig(*s.cfg, cfg) {
		s.mu.Unlock()
		return false
	}
	old := s.m
	s.m, s.cfg = nil, &cfg
	s.mu.Unlock()
	if old == nil {
		return false
	}
	s.log.Info("language server configuration changed; restarting the servers")
	go old.Shutdown(context.Background())
	return true
}

func sameConfig(a, b Config) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// config is the configuration set, or else the source's now. Call it
// without s.mu: the source may take locks of its own.
func (s *Servers) config() *Config {
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	if cfg == nil {
		var c Config
		if s.cfgFn != nil {
			c = s.cfgFn()
		}
		cfg = &c
	}
	return cfg
}

// Manager returns the Manager, creating it on first use; ErrShutDown
// after Shutdown.
func (s *Servers) Manager() (*Manager, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errServersShutDown()
	}
	if s.m != nil {
		m := s.m
		s.mu.Unlock()
		return m, nil
	}
	s.mu.Unlock()
	cfg := s.config()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errServersShutDown()
	}
	if s.m == nil {
		if s.cfg == nil {
			s.cfg = cfg
		}
		s.m = NewManager(withPullDiagnostics(*s.cfg), s.ws, s.log)
		s.m.shared = s.shared
	}
	return s.m, nil
}

func errServersShutDown() error {
	return kindErrorf(ErrShutDown, "language servers are shut down (agentls is exiting)")
}

// withPullDiagnostics asks gopls for pull diagnostics
// (textDocument/diagnostic) unless the configuration sets its
// init_options: diagnostics after an edit then come as soon as gopls has
// computed them, instead of after a quiet period with no new publication.
func withPullDiagnostics(cfg Config) Config {
	sc, set := cfg.Servers["gopls"]
	auto := cfg.AutoLSP == nil || *cfg.AutoLSP
	if set && sc.InitOptions != nil || !set && !auto {
		return cfg
	}
	servers := maps.Clone(cfg.Servers)
	if servers == nil {
		servers = map[string]config.ServerConfig{}
	}
	sc.InitOptions = map[string]any{"pullDiagnostics": true}
	servers["gopls"] = sc
	cfg.Servers = servers
	return cfg
}

// Shutdown stops every server; Manager fails afterwards.
func (s *Servers) Shutdown(ctx context.Context) {
	s.mu.Lock()
	s.closed = true
	m := s.m
	s.mu.Unlock()
	if m != nil {
		m.Shutdown(ctx)
	}
}

// SyncEditor applies one of the editor's document events: the servers
// for path's type start if needed and get its text, or, closed, stop
// following its buffer. Failures are logged, not returned: a file no
// server handles is no error (see Unavailable).
func (s *Servers) SyncEditor(ctx context.Context, path string, closed bool) {
	m, err := s.Manager()
	if err != nil {
		return
	}
	if closed {
		m.DidClose(ctx, path)
		return
	}
	if err := m.Sync(ctx, path); err != nil && !Unavailable(err) {
		s.log.Debug("sync an editor document to its language server", "path", path, "error", err)
	}
}

// Unavailable reports an error meaning that no server will answer for the
// file — none handles its type, its program is not installed, or the
// servers are shut down — which callers that sync files in passing (the
// editor's, the agent's edits) need not report.
func Unavailable(err error) bool {
	return errors.Is(err, ErrNoServer) || errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrShutDown)
}

// Served is the text a server was last given for path.
func (s *Servers) Served(path string) (string, bool) {
	s.smu.Lock()
	defer s.smu.Unlock()
	t, ok := s.served[filepath.Clean(path)]
	return t, ok
}

// servedWorkspace is the Workspace the Manager reads through: the given
// one, remembering what it read.
type servedWorkspace struct {
	inner Workspace
	s     *Servers
}

// errNoStamp: the inner Workspace does not stamp (a sync then reads).
var errNoStamp = errors.New("the workspace does not stamp files")

// Roots are the given Workspace's.
func (w servedWorkspace) Roots() []string { return w.inner.Roots() }

// ReadFile reads through the given Workspace and remembers the text.
func (w servedWorkspace) ReadFile(path string) (string, bool, error) {
	text, inEditor, err := w.inner.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	s := w.s
	s.smu.Lock()
	if len(s.served) >= servedMax {
		// Forgetting only costs a rename whose edits are not all on the
		// old name a "run it again".
		clear(s.served)
	}
	s.served[filepath.Clean(path)] = text
	s.smu.Unlock()
	return text, inEditor, nil
}

// Stamp is the given Workspace's stamp, when it stamps.
func (w servedWorkspace) Stamp(path string) (Stamp, error) {
	if st, ok := w.inner.(Stamper); ok {
		return st.Stamp(path)
	}
	return Stamp{}, errNoStamp
}
