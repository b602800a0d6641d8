package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/sandbox"
)

// Manager owns the language servers of one agentls process: it picks the
// server for a file, starts it lazily per (project root, server), keeps
// the servers' view of files current and shuts them down at exit.
type Manager struct {
	ws      Workspace
	log     *slog.Logger
	servers []serverEntry

	timeout      time.Duration // one request
	startTimeout time.Duration // start and initialize
	idleClose    time.Duration // close documents the agent stopped using
	grace        time.Duration // shutdown before kill
	// Diagnostics settling (see waitPublished).
	settle, changeWait, openWait time.Duration
	// noPull makes the client wait for published diagnostics even from a
	// server that offers pull diagnostics (tests of the push path).
	noPull   bool
	lookPath func(string) (string, error)
	// trusted and ask are Config.Trusted and Config.AskTrust (trust.go).
	trusted func(string) bool
	ask     func(TrustRequest)

	// sandbox confines the servers (nil: unconfined).
	sandbox *sandbox.Sandbox
	// shared is the server shared with the editor, if any (shared.go);
	// guarded by mu.
	shared Shared

	// python caches the interpreter pyright gets in untrusted folders,
	// by cleaned PATH.
	pyMu   sync.Mutex
	python map[string]string

	mu      sync.Mutex
	clients map[clientKey]*Client
	missing map[string]time.Time // program → until when it counts as missing
	seen    map[string]bool      // files known to exist, to tell created from changed
	closed  bool
	// life ends when Shutdown begins: a server still starting then is
	// abandoned rather than waited for (startTimeout is 30 s; an editor
	// waits for agentls's exit much less).
	life    context.Context
	endLife context.CancelFunc
	stop    chan struct{} // ends the idle-document sweeper
	swept   chan struct{} // closed when the sweeper has ended
}

type clientKey struct{ name, root string }

// NewManager returns a Manager for cfg over the workspace ws. Nothing is
// started until a file is used. log may be nil.
func NewManager(cfg Config, ws Workspace, log *slog.Logger) *Manager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{
		ws:           ws,
		log:          log,
		servers:      resolveServers(cfg),
		timeout:      orDefault(cfg.RequestTimeout, 10*time.Second),
		startTimeout: orDefault(cfg.StartTimeout, 30*time.Second),
		idleClose:    orDefault(cfg.IdleClose, 2*time.Minute),
		grace:        3 * time.Second,
		settle:       300 * time.Millisecond,
		changeWait:   time.Second,
		openWait:     5 * time.Second,
		lookPath:     exec.LookPath,
		trusted:      cfg.Trusted,
		ask:          cfg.AskTrust,
		sandbox:      cfg.Sandbox,
		python:       map[string]string{},
		clients:      map[clientKey]*Client{},
		missing:      map[string]time.Time{},
		seen:         map[string]bool{},
	}
	m.life, m.endLife = context.WithCancel(context.Background())
	return m
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// ClientFor returns the server for path's file type and project root,
// starting it if needed. The error says what is wrong and what to do: no
// server configured for the type (ErrNoServer), its program missing with
// how to install it (ErrNotInstalled), or it keeps crashing
// (ErrCrashLoop).
func (m *Manager) ClientFor(ctx context.Context, path string) (*Client, error) {
	clients, err := m.clientsFor(path, true)
	if err != nil {
		return nil, err
	}
	c := clients[0]
	if _, err := c.live(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Running returns the server for path's file type and project root when
// its process runs now — started for the editor's documents or the
// agent's tools, or the server shared with the editor — without creating
// or starting one: for callers that must not wait for a start (inline
// completion's context).
func (m *Manager) Running(path string) (*Client, bool) {
	if !filepath.IsAbs(path) {
		return nil, false
	}
	abs := filepath.Clean(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false
	}
	for _, e := range m.servers {
		if !handles(e.cfg.Filetypes, abs) {
			continue
		}
		if m.sharedForLocked(e.cfg.Name) != nil {
			c, err := m.sharedClientLocked(e, abs) // attaches, never starts
			return c, err == nil
		}
		root, _ := m.rootFor(abs, e.cfg.RootMarkers)
		if c, ok := m.clients[clientKey{e.cfg.Name, root}]; ok && root != "" && c.current() != nil {
			return c, true
		}
	}
	return nil, false
}

// Sync makes every server for path's file type see its current text (the
// editor's buffer first, the disk second), starting servers as needed.
// Unchanged text sends nothing. Callers that sync every file may ignore
// ErrNoServer.
func (m *Manager) Sync(ctx context.Context, path string) error {
	clients, err := m.clientsFor(path, false)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range clients {
		if err := c.do(ctx, filepath.Clean(path), nil); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == len(clients) {
		return errors.Join(errs...)
	}
	return nil
}

// DidWrite announces that path changed on disk (written, created or
// deleted) to the running servers of its project: didChangeWatchedFiles
// when a server watches such files, and the new text (didChange, then
// didSave) when a server has the file open. It starts nothing.
func (m *Manager) DidWrite(ctx context.Context, path string) {
	abs := filepath.Clean(path)
	typ := fileChanged
	m.mu.Lock()
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		typ = fileDeleted
		delete(m.seen, abs)
	} else if !m.seen[abs] {
		typ = fileCreated
		m.seen[abs] = true
	}
	clients := m.runningLocked()
	m.mu.Unlock()
	for _, c := range clients {
		c.forgetDisk(abs)
		s := c.current()
		if s == nil {
			continue
		}
		if _, open := s.openText(abs); !open && !within(c.root, abs) {
			continue
		}
		s.didWrite(abs, typ)
	}
}

// DidClose tells the servers that the editor closed path: they stop
// tracking its buffer and go back to the disk.
func (m *Manager) DidClose(ctx context.Context, path string) {
	abs := filepath.Clean(path)
	m.mu.Lock()
	clients := m.runningLocked()
	m.mu.Unlock()
	for _, c := range clients {
		if s := c.current(); s != nil {
			s.closeDoc(abs)
		}
	}
}

// Clients lists the servers started so far, by name then root.
func (m *Manager) Clients() []*Client {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runningLocked()
}

func (m *Manager) runningLocked() []*Client {
	out := make([]*Client, 0, len(m.clients))
	for _, c := range m.clients {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].root < out[j].root
	})
	return out
}

