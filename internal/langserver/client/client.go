package client

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/overlay"
)

// Crash policy: a server that exits on its own is restarted on next use,
// at most maxRestarts times within crashWindow.
const (
	maxRestarts = 3
	crashWindow = time.Minute
)

// refuseFor is how long a start refused in an untrusted folder stands
// before it is prepared again (trusting the folder ends it at once).
const refuseFor = 10 * time.Second

// Client is one language server for one project root. It stays valid
// across restarts of the server process: a crashed server is restarted on
// next use. Its methods take and return 1-based lines and columns counted
// in Unicode code points.
type Client struct {
	m      *Manager
	name   string
	root   string
	folder string // the workspace folder holding root; its trust decides the form
	cfg    config.ServerConfig
	// builtin: a server agentls knows, which has a safe form.
	builtin bool
	argv    []string // resolved with the full PATH; prepare decides each start's
	log     *slog.Logger

	// sess is the current session (nil before the first start). It is
	// read without mu so that status calls and write notifications never
	// wait for a server that is starting.
	sess atomic.Pointer[session]

	// mu serializes starts and guards the fields below; it is held while
	// a server starts, so concurrent callers wait for one start instead
	// of racing several.
	mu        sync.Mutex
	attempted bool        // a start was tried since creation or Restart
	restarts  []time.Time // automatic restarts, for the crash policy
	startErr  error       // why the last start failed, if it did
	closed    bool
	// refused is the last ErrUntrusted refusal and until when it stands,
	// so editor syncs do not prepare (and scan the tree) again each time.
	refused      error
	refusedUntil time.Time

	diskMu sync.Mutex
	disk   map[string]diskEntry
}

func newClient(m *Manager, e serverEntry, root, folder string, argv []string) *Client {
	return &Client{
		m:       m,
		name:    e.cfg.Name,
		root:    root,
		folder:  folder,
		cfg:     e.cfg,
		builtin: e.builtin,
		argv:    argv,
		log:     m.log.With("lsp", e.cfg.Name, "root", root),
		disk:    map[string]diskEntry{},
	}
}

// Name is the server's name in the config ("gopls").
func (c *Client) Name() string { return c.name }

// Root is the project folder the server was started in.
func (c *Client) Root() string { return c.root }

// PID is the server's process id, or 0 when it is not running; for
// status displays and tests.
func (c *Client) PID() int {
	if s := c.current(); s != nil {
		return s.proc.Pid()
	}
	return 0
}

// PositionEncoding is the column unit the running server negotiated
// ("utf-16", "utf-8" or "utf-32"), or "" when it is not running.
func (c *Client) PositionEncoding() string {
	if s := c.current(); s != nil {
		return s.enc.String()
	}
	return ""
}

// current is the live session, if any, without starting one.
func (c *Client) current() *session {
	if s := c.sess.Load(); s != nil && s.alive() {
		return s
	}
	return nil
}

// runningOnlyKey marks a context made by RunningOnly.
type runningOnlyKey struct{}

// RunningOnly returns a context whose requests go to a server only while
// it runs: one that ended is not restarted for them (nor counted against
// its restarts), and they fail with ErrNotRunning. For requests nobody
// waits on (inline completion's symbol lookups): a server that died
// restarts when the person or the agent next uses it.
func RunningOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, runningOnlyKey{}, true)
}

// live returns the running session, starting the server if needed. A
// server that died is restarted under the crash policy; its documents
// are reopened in the new process.
func (c *Client) live(ctx context.Context) (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, kindErrorf(ErrShutDown, "%s: language servers are shut down (agentls is exiting)", c.name)
	}
	old := c.sess.Load()
	if old != nil && old.alive() {
		return old, nil
	}
	if sh := c.m.sharedFor(c.name); sh != nil {
		// The editor's process: attached to, never started or restarted
		// (its trust was decided when it started).
		s, err := attachSession(ctx, c, sh)
		c.startErr = err
		if err != nil {
			return nil, err
		}
		c.sess.Store(s)
		return s, nil
	}
	if ctx.Value(runningOnlyKey{}) != nil {
		return nil, kindErrorf(ErrNotRunning, "%s is not running; it starts on next use", c.name)
	}
	// An untrusted folder's refusal is not a crash: it does not count
	// against the restarts.
	if c.refused != nil && time.Now().Before(c.refusedUntil) && !c.m.trustedFolder(c.folder) {
		return nil, c.refused
	}
	l, err := c.m.prepare(c)
	if err != nil {
		c.refused, c.refusedUntil = err, time.Now().Add(refuseFor)
		return nil, err
	}
	c.refused = nil
	if c.attempted {
		now := time.Now()
		kept := c.restarts[:0]
		for _, t := range c.restarts {
			if now.Sub(t) < crashWindow {
				kept = append(kept, t)
			}
		}
		c.restarts = kept
		if len(c.restarts) >= maxRestarts {
			status := "unknown"
			switch {
			case c.startErr != nil:
				status = c.startErr.Error()
			case old != nil:
				status = old.proc.ExitStatus()
			}
			return nil, kindErrorf(ErrCrashLoop, "%s crashed %d times within a minute (restarted %d times) and is not restarted again; last exit: %s. Fix the cause (its command and settings are under lsp.%s in the config), then restart it with lsp_restart %s", c.name, len(c.restarts)+1, len(c.restarts), status, c.name, c.name)
		}
		c.restarts = append(c.restarts, now)
		c.log.Warn("restarting language server", "restart", len(c.restarts))
	}
	c.attempted = true
	s, err := startSession(ctx, c, l)
	c.startErr = err
	if err != nil {
		return nil, err
	}
	c.sess.Store(s)
	if old != nil {
		c.reopen(old, s)
	}
	return s, nil
}

