package tools

// What the lsp_* tools share: the language servers of one agentls process
// or editor connection (LSPEnv, over lsp/client), the adapter that lets the
// servers read the workspace as the agent sees it (editor buffers first),
// symbol lookup by name, result formatting, and turning a server's edits
// into planned changes for the same pipeline as edit.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/lsp/client"
)

const (
	// lspTouchDelay batches an editor's keystrokes into one sync.
	lspTouchDelay = 50 * time.Millisecond
	// lspFlushWait bounds how long a tool waits for the editor's pending
	// changes to reach the servers.
	lspFlushWait = 5 * time.Second
	// lspEditDiagWait bounds how long an edit waits for diagnostics
	// (starting the server included) before returning without them.
	lspEditDiagWait = 15 * time.Second
	// lspBufferWait bounds how long diagnostics after a change wait for
	// the editor's didChange of a buffer the change was applied to.
	lspBufferWait = time.Second
	// lspServedMax bounds how many files' served texts are kept.
	lspServedMax = 256
	// lspDiscoverEntries bounds the walk that finds which languages a
	// workspace holds, for queries that name no file.
	lspDiscoverEntries = 5000
)

// LSPEnv is the set of language servers behind the lsp_* tools for one
// workspace: a client.Manager created on first use, fed by the editor
// (Touch, Closed) and by the agent's own writes. Close it with Shutdown.
type LSPEnv struct {
	ws    *Workspace
	log   *slog.Logger
	cfgFn func() client.Config

	mu         sync.Mutex
	m          *client.Manager
	cfg        *client.Config
	closed     bool
	open       map[string]bool // documents open in the editor
	discovered string          // the roots discovery ran for

	// served is the text last handed to a server per path: the text a
	// server's positions refer to, checked before applying its edits.
	smu    sync.Mutex
	served map[string]string

	// Editor notifications, applied in order by one worker goroutine.
	qmu     sync.Mutex
	order   []string
	pending map[string]lspQueued
	running bool
	hurry   int
	wake    chan struct{}
	drained chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
}

type lspQueued struct {
	close bool
	due   time.Time
}

// NewLSPEnv returns the language servers for ws. cfg is called once, when
// the first server is needed (nil: built-in servers only); log may be nil.
// Nothing starts until a file is used.
func NewLSPEnv(ws *Workspace, cfg func() client.Config, log *slog.Logger) *LSPEnv {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &LSPEnv{ws: ws, log: log, cfgFn: cfg, open: map[string]bool{}, served: map[string]string{},
		pending: map[string]lspQueued{}, ctx: ctx, cancel: cancel}
	// The workspace keeps its language servers so the editing tools can
	// report fresh diagnostics after a change.
	ws.mu.Lock()
	ws.lsp = e
	ws.mu.Unlock()
	return e
}

// LSPTools returns the lsp_* tools over env.
func LSPTools(env *LSPEnv) []Tool {
	return []Tool{
		NewLSPDiagnosticsTool(env), NewLSPReferencesTool(env), NewLSPDefinitionTool(env), NewLSPSymbolsTool(env),
		NewLSPCallHierarchyTool(env), NewLSPRenameTool(env), NewLSPReplaceSymbolTool(env), NewLSPRestartTool(env),
	}
}

func (w *Workspace) lspEnv() *LSPEnv {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.lsp
}

// Configure sets the configuration. Before the first server starts it
// just replaces the one cfg would give; afterwards a different
// configuration stops the running servers, which restart on next use.
func (e *LSPEnv) Configure(cfg client.Config) {
	e.mu.Lock()
	if e.closed || e.cfg != nil && sameLSPConfig(*e.cfg, cfg) {
		e.mu.Unlock()
		return
	}
	old := e.m
	e.m, e.cfg = nil, &cfg
	open := slices.Sorted(maps.Keys(e.open))
	e.mu.Unlock()
	if old != nil {
		e.log.Info("language server configuration changed; restarting the servers")
		go old.Shutdown(context.Background())
		for _, p := range open {
			e.enqueue(p, false, 0)
		}
	}
}

func sameLSPConfig(a, b client.Config) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// Manager returns the client.Manager, creating it on first use.
func (e *LSPEnv) Manager() (*client.Manager, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, client.ErrShutDown
	}
	if e.m != nil {
		m := e.m
		e.mu.Unlock()
		return m, nil
	}
	cfg := e.cfg
	e.mu.Unlock()
	if cfg == nil {
		// Outside e.mu: the source may take locks of its own.
		var c client.Config
		if e.cfgFn != nil {
			c = e.cfgFn()
		}
		cfg = &c
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, client.ErrShutDown
	}
	if e.m == nil {
		if e.cfg == nil {
			e.cfg = cfg
		}
		e.m = client.NewManager(lspDefaults(*e.cfg), lspWorkspace{e}, e.log)
	}
	return e.m, nil
}

