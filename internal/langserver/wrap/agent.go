package wrap

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/proc"
)

// Agent is agentls's own client's connection to the shared server
// (client.SharedConn).
type Agent struct {
	m *Mux

	mu     sync.Mutex
	queue  []jsonrpc2.Message
	wake   chan struct{} // closed and replaced when the queue grows or the Agent closes
	closed bool
	ids    map[jsonrpc2.ID]jsonrpc2.ID // the client's id → the server-side id, while pending
}

var _ client.SharedConn = (*Agent)(nil)

// Shared is the Mux as the client package's Shared: what the lsp_* tools
// attach to for the files of the server named name.
func (m *Mux) Shared(name string) client.Shared { return shared{m, name} }

type shared struct {
	m    *Mux
	name string
}

func (s shared) Name() string { return s.name }

func (s shared) Attach(context.Context) (client.SharedConn, error) { return s.m.Attach() }

// Attach connects agentls's client. The server's published diagnostics
// and its registrations so far come first, so a client attaching late
// knows what one attached from the start would. A client already attached
// is detached first.
func (m *Mux) Attach() (*Agent, error) {
	m.mu.Lock()
	old := m.agent
	m.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	a := &Agent{m: m, wake: make(chan struct{}), ids: map[jsonrpc2.ID]jsonrpc2.ID{}}
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-m.done:
		return nil, m.gone(m.err)
	default:
	}
	if m.init == nil {
		return nil, errors.New("the server is not initialized yet")
	}
	m.agent = a
	for _, c := range m.regs {
		a.deliver(m.copyLocked(c))
	}
	for _, p := range m.diags {
		a.deliver(notification("textDocument/publishDiagnostics", p))
	}
	return a, nil
}

// Proc is the server's process.
func (a *Agent) Proc() *proc.Proc { return a.m.proc }

// Lock holds back the editor's document events (Mux.DocEvent).
func (a *Agent) Lock() { a.m.docLock.Lock() }

// Unlock lets them go on.
func (a *Agent) Unlock() { a.m.docLock.Unlock() }

// EditorDoc is the editor's document at path, as the server has it.
func (a *Agent) EditorDoc(path string) (uri string, version int32, text string, ok bool) {
	m := a.m
	m.mu.Lock()
	uri, ok = m.edDocs[path]
	m.mu.Unlock()
	if !ok {
		return "", 0, "", false
	}
	text, version, ok = m.docs.Get(path)
	return uri, version, text, ok
}

// Read returns the next message for the client.
func (a *Agent) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		a.mu.Lock()
		if len(a.queue) > 0 {
			msg := a.queue[0]
			a.queue[0] = nil
			a.queue = a.queue[1:]
			a.mu.Unlock()
			return msg, 0, nil
		}
		if a.closed {
			a.mu.Unlock()
			return nil, 0, errors.New("detached from the shared server")
		}
		wake := a.wake
		a.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// Write takes a message of the client's: requests go to the server under
// ids of the Mux's (initialize and shutdown are answered here), document
// notifications go only for documents the editor does not have open, and
// the notifications that only the process's own client may send, as well
// as the client's answers to copies of the server's requests, go nowhere.
func (a *Agent) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	m := a.m
	switch msg := msg.(type) {
	case *jsonrpc2.Call:
		switch msg.Method() {
		case "initialize":
			m.mu.Lock()
			res := m.init
			m.mu.Unlock()
			a.deliver(response(msg.ID(), res, nil))
		case "shutdown":
			a.deliver(response(msg.ID(), nil, nil))
		default:
			m.mu.Lock()
			defer m.mu.Unlock()
			select {
			case <-m.done:
				a.deliver(response(msg.ID(), nil, m.gone(m.err)))
				return 0, nil
			default:
			}
			sid := m.nextIDLocked()
			m.pending[sid] = route{agent: a, agentID: msg.ID()}
			a.mu.Lock()
			a.ids[msg.ID()] = sid
			a.mu.Unlock()
			return 0, m.writeServerLocked(call(sid, msg.Method(), msg.Params()))
		}
	case *jsonrpc2.Notification:
		switch msg.Method() {
		case "initialized", "exit", "workspace/didChangeConfiguration":
		case "$/cancelRequest":
			var p struct {
				ID jsonrpc2.ID `json:"id"`
			}
			if json.Unmarshal(msg.Params(), &p) == nil {
				a.mu.Lock()
				sid, ok := a.ids[p.ID]
				a.mu.Unlock()
				if ok {
					m.mu.Lock()
					defer m.mu.Unlock()
					return 0, m.writeServerLocked(cancelNotification(sid))
				}
			}
		case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave":
			return 0, a.docEvent(msg)
		default:
			m.mu.Lock()
			defer m.mu.Unlock()
			return 0, m.writeServerLocked(msg)
		}
	}
	return 0, nil
}

// docEvent sends one of the client's document notifications, unless the
// document is the editor's.
func (a *Agent) docEvent(n *jsonrpc2.Notification) error {
	m := a.m
	uri := docURI(n.Params())
	path, err := overlay.URIToPath(uri)
	if err != nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if a.closedNow() {
		return nil
	}
	_, editors := m.edDocs[path]
	_, own := m.agDocs[path]
	switch n.Method() {
	case "textDocument/didOpen":
		if editors || own {
			return nil
		}
		m.agDocs[path] = uri
	case "textDocument/didClose":
		if !own {
			return nil
		}
		delete(m.agDocs, path)
	default:
		if !own || editors {
			return nil
		}
	}
	return m.writeServerLocked(n)
}

// Close detaches the client: the documents it opened are closed.
func (a *Agent) Close() error {
	m := a.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.agent == a {
		m.agent = nil
		if !m.exitSent {
			for path, uri := range m.agDocs {
				delete(m.agDocs, path)
				_ = m.writeServerLocked(notification("textDocument/didClose", mustJSON(map[string]any{"textDocument": map[string]string{"uri": uri}})))
			}
		}
		for sid, rt := range m.pending {
			if rt.agent == a {
				delete(m.pending, sid)
			}
		}
	}
	a.closeLocked()
	return nil
}

func (a *Agent) closedNow() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

// closeLocked marks the Agent closed (the Mux's lock held).
func (a *Agent) closeLocked() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		a.closed = true
		close(a.wake)
	}
}

// deliver queues a message for the client.
func (a *Agent) deliver(msg jsonrpc2.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	a.queue = append(a.queue, msg)
	close(a.wake)
	a.wake = make(chan struct{})
}

// answered delivers the server's answer to the client's request id.
func (a *Agent) answered(id jsonrpc2.ID, r *jsonrpc2.Response) {
	a.mu.Lock()
	delete(a.ids, id)
	a.mu.Unlock()
	a.deliver(response(id, r.Result(), r.Err()))
}