// reopen opens in s the documents that old had open and are still in use.
func (c *Client) reopen(old, s *session) {
	for _, path := range old.reopenable(time.Now().Add(-c.m.idleClose)) {
		if _, err := s.syncDoc(path); err != nil {
			c.log.Debug("reopen after restart", "path", path, "error", err)
		}
	}
}

// do runs fn on a live session, after syncing path when it is set. If the
// server dies under the request it is restarted and fn runs once more.
// fn must make its requests with the ctx it is given.
func (c *Client) do(ctx context.Context, path string, fn func(ctx context.Context, s *session, d docState) error) error {
	for attempt := 0; ; attempt++ {
		s, err := c.live(ctx)
		if err != nil {
			return err
		}
		err = s.run(ctx, path, fn)
		if err == nil || attempt > 0 || !s.died(err) {
			return err
		}
		c.log.Warn("language server died during a request; restarting it", "error", err)
	}
}

// run syncs path, then runs fn (when set) on the text the server has.
func (s *session) run(ctx context.Context, path string, fn func(ctx context.Context, s *session, d docState) error) error {
	var d docState
	if path != "" {
		var err error
		if d, err = s.syncDoc(path); err != nil {
			return err
		}
	}
	if fn == nil {
		return nil
	}
	return fn(ctx, s, d)
}

// restart stops the server (politely) and starts a fresh one, forgetting
// past crashes.
func (c *Client) restart(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return kindErrorf(ErrShutDown, "%s: language servers are shut down (agentls is exiting)", c.name)
	}
	if c.m.sharedFor(c.name) != nil {
		return fmt.Errorf("%s is the editor's server (agentls serve --wrap): agentls does not restart it; restart the server in the editor", c.name)
	}
	l, err := c.m.prepare(c)
	if err != nil {
		return err
	}
	c.refused = nil
	old := c.sess.Load()
	if old != nil {
		old.stop(ctx, c.m.grace)
	}
	c.restarts, c.attempted = nil, true
	s, err := startSession(ctx, c, l)
	c.startErr = err
	if err != nil {
		return err
	}
	c.sess.Store(s)
	if old != nil {
		c.reopen(old, s)
	}
	return nil
}

// close stops the server for good.
func (c *Client) close(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if s := c.sess.Load(); s != nil {
		s.stop(ctx, c.m.grace)
	}
}

// converter turns server positions in one result into 1-based code-point
// positions, against the text the server has: the text Sync sent for
// open documents, the disk for the others. Results touch few files, so
// texts are kept in a short list rather than a map.
type converter struct {
	s     *session
	paths []string
	texts []*text
}

func (s *session) converter(known ...docState) *converter {
	cv := &converter{s: s}
	for _, d := range known {
		if d.text != nil {
			cv.paths, cv.texts = append(cv.paths, d.path), append(cv.texts, d.text)
		}
	}
	return cv
}

func (cv *converter) text(path string) *text {
	for i, p := range cv.paths {
		if p == path {
			return cv.texts[i]
		}
	}
	t, ok := cv.s.openText(path)
	if !ok {
		t = cv.s.c.diskText(path)
	}
	cv.paths, cv.texts = append(cv.paths, path), append(cv.texts, t)
	return t
}

// pos converts one position in path.
func (cv *converter) pos(path string, p position) (int, int) {
	t := cv.text(path)
	if t == nil {
		return int(p.Line) + 1, int(p.Character) + 1
	}
	return t.fromServer(cv.s.enc, p)
}

// loc converts a range in the document at uri.
func (cv *converter) loc(uri string, r lspRange) Location {
	path, ok := fileOf(uri)
	if !ok {
		// Not a file (e.g. a virtual document): keep the URI and the
		// server's numbers, made 1-based.
		return Location{Path: uri, Line: int(r.Start.Line) + 1, Column: int(r.Start.Character) + 1, EndLine: int(r.End.Line) + 1, EndColumn: int(r.End.Character) + 1}
	}
	l := Location{Path: path}
	l.Line, l.Column = cv.pos(path, r.Start)
	l.EndLine, l.EndColumn = cv.pos(path, r.End)
	return l
}

// uriPath is the file path of a URI, or the URI itself when it is not a
// file: URI.
func uriPath(uri string) string {
	if p, ok := fileOf(uri); ok {
		return p
	}
	return uri
}

// fileOf is the file path of a file: URI.
func fileOf(uri string) (string, bool) {
	if p, ok := plainFileURI(uri); ok {
		return p, true
	}
	p, err := overlay.URIToPath(uri)
	return p, err == nil
}

// plainFileURI converts the common file:///path URI without escapes or
// query without a full URL parse (results carry one URI per location).
func plainFileURI(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "file://")
	if !ok || filepath.Separator != '/' || !strings.HasPrefix(rest, "/") || strings.ContainsAny(rest, "%?#") {
		return "", false
	}
	return filepath.Clean(rest), true
}
