package client

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
)

// A shared server is one process serving both the editor and agentls's
// tools (agentls serve --wrap): the editor started it through agentls and
// initialized it, and its documents are the editor's. The lsp_* tools then
// talk to that process instead of starting their own: the client of the
// server's name attaches to it (Shared.Attach) rather than starting a
// program, never initializes it, restarts or stops it, and never opens,
// changes or closes a document the editor has open, whose text and
// version it takes from the editor (SharedConn.EditorDoc). Documents the
// editor has not opened it opens as usual; the other side closes them
// when the editor opens one (package langserver/wrap).

// Shared is a server process shared with the editor.
type Shared interface {
	// Name is the configured server it stands for ("gopls"), whose files
	// the tools send to it.
	Name() string
	// Attach connects a client to the process. The connection's
	// initialize is answered with the editor's result, and the messages
	// that only a process's own client may send (initialized, shutdown,
	// exit, configuration) go nowhere.
	Attach(ctx context.Context) (SharedConn, error)
}

// SharedConn is one client's connection to a shared server.
type SharedConn interface {
	// Stream carries the client's messages: requests and notifications
	// out, the server's answers and (copies of) its messages in. Closing
	// it detaches: the documents the client opened are closed.
	jsonrpc2.Stream
	// Proc is the server's process (for its status; never to kill).
	Proc() *proc.Proc
	// Lock holds back the editor's document changes until Unlock, so the
	// client can check which documents the editor has open and send its
	// own without the editor's interleaving.
	Lock()
	Unlock()
	// EditorDoc is the editor's document at path as the server has it,
	// when the editor has it open.
	EditorDoc(path string) (uri string, version int32, text string, ok bool)
}

// SharedProcess is a server program started for sharing (StartShared).
type SharedProcess struct {
	// Proc is the running program.
	Proc *proc.Proc
	// Name is the configured server the program stands for ("gopls"), or
	// "" when it matches none: the tools then keep their own servers.
	Name string
	// Confined: the program runs in the kernel sandbox, which refuses its
	// signals to agentls (initialize must then name no processId).
	Confined bool
	// Form says how it started: "full" in a trusted folder, else "safe".
	Form string
}

// StartShared starts argv, the program the person named on agentls's
// command line, as the server the editor and the tools share, in folder,
// under the trust rules of every server start (trust.go): as given in a
// trusted folder; elsewhere in the safe form of the server it is (matched
// by program name: `gopls` is the built-in gopls), its program resolved
// outside the folder. Only safe forms made of the command line and the
// environment apply to a shared server (its settings and initialization
// options are the editor's), so a server whose safe form needs settings
// (pyright, typescript-language-server, rust-analyzer), or that agentls
// knows no safe form of, does not start in an untrusted folder
// (ErrUntrusted). It runs in the sandbox as every server does.
func (s *Servers) StartShared(ctx context.Context, argv []string, folder string) (*SharedProcess, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("--wrap needs a command")
	}
	m, err := s.Manager()
	if err != nil {
		return nil, err
	}
	e, inUse := m.entryForProgram(argv[0])
	e.cfg.Command = argv
	m.mu.Lock()
	full, err := m.resolveCommand(e)
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	folder = filepath.Clean(folder)
	c := newClient(m, e, folder, folder, full)
	l, err := m.prepare(c)
	if err != nil {
		return nil, err
	}
	trusted := m.trustedFolder(folder)
	if !trusted && (!sameJSON(l.init, e.cfg.InitOptions) || !sameJSON(l.settings, e.cfg.Settings)) {
		return nil, kindErrorf(ErrUntrusted, "%s is not started in %s: its safe form there needs settings of its own, which a server the editor configures cannot be given, and the folder is not trusted. Trust it with `agentls trust %s`, then restart the server in the editor", e.cfg.Name, folder, folder)
	}
	sl, err := m.sandbox.Launch(l.argv[0], l.env)
	if err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", e.cfg.Name, strings.Join(l.argv, " "), err)
	}
	p, err := proc.Start(l.argv, folder, sl.Env, sl.Start)
	if err != nil {
		sl.Release()
		return nil, fmt.Errorf("start %s (%s): %w", e.cfg.Name, strings.Join(l.argv, " "), err)
	}
	go func() {
		<-p.Exited()
		sl.Release()
	}()
	sp := &SharedProcess{Proc: p, Confined: m.sandbox.Confined(), Form: "safe"}
	if trusted {
		sp.Form = "full"
	}
	if inUse {
		sp.Name = e.cfg.Name
	}
	m.log.Info("shared language server started", "server", e.cfg.Name, "argv", l.argv, "form", sp.Form, "pid", p.Pid())
	return sp, nil
}