// Restart restarts the servers named name ("" = all started ones),
// forgetting their past crashes; documents they had open are reopened.
func (m *Manager) Restart(ctx context.Context, name string) error {
	var targets []*Client
	for _, c := range m.Clients() {
		if name == "" || c.name == name {
			targets = append(targets, c)
		}
	}
	if len(targets) == 0 {
		if name == "" {
			return nil
		}
		if m.configured(name) {
			return fmt.Errorf("%s is not running; it starts when a file of its type is used", name)
		}
		return fmt.Errorf("no language server named %q; configured servers: %s", name, m.serverList())
	}
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, c := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.restart(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Shutdown stops every server: shutdown and exit, then a kill for those
// still running after a grace period. The Manager cannot be used after.
func (m *Manager) Shutdown(ctx context.Context) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	clients := m.runningLocked()
	stop, swept := m.stop, m.swept
	m.mu.Unlock()
	m.endLife()
	if stop != nil {
		close(stop)
		<-swept
	}
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close(ctx)
		}()
	}
	wg.Wait()
}

// clientsFor returns the clients for path's servers, creating (not
// starting) them. With first, only the preferred available one.
func (m *Manager) clientsFor(path string, first bool) ([]*Client, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("language servers need an absolute path, not %q", path)
	}
	abs := filepath.Clean(path)
	var entries []serverEntry
	for _, e := range m.servers {
		if handles(e.cfg.Filetypes, abs) {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil, kindErrorf(ErrNoServer, "no language server handles %s (%s files); configured servers: %s. Add one under `lsp` in the config, e.g. \"lsp\": {\"name\": {\"command\": [\"server\", \"--stdio\"], \"filetypes\": [%q]}}", abs, describeType(abs), m.serverList(), strings.TrimPrefix(filepath.Ext(abs), "."))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, kindErrorf(ErrShutDown, "language servers are shut down (agentls is exiting)")
	}
	var out []*Client
	var firstErr error
	for _, e := range entries {
		c, err := m.clientLocked(e, abs)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		out = append(out, c)
		if first {
			break
		}
	}
	if len(out) == 0 {
		return nil, firstErr
	}
	return out, nil
}

// clientLocked finds or creates the client of server e for abs.
func (m *Manager) clientLocked(e serverEntry, abs string) (*Client, error) {
	if m.sharedForLocked(e.cfg.Name) != nil {
		// One process for the whole workspace: the editor's.
		return m.sharedClientLocked(e, abs)
	}
	root, folder := m.rootFor(abs, e.cfg.RootMarkers)
	if root == "" {
		// Outside the workspace (e.g. a definition in the module cache):
		// ask a server already running for the workspace rather than
		// start one over a foreign tree.
		for _, c := range m.runningLocked() {
			if c.name == e.cfg.Name {
				return c, nil
			}
		}
		return nil, fmt.Errorf("%s is outside the workspace folders (%s) and no %s is running for them; open a file inside the workspace first", abs, strings.Join(m.ws.Roots(), ", "), e.cfg.Name)
	}
	key := clientKey{e.cfg.Name, root}
	if c, ok := m.clients[key]; ok {
		return c, nil
	}
	argv, err := m.resolveCommand(e)
	if err != nil {
		return nil, err
	}
	c := newClient(m, e, root, folder, argv)
	m.clients[key] = c
	m.startSweeperLocked()
	return c, nil
}