// lspDefaults asks gopls for pull diagnostics (textDocument/diagnostic)
// unless the configuration sets its init_options: diagnostics after an
// edit then come as soon as gopls has computed them, instead of after a
// quiet period with no new publication.
func lspDefaults(cfg client.Config) client.Config {
	sc, set := cfg.Servers["gopls"]
	auto := cfg.AutoLSP == nil || *cfg.AutoLSP
	if set && sc.InitOptions != nil || !set && !auto {
		return cfg
	}
	servers := maps.Clone(cfg.Servers)
	if servers == nil {
		servers = map[string]client.ServerConfig{}
	}
	sc.InitOptions = map[string]any{"pullDiagnostics": true}
	servers["gopls"] = sc
	cfg.Servers = servers
	return cfg
}

// Shutdown stops every server and the editor-notification worker.
func (e *LSPEnv) Shutdown(ctx context.Context) {
	e.mu.Lock()
	e.closed = true
	m := e.m
	e.mu.Unlock()
	e.cancel()
	if m != nil {
		m.Shutdown(ctx)
	}
	e.ws.mu.Lock()
	if e.ws.lsp == e {
		e.ws.lsp = nil
	}
	e.ws.mu.Unlock()
}

// Touch tells the servers that the editor opened or changed path: the
// servers for its type start if needed and get its text, shortly and in
// the background.
func (e *LSPEnv) Touch(path string) {
	path = filepath.Clean(path)
	if !e.inRoots(path) {
		return
	}
	e.mu.Lock()
	first := !e.open[path]
	e.open[path] = true
	e.mu.Unlock()
	delay := lspTouchDelay
	if first {
		delay = 0
	}
	e.enqueue(path, false, delay)
}

// Closed tells the servers that the editor closed path.
func (e *LSPEnv) Closed(path string) {
	path = filepath.Clean(path)
	e.mu.Lock()
	was := e.open[path]
	delete(e.open, path)
	e.mu.Unlock()
	if was {
		e.enqueue(path, true, 0)
	}
}

func (e *LSPEnv) inRoots(path string) bool {
	for _, r := range e.ws.Roots() {
		if within(r, path) {
			return true
		}
	}
	return false
}

func (e *LSPEnv) enqueue(path string, closed bool, delay time.Duration) {
	e.qmu.Lock()
	defer e.qmu.Unlock()
	if e.ctx.Err() != nil {
		return
	}
	if _, ok := e.pending[path]; !ok {
		e.order = append(e.order, path)
	}
	e.pending[path] = lspQueued{close: closed, due: time.Now().Add(delay)}
	if !e.running {
		e.running = true
		go e.work()
	}
}

// work applies queued editor notifications in order, each path's latest.
func (e *LSPEnv) work() {
	for {
		e.qmu.Lock()
		if len(e.order) == 0 || e.ctx.Err() != nil {
			e.order, e.running = nil, false
			clear(e.pending)
			if e.drained != nil {
				close(e.drained)
				e.drained = nil
			}
			e.qmu.Unlock()
			return
		}
		path := e.order[0]
		q := e.pending[path]
		if wait := time.Until(q.due); wait > 0 && e.hurry == 0 {
			if e.wake == nil {
				e.wake = make(chan struct{})
			}
			wake := e.wake
			e.qmu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-wake:
			case <-e.ctx.Done():
			}
			t.Stop()
			continue
		}
		e.order = e.order[1:]
		delete(e.pending, path)
		e.qmu.Unlock()
		e.apply(path, q.close)
	}
}

func (e *LSPEnv) apply(path string, closed bool) {
	m, err := e.Manager()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	if closed {
		m.DidClose(ctx, path)
		return
	}
	if err := m.Sync(ctx, path); err != nil && !quietLSPError(err) {
		e.log.Debug("sync an editor document to its language server", "path", path, "error", err)
	}
}

// quietLSPError is an error not worth reporting for a file the editor or
// an edit touched: no server for the type, or none installed.
func quietLSPError(err error) bool {
	return errors.Is(err, client.ErrNoServer) || errors.Is(err, client.ErrNotInstalled) || errors.Is(err, client.ErrShutDown)
}