// Share makes the tools use sh for the files of its server, from now on
// and in every Manager made after a configuration change.
func (s *Servers) Share(sh Shared) {
	s.mu.Lock()
	s.shared = sh
	m := s.m
	s.mu.Unlock()
	if m != nil {
		m.share(sh)
	}
}

// share sets the shared server of m.
func (m *Manager) share(sh Shared) {
	m.mu.Lock()
	m.shared = sh
	m.mu.Unlock()
}

// sharedFor is the shared server standing for the server named name, or
// nil.
func (m *Manager) sharedFor(name string) Shared {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sharedForLocked(name)
}

func (m *Manager) sharedForLocked(name string) Shared {
	if m.shared != nil && m.shared.Name() == name {
		return m.shared
	}
	return nil
}

// entryForProgram is the server a program is (the configured entry, else
// the built-in one, whose command's program has its base name), and
// whether the tools use that entry; else an entry of its own named after
// the program, which no file is sent to.
func (m *Manager) entryForProgram(program string) (serverEntry, bool) {
	base := filepath.Base(program)
	for _, e := range m.servers {
		if filepath.Base(e.cfg.Command[0]) == base {
			return e, true
		}
	}
	for name, b := range config.BuiltinServers() {
		if len(b.Command) > 0 && filepath.Base(b.Command[0]) == base {
			b.Name = name
			return serverEntry{cfg: b, builtin: true}, false
		}
	}
	return serverEntry{cfg: config.ServerConfig{Name: base}}, false
}

// sameJSON reports whether a and b encode alike (nil and an empty map
// count as different only when they encode differently).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	empty := func(s []byte) bool { return string(s) == "null" || string(s) == "{}" }
	return string(x) == string(y) || empty(x) && empty(y)
}

// attachSession makes a session on the shared server: the connection is
// the shared one, initialize is answered with the editor's result.
func attachSession(ctx context.Context, c *Client, sh Shared) (*session, error) {
	conn, err := sh.Attach(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s (shared with the editor): %w", c.name, err)
	}
	s := newSession(c, conn.Proc(), nil, nil)
	s.shared = conn
	s.conn = jsonrpc2.NewConn(conn)
	s.conn.Go(s.ctx, s.handle)
	go s.watchExit()
	var res initializeResult
	if err := s.request(ctx, c.m.startTimeout, "initialize", s.initializeParams(), &res); err != nil {
		s.kill()
		return nil, fmt.Errorf("attach to %s: %w", c.name, err)
	}
	s.negotiated(res)
	s.log.Debug("attached to the language server shared with the editor", "encoding", s.enc.String())
	return s, nil
}

// adoptEditorDoc records, when the editor has path open in the shared
// server, that the server has the editor's text, and returns it; the
// caller holds the shared lock. A copy the client had opened itself was
// closed by the other side when the editor opened it.
func (s *session) adoptEditorDoc(path string, now time.Time) (docState, bool) {
	uri, version, body, ok := s.shared.EditorDoc(path)
	s.docMu.Lock()
	defer s.docMu.Unlock()
	d, had := s.docs[path]
	if !ok {
		if had && d.byEditor {
			// The editor closed it: the server has it no more.
			delete(s.docs, path)
		}
		return docState{}, false
	}
	if !had || !d.byEditor || d.version != version || d.uri != uri || d.text.s != body {
		opened := now
		if had && d.byEditor {
			opened = d.opened
		}
		d = &doc{uri: uri, lang: languageID(path), version: version, text: newText(body), opened: opened, sent: now, byEditor: true}
		s.docs[path] = d
	}
	d.editor, d.used = true, now
	return d.state(path), true
}