// sharedClientLocked is the one client of the server shared with the
// editor, rooted at the first workspace folder.
func (m *Manager) sharedClientLocked(e serverEntry, abs string) (*Client, error) {
	key := clientKey{e.cfg.Name, ""}
	if c, ok := m.clients[key]; ok {
		return c, nil
	}
	root, _ := m.rootFor(abs, nil)
	if roots := m.ws.Roots(); root == "" && len(roots) > 0 {
		root = filepath.Clean(roots[0])
	}
	c := newClient(m, e, root, root, e.cfg.Command)
	m.clients[key] = c
	m.startSweeperLocked()
	return c, nil
}

// resolveCommand finds the server's program on PATH. A miss is
// remembered for 30 s so a missing server costs no PATH scan per call.
func (m *Manager) resolveCommand(e serverEntry) ([]string, error) {
	program := proc.ExpandHome(e.cfg.Command[0])
	if until, ok := m.missing[program]; !ok || time.Now().After(until) {
		full, err := m.lookPath(program)
		if err == nil {
			delete(m.missing, program)
			return append([]string{full}, e.cfg.Command[1:]...), nil
		}
		m.missing[program] = time.Now().Add(30 * time.Second)
	}
	how := "install it, or set lsp." + e.cfg.Name + ".command to its full path"
	if hint := installHint(program); hint != "" {
		how = "install it with `" + hint + "`, or set lsp." + e.cfg.Name + ".command to its full path"
	}
	return nil, kindErrorf(ErrNotInstalled, "language server %s is not installed: %q was not found on PATH; %s", e.cfg.Name, program, how)
}

// rootFor picks the project root for abs: for each marker in order, the
// nearest folder at or above abs (within its workspace folder) holding
// it; else the workspace folder. It also returns the workspace folder,
// whose trust decides how the server starts. "" when abs is outside the
// workspace.
func (m *Manager) rootFor(abs string, markers []string) (root, folder string) {
	top := ""
	for _, r := range m.ws.Roots() {
		r = filepath.Clean(r)
		if within(r, abs) && len(r) > len(top) {
			top = r
		}
	}
	if top == "" {
		return "", ""
	}
	for _, marker := range markers {
		for dir := filepath.Dir(abs); within(top, dir); dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir, top
			}
			if dir == top {
				break
			}
		}
	}
	return top, top
}

// within reports whether p is root or inside it.
func within(root, p string) bool {
	_, ok := relPath(root, p)
	return ok
}

// markSeen records that path exists (it was read).
func (m *Manager) markSeen(path string) {
	m.mu.Lock()
	m.seen[path] = true
	m.mu.Unlock()
}

func (m *Manager) configured(name string) bool {
	for _, e := range m.servers {
		if e.cfg.Name == name {
			return true
		}
	}
	return false
}

// serverList describes the configured servers and their file types.
func (m *Manager) serverList() string {
	if len(m.servers) == 0 {
		return "none (auto_lsp is off and the config has no `lsp` entries)"
	}
	parts := make([]string, 0, len(m.servers))
	for _, e := range m.servers {
		parts = append(parts, fmt.Sprintf("%s (%s)", e.cfg.Name, strings.Join(e.cfg.Filetypes, ", ")))
	}
	return strings.Join(parts, "; ")
}

func describeType(abs string) string {
	if ext := filepath.Ext(abs); ext != "" {
		return ext
	}
	return filepath.Base(abs)
}

// startSweeperLocked starts the goroutine that closes idle documents.
func (m *Manager) startSweeperLocked() {
	if m.stop != nil {
		return
	}
	m.stop, m.swept = make(chan struct{}), make(chan struct{})
	every := min(max(m.idleClose/4, time.Second), 30*time.Second)
	go func(stop, swept chan struct{}) {
		defer close(swept)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				m.sweep(time.Now())
			}
		}
	}(m.stop, m.swept)
}

// sweep closes, in every running server, the documents the agent opened
// and has not used within idleClose.
func (m *Manager) sweep(now time.Time) {
	for _, c := range m.Clients() {
		if s := c.current(); s != nil {
			s.closeIdle(now.Add(-m.idleClose))
		}
	}
}