// flush waits (a bounded time) until the editor's queued changes have
// reached the servers, so a request sees what the person sees.
func (e *LSPEnv) flush(ctx context.Context) {
	e.qmu.Lock()
	if !e.running {
		e.qmu.Unlock()
		return
	}
	if e.drained == nil {
		e.drained = make(chan struct{})
	}
	ch := e.drained
	e.hurry++
	if e.wake != nil {
		close(e.wake)
		e.wake = nil
	}
	e.qmu.Unlock()
	defer func() {
		e.qmu.Lock()
		e.hurry--
		e.qmu.Unlock()
	}()
	t := time.NewTimer(lspFlushWait)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}

// clientFor returns the server for a file, after the editor's pending
// changes reached the servers.
func (e *LSPEnv) clientFor(ctx context.Context, abs string) (*client.Client, error) {
	m, err := e.Manager()
	if err != nil {
		return nil, err
	}
	e.flush(ctx)
	return m.ClientFor(ctx, abs)
}

// servedText is the text a server was last given for path.
func (e *LSPEnv) servedText(path string) (string, bool) {
	e.smu.Lock()
	defer e.smu.Unlock()
	t, ok := e.served[path]
	return t, ok
}

// lspWorkspace is the adapter tools.Workspace → client.Workspace and
// client.Stamper: servers read files as the agent does, editor buffers
// first.
type lspWorkspace struct{ e *LSPEnv }

var stampSeed = maphash.MakeSeed()

func (a lspWorkspace) Roots() []string { return a.e.ws.Roots() }

func (a lspWorkspace) ReadFile(path string) (string, bool, error) {
	f, err := a.e.ws.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	a.e.smu.Lock()
	if len(a.e.served) >= lspServedMax {
		// Forgetting only costs a rename whose edits are not all on the
		// old name a "run it again".
		clear(a.e.served)
	}
	a.e.served[filepath.Clean(path)] = f.Text
	a.e.smu.Unlock()
	return f.Text, f.Open, nil
}

// Stamp identifies a buffer by version, length and a hash (a reopened
// buffer starts at version 1 again), a disk file by size and mtime.
func (a lspWorkspace) Stamp(path string) (client.Stamp, error) {
	if ov := a.e.ws.overlay; ov != nil {
		if d, ok := ov.Document(filepath.Clean(path)); ok {
			return client.Stamp{InEditor: true, Version: d.Version, Size: int64(len(d.Text)), ModTime: int64(maphash.String(stampSeed, d.Text))}, nil
		}
	}
	return client.DiskStamp(path)
}

// discoverClients returns every server for the workspace, starting those
// for the languages its files are in (found by a short walk of each
// root, once), for the queries that name no file.
func (e *LSPEnv) discoverClients(ctx context.Context) ([]*client.Client, error) {
	m, err := e.Manager()
	if err != nil {
		return nil, err
	}
	e.flush(ctx)
	roots := e.ws.Roots()
	key := strings.Join(roots, "\x00")
	e.mu.Lock()
	done := e.discovered == key
	e.mu.Unlock()
	if !done {
		var firsts []string
		seen := map[string]bool{}
		for _, r := range roots {
			n := 0
			_, _ = e.ws.walk(ctx, r, nil, func(we walkEntry) walkAction {
				if n++; n > lspDiscoverEntries {
					return walkStop
				}
				if we.isDir {
					return walkContinue
				}
				typ := strings.ToLower(filepath.Ext(we.abs))
				if typ == "" {
					typ = strings.ToLower(filepath.Base(we.abs))
				}
				if !seen[typ] && len(seen) < 64 {
					seen[typ] = true
					firsts = append(firsts, we.abs)
				}
				return walkContinue
			})
		}
		for _, f := range firsts {
			if err := m.Sync(ctx, f); err != nil && !quietLSPError(err) {
				e.log.Debug("discover language servers", "path", f, "error", err)
			}
		}
		e.mu.Lock()
		e.discovered = key
		e.mu.Unlock()
	}
	return m.Clients(), nil
}

// --- input and symbol lookup ---

// lspPosInput is the position part of the tools' inputs: a place in a
// file, or a symbol name (optionally within a file).
type lspPosInput struct {
	FilePath string `json:"file_path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Symbol   string `json:"symbol"`
}

const lspPosSchemaProps = `"file_path": {"type": "string", "description": "File: relative to the first workspace folder, or absolute. Required with line and column; with symbol, narrows the search to that file."},
    "line": {"type": "integer", "minimum": 1, "description": "1-based line, as view numbers it."},
    "column": {"type": "integer", "minimum": 1, "description": "1-based column in characters (Unicode code points, a tab counts 1) of the line as view shows it; any character of the name."},
    "symbol": {"type": "string", "description": "Instead of line and column: the symbol's name, e.g. Parse, Server.Start or Greeter::greet. Several matches are listed, not guessed."}`

// lspTarget is a resolved position: a place on a name.
type lspTarget struct {
	path      string
	line, col int
	name      string // the symbol's name, for messages
}

// label names the target in results: its name, or "the symbol".
func (t lspTarget) label() string {
	if t.name != "" {
		return t.name
	}
	return "the symbol"
}

// lspWhat names the position input in a permission summary.
func lspWhat(ws *Workspace, in lspPosInput) string {
	switch {
	case in.Line > 0 && in.Column > 0:
		return fmt.Sprintf("%s:%d:%d", in.FilePath, in.Line, in.Column)
	case in.FilePath != "":
		return in.Symbol + " in " + in.FilePath
	}
	return in.Symbol
}

// pathArg resolves an optional file_path for the permission request:
// the file, or the first root when there is none.
func (e *LSPEnv) pathArg(p string) (string, error) {
	return target(e.ws, p, "file_path", true)
}

// validate checks the position input's shape (not the file).
func (in lspPosInput) validate(tool string) error {
	switch {
	case in.Line < 0 || in.Column < 0:
		return fmt.Errorf("%s: line and column are 1-based: the first line is 1, the first column 1", tool)
	case in.Line > 0 && in.FilePath == "":
		return fmt.Errorf("%s: line needs file_path", tool)
	case in.Line > 0 && in.Column == 0 && in.Symbol == "":
		return fmt.Errorf("%s: give column as well as line (1-based, in characters), or symbol instead", tool)
	case in.Column > 0 && in.Line == 0:
		return fmt.Errorf("%s: column needs line", tool)
	case in.Line == 0 && strings.TrimSpace(in.Symbol) == "":
		return fmt.Errorf("%s: give file_path with line and column, or symbol (with or without file_path)", tool)
	}
	return nil
}

// locate resolves the position input to a place on a name.
func (e *LSPEnv) locate(ctx context.Context, in lspPosInput, tool string) (lspTarget, error) {
	if err := in.validate(tool); err != nil {
		return lspTarget{}, err
	}
	var abs string
	if in.FilePath != "" {
		var err error
		if abs, err = e.ws.Abs(in.FilePath); err != nil {
			return lspTarget{}, fmt.Errorf("%s: file_path: %w", tool, err)
		}
		if !e.ws.Inside(abs) {
			return lspTarget{}, fmt.Errorf("%s", outsideMessage(e.ws, abs))
		}
		if _, err := e.ws.statDisk(abs); err != nil && !e.isOpen(abs) {
			return lspTarget{}, fmt.Errorf("%s: %s: %w", tool, in.FilePath, err)
		}
	}
	if in.Line > 0 {
		t := lspTarget{path: abs, line: in.Line, col: in.Column}
		if in.Column == 0 {
			// line and symbol: the name on that line.
			col, err := e.columnOf(abs, in.Line, in.Symbol)
			if err != nil {
				return lspTarget{}, fmt.Errorf("%s: %w", tool, err)
			}
			t.col = col
		}
		t.name = e.identAt(abs, t.line, t.col)
		return t, nil
	}
	var cands []symCandidate
	var err error
	if abs != "" {
		cands, err = e.findInFile(ctx, abs, in.Symbol)
	} else {
		cands, err = e.findInWorkspace(ctx, in.Symbol)
	}
	if err != nil {
		return lspTarget{}, fmt.Errorf("%s: %w", tool, err)
	}
	if len(cands) > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d symbols match %q; call again with file_path, line and column of the one you mean (or a qualified name such as Type.Method):\n", tool, len(cands), in.Symbol)
		for i, c := range cands {
			if i == 30 {
				fmt.Fprintf(&b, "… and %d more\n", len(cands)-i)
				break
			}
			l := c.sym.SelectionRange
			fmt.Fprintf(&b, "%s:%d:%d %s %s\n", display(e.ws, l.Path), l.Line, l.Column, c.sym.Kind, c.shown())
		}
		return lspTarget{}, errors.New(strings.TrimRight(b.String(), "\n"))
	}
	c := cands[0]
	if abs == "" {
		c = e.refine(ctx, c)
	}
	l := c.sym.SelectionRange
	return lspTarget{path: l.Path, line: l.Line, col: l.Column, name: strings.TrimSpace(in.Symbol)}, nil
}

func (e *LSPEnv) isOpen(abs string) bool {
	if ov := e.ws.overlay; ov != nil {
		_, ok := ov.Document(abs)
		return ok
	}
	return false
}

// symCandidate is a symbol with its enclosing symbols' names.
type symCandidate struct {
	sym     client.Symbol
	parents []string
}

// shown is the candidate as the server names it: "Greet (in Greeter)" for
// a workspace symbol, "Greeter.Greet" for one from a file's outline.
func (c symCandidate) shown() string {
	if c.sym.Container != "" {
		return c.sym.Name + " (in " + c.sym.Container + ")"
	}
	return strings.Join(append(slices.Clip(c.parents), c.sym.Name), ".")
}

// segments are the container names then the name, with receiver
// decorations ("(*T).M") and separators ("::", ".") normalized.
func (c symCandidate) segments() []string {
	var out []string
	for _, p := range c.parents {
		out = append(out, nameSegments(p)...)
	}
	if c.sym.Container != "" {
		out = append(out, nameSegments(c.sym.Container)...)
	}
	return append(out, nameSegments(c.sym.Name)...)
}

// nameSegments splits a (possibly qualified) name: "(*Greeter).Greet",
// "Greeter.Greet", "ns::Greeter::greet", "example.com/pkg.F" → its parts.
func nameSegments(s string) []string {
	s = strings.NewReplacer("(", "", ")", "", "*", "", "&", "", "::", ".", "#", ".", "/", ".").Replace(strings.TrimSpace(s))
	var out []string
	for _, p := range strings.Split(s, ".") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// matchSymbol reports whether the candidate's segments end with the
// query's.
func matchSymbol(c symCandidate, query []string, fold bool) bool {
	segs := c.segments()
	if len(query) == 0 || len(segs) < len(query) {
		return false
	}
	tail := segs[len(segs)-len(query):]
	for i := range query {
		if tail[i] != query[i] && !(fold && strings.EqualFold(tail[i], query[i])) {
			return false
		}
	}
	return true
}

// flatten lists a document's symbol tree with each symbol's parents.
func flatten(syms []client.Symbol, parents []string, out *[]symCandidate) {
	for _, s := range syms {
		*out = append(*out, symCandidate{sym: s, parents: parents})
		if len(s.Children) > 0 {
			flatten(s.Children, append(slices.Clip(parents), s.Name), out)
		}
	}
}

// pick returns the candidates matching query: exact first, then ignoring
// case; duplicates (same place) once.
func pick(all []symCandidate, query string) []symCandidate {
	q := nameSegments(query)
	for _, fold := range []bool{false, true} {
		var out []symCandidate
		seen := map[client.Location]bool{}
		for _, c := range all {
			key := c.sym.SelectionRange
			key.EndLine, key.EndColumn = 0, 0
			if matchSymbol(c, q, fold) && !seen[key] {
				seen[key] = true
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// findInFile looks the symbol up in the file's outline.
func (e *LSPEnv) findInFile(ctx context.Context, abs, symbol string) ([]symCandidate, error) {
	c, err := e.clientFor(ctx, abs)
	if err != nil {
		return nil, err
	}
	syms, err := c.DocumentSymbols(ctx, abs)
	if err != nil {
		return nil, err
	}
	var all []symCandidate
	flatten(syms, nil, &all)
	if got := pick(all, symbol); len(got) > 0 {
		return got, nil
	}
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	if len(names) > 40 {
		names = append(names[:40], "…")
	}
	return nil, fmt.Errorf("no symbol named %q in %s (its outline: %s). Local variables are not in the outline: give line and column instead", symbol, display(e.ws, abs), strings.Join(names, ", "))
}

// findInWorkspace asks every server of the workspace for the name.
func (e *LSPEnv) findInWorkspace(ctx context.Context, symbol string) ([]symCandidate, error) {
	segs := nameSegments(symbol)
	if len(segs) == 0 {
		return nil, fmt.Errorf("symbol %q has no name in it", symbol)
	}
	syms, names, err := e.workspaceSymbols(ctx, segs[len(segs)-1])
	if err != nil {
		return nil, err
	}
	all := make([]symCandidate, 0, len(syms))
	for _, s := range syms {
		all = append(all, symCandidate{sym: s})
	}
	if got := pick(all, symbol); len(got) > 0 {
		return got, nil
	}
	var similar []string
	for i, s := range syms {
		if i == 10 {
			break
		}
		similar = append(similar, symCandidate{sym: s}.shown())
	}
	msg := fmt.Sprintf("no symbol named %q in the workspace (asked %s)", symbol, strings.Join(names, ", "))
	if len(similar) > 0 {
		msg += "; similar: " + strings.Join(similar, ", ")
	}
	return nil, errors.New(msg + ". Give file_path (and line and column) instead")
}

// workspaceSymbols queries every server, keeping results inside the
// roots. names are the servers asked.
func (e *LSPEnv) workspaceSymbols(ctx context.Context, query string) ([]client.Symbol, []string, error) {
	clients, err := e.discoverClients(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(clients) == 0 {
		return nil, nil, errors.New("no language server is running for this workspace and none handles its files; give file_path to use the server for that file's type, or configure one under `lsp` in the config")
	}
	var out []client.Symbol
	var names []string
	var errs []error
	for _, c := range clients {
		syms, err := c.WorkspaceSymbols(ctx, query)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names = append(names, c.Name())
		for _, s := range syms {
			if s.Range.Path != "" && filepath.IsAbs(s.Range.Path) && e.ws.Inside(s.Range.Path) {
				out = append(out, s)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil, errors.Join(errs...)
	}
	return out, names, nil
}

// refine moves a workspace symbol's position onto its name: servers give
// the whole declaration's range for workspace symbols.
func (e *LSPEnv) refine(ctx context.Context, c symCandidate) symCandidate {
	loc := c.sym.Range
	if loc.Line == 0 {
		return c
	}
	if cl, err := e.clientFor(ctx, loc.Path); err == nil {
		if syms, err := cl.DocumentSymbols(ctx, loc.Path); err == nil {
			var all []symCandidate
			flatten(syms, nil, &all)
			name := nameSegments(c.sym.Name)
			for _, d := range all {
				ds := nameSegments(d.sym.Name)
				if len(name) == 0 || len(ds) == 0 || ds[len(ds)-1] != name[len(name)-1] {
					continue
				}
				if locContains(d.sym.Range, loc) || locContains(loc, d.sym.SelectionRange) {
					out := c
					out.sym.SelectionRange = d.sym.SelectionRange
					return out
				}
			}
		}
	}
	// No outline entry: the first occurrence of the name in the range.
	if segs := nameSegments(c.sym.Name); len(segs) > 0 {
		if l, col, ok := e.findWord(loc, segs[len(segs)-1]); ok {
			c.sym.SelectionRange = client.Location{Path: loc.Path, Line: l, Column: col, EndLine: l, EndColumn: col + utf8.RuneCountInString(segs[len(segs)-1])}
		}
	}
	return c
}

func locContains(outer, inner client.Location) bool {
	if outer.Path != inner.Path {
		return false
	}
	startOK := outer.Line < inner.Line || outer.Line == inner.Line && outer.Column <= inner.Column
	endOK := outer.EndLine > inner.EndLine || outer.EndLine == inner.EndLine && outer.EndColumn >= inner.EndColumn
	return startOK && endOK
}

// findWord finds name as a whole word from loc's start to its end line.
func (e *LSPEnv) findWord(loc client.Location, name string) (int, int, bool) {
	f, err := e.ws.ReadFile(loc.Path)
	if err != nil {
		return 0, 0, false
	}
	lines := splitLines(f.Text)
	for l := loc.Line; l <= max(loc.EndLine, loc.Line) && l <= len(lines); l++ {
		from := 1
		if l == loc.Line {
			from = loc.Column
		}
		if col, ok := wordColumn(lines[l-1], name, from); ok {
			return l, col, true
		}
	}
	return 0, 0, false
}

// wordColumn is the 1-based code-point column of the first whole-word
// occurrence of name in line at or after column from.
func wordColumn(line, name string, from int) (int, bool) {
	runes := []rune(line)
	nr := []rune(name)
	isWord := func(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := max(from-1, 0); i+len(nr) <= len(runes); i++ {
		if string(runes[i:i+len(nr)]) != name {
			continue
		}
		if i > 0 && isWord(runes[i-1]) || i+len(nr) < len(runes) && isWord(runes[i+len(nr)]) {
			continue
		}
		return i + 1, true
	}
	return 0, false
}

// columnOf finds symbol on a line, for input with line and symbol.
func (e *LSPEnv) columnOf(abs string, line int, symbol string) (int, error) {
	f, err := e.ws.ReadFile(abs)
	if err != nil {
		return 0, err
	}
	lines := splitLines(f.Text)
	if line > len(lines) {
		return 0, fmt.Errorf("line %d is past the end of %s (%d lines)", line, display(e.ws, abs), len(lines))
	}
	segs := nameSegments(symbol)
	if len(segs) == 0 {
		return 0, fmt.Errorf("symbol %q has no name in it", symbol)
	}
	col, ok := wordColumn(lines[line-1], segs[len(segs)-1], 1)
	if !ok {
		return 0, fmt.Errorf("%q is not on line %d of %s: %s", segs[len(segs)-1], line, display(e.ws, abs), strings.TrimSpace(cutLine(lines[line-1], 200)))
	}
	return col, nil
}

// identAt is the identifier at a position, for messages ("" if none).
func (e *LSPEnv) identAt(abs string, line, col int) string {
	f, err := e.ws.ReadFile(abs)
	if err != nil {
		return ""
	}
	lines := splitLines(f.Text)
	if line < 1 || line > len(lines) {
		return ""
	}
	runes := []rune(lines[line-1])
	isWord := func(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	i := col - 1
	if i < 0 || i > len(runes) {
		return ""
	}
	if i == len(runes) || !isWord(runes[i]) {
		if i == 0 || !isWord(runes[i-1]) {
			return ""
		}
		i--
	}
	s, t := i, i
	for s > 0 && isWord(runes[s-1]) {
		s--
	}
	for t < len(runes) && isWord(runes[t]) {
		t++
	}
	return string(runes[s:t])
}

// --- formatting ---

// lspLines reads line texts for results: files inside the roots only, as
// the agent sees them (buffers first).
type lspLines struct {
	ws    *Workspace
	files map[string][]string
}

func newLSPLines(ws *Workspace) *lspLines { return &lspLines{ws: ws, files: map[string][]string{}} }

func (c *lspLines) line(path string, n int) (string, bool) {
	lines, ok := c.files[path]
	if !ok {
		if filepath.IsAbs(path) && c.ws.Inside(path) {
			if f, err := c.ws.ReadFile(path); err == nil {
				lines = splitLines(f.Text)
			}
		}
		c.files[path] = lines
	}
	if n < 1 || n > len(lines) {
		return "", false
	}
	return strings.TrimSpace(cutLine(lines[n-1], 200)), true
}

// locLine is "path:line:col: text".
func (c *lspLines) locLine(l client.Location) string {
	s := fmt.Sprintf("%s:%d:%d", display(c.ws, l.Path), l.Line, l.Column)
	if text, ok := c.line(l.Path, l.Line); ok {
		return s + ": " + text
	}
	if filepath.IsAbs(l.Path) && !c.ws.Inside(l.Path) {
		return s + " (outside the workspace folders)"
	}
	return s
}

// formatLocations lists locations grouped by file (a blank line between
// files), at most limit of them, then "… N more".
func formatLocations(ws *Workspace, locs []client.Location, limit int) string {
	lines := newLSPLines(ws)
	var b strings.Builder
	prev := ""
	for i, l := range locs {
		if i == limit {
			files := map[string]bool{}
			for _, r := range locs[i:] {
				files[r.Path] = true
			}
			fmt.Fprintf(&b, "\n… %d more in %d file(s) not shown.", len(locs)-i, len(files))
			break
		}
		if i > 0 && l.Path != prev {
			b.WriteByte('\n')
		}
		prev = l.Path
		b.WriteString(lines.locLine(l) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func countFiles(locs []client.Location) int {
	files := map[string]bool{}
	for _, l := range locs {
		files[l.Path] = true
	}
	return len(files)
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// sevRank orders severities: errors first.
func sevRank(s string) int {
	switch s {
	case "Error":
		return 0
	case "Warning":
		return 1
	case "Information":
		return 2
	}
	return 3
}

// formatDiagnostic is "path:line:col: error: message [source code]".
func formatDiagnostic(ws *Workspace, d client.Diagnostic) string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(d.Message, "\n", " / ")), " ")
	if len(msg) > 400 {
		msg = cutUTF8(msg, 400) + "…"
	}
	s := fmt.Sprintf("%s:%d:%d: %s: %s", display(ws, d.Path), d.Line, d.Column, strings.ToLower(d.Severity), msg)
	src := strings.TrimSpace(d.Source + " " + d.Code)
	if src != "" {
		s += " [" + src + "]"
	}
	return s
}

// sortDiagnostics orders by severity, then file and position.
func sortDiagnostics(ds []client.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if ra, rb := sevRank(a.Severity), sevRank(b.Severity); ra != rb {
			return ra < rb
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// countSeverities says "2 errors, 1 warning".
func countSeverities(ds []client.Diagnostic) string {
	var errs, warns, other int
	for _, d := range ds {
		switch d.Severity {
		case "Error":
			errs++
		case "Warning":
			warns++
		default:
			other++
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, countOf(errs, "error", "errors"))
	}
	if warns > 0 {
		parts = append(parts, countOf(warns, "warning", "warnings"))
	}
	if other > 0 {
		parts = append(parts, countOf(other, "hint", "hints/notes"))
	}
	if len(parts) == 0 {
		return "no diagnostics"
	}
	return strings.Join(parts, ", ")
}

// --- diagnostics after the agent's changes ---

// lspAfterChange tells the servers about files the agent just changed
// (path → new text) and returns their fresh errors and warnings for the
// tool result, errors first and capped; "" when no server handles them.
func (w *Workspace) lspAfterChange(ctx context.Context, changed map[string]string) string {
	e := w.lspEnv()
	if e == nil || len(changed) == 0 {
		return ""
	}
	m, err := e.Manager()
	if err != nil {
		return ""
	}
	paths := slices.Sorted(maps.Keys(changed))
	for _, p := range paths {
		// A change applied to an editor buffer reaches the overlay with
		// the editor's didChange; wait (briefly) until it has.
		if ov, ok := w.overlay.(OverlayWaiter); ok && e.isOpen(p) {
			wctx, cancel := context.WithTimeout(ctx, lspBufferWait)
			ov.WaitDocument(wctx, p, func(d Document, open bool) bool { return !open || d.Text == changed[p] })
			cancel()
		}
		m.DidWrite(ctx, p)
	}
	type result struct {
		diags []client.Diagnostic
		err   error
		none  bool // no server for the file
	}
	results := make([]result, len(paths))
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for i, p := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := e.clientFor(ctx, p)
				if err != nil {
					results[i] = result{none: quietLSPError(err), err: err}
					return
				}
				d, err := c.SettledDiagnostics(ctx, p)
				results[i] = result{diags: d, err: err}
			}()
		}
		wg.Wait()
	}()
	t := time.NewTimer(lspEditDiagWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		return fmt.Sprintf("\n\n(The language server's diagnostics were not ready after %s; call lsp_diagnostics to see them.)", lspEditDiagWait)
	case <-ctx.Done():
		return ""
	}
	var all []client.Diagnostic
	var checked []string
	var failed []string
	for i, r := range results {
		switch {
		case r.none:
		case r.err != nil:
			failed = append(failed, fmt.Sprintf("%s: %v", display(w, paths[i]), r.err))
		default:
			checked = append(checked, display(w, paths[i]))
			for _, d := range r.diags {
				if d.Severity == "Error" || d.Severity == "Warning" {
					all = append(all, d)
				}
			}
		}
	}
	var b strings.Builder
	switch {
	case len(checked) == 0 && len(failed) == 0:
		return ""
	case len(checked) > 0 && len(all) == 0:
		fmt.Fprintf(&b, "\n\nLanguage server: no errors or warnings in %s.", strings.Join(checked, ", "))
	case len(all) > 0:
		sortDiagnostics(all)
		fmt.Fprintf(&b, "\n\nLanguage server diagnostics after the change (%s):", countSeverities(all))
		const limit = 10
		for i, d := range all {
			if i == limit {
				fmt.Fprintf(&b, "\n… %d more: call lsp_diagnostics for all.", len(all)-i)
				break
			}
			b.WriteString("\n" + formatDiagnostic(w, d))
		}
	}
	for _, f := range failed {
		b.WriteString("\n(No diagnostics for " + f + ")")
	}
	return b.String()
}

// lspCache keeps the changes a tool computed in Describe for its Run, so
// the person approves exactly what is applied.
type lspCache struct {
	mu    sync.Mutex
	plans map[string]lspCached
}

type lspCached struct {
	input string
	plans []plan
	extra any
}

func (c *lspCache) put(call Call, plans []plan, extra any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plans == nil || len(c.plans) > 64 {
		c.plans = map[string]lspCached{}
	}
	c.plans[call.ID] = lspCached{input: string(call.Input), plans: plans, extra: extra}
}

func (c *lspCache) take(call Call) (lspCached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.plans[call.ID]
	delete(c.plans, call.ID)
	if !ok || p.input != string(call.Input) {
		return lspCached{}, false
	}
	return p, true
}

// stillCurrent checks that every planned file is as it was when the
// change was computed (and shown to the person).
func (w *Workspace) stillCurrent(plans []plan, tool string) error {
	for _, p := range plans {
		cur, err := w.ReadFile(p.abs)
		if err != nil {
			return fmt.Errorf("%s: %s: %w; nothing was changed", tool, p.shown, err)
		}
		if cur.Text != p.cur.Text || cur.Open != p.cur.Open || cur.Open && cur.Version != p.cur.Version {
			return fmt.Errorf("%s: %s changed since the change was computed; nothing was changed: run %s again", tool, p.shown, tool)
		}
	}
	return nil
}
