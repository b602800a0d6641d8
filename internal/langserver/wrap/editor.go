package wrap

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/framing"
)

// Route says who answers one of the editor's requests.
type Route int

const (
	// ToServer: the server alone; its answer goes to the editor as it is.
	ToServer Route = iota
	// ToAgentls: agentls alone (its commands, initialize, shutdown).
	ToAgentls
	// ToBoth: both; agentls's handler merges the server's part
	// (Mux.ServerPart) with its own (code actions).
	ToBoth
)

// Editor is the editor's stream as agentls's own connection reads it:
// once a Mux is in use, the editor's requests for the server, its answers
// to the server's requests and its cancellations of requests the server
// has are taken out and handled here, in the order they came, and the
// rest is read on. Writes go to the editor unchanged.
type Editor struct {
	inner jsonrpc2.Stream
	route func(method string, params json.RawMessage) Route
	mux   atomic.Pointer[Mux]
}

var _ jsonrpc2.Stream = (*Editor)(nil)

// NewEditor wraps the editor's stream. route says who answers a request
// once a Mux is in use.
func NewEditor(inner jsonrpc2.Stream, route func(method string, params json.RawMessage) Route) *Editor {
	return &Editor{inner: inner, route: route}
}

// Use routes the editor's messages through m from now on.
func (e *Editor) Use(m *Mux) { e.mux.Store(m) }

// Mux is the Mux in use, or nil.
func (e *Editor) Mux() *Mux {
	m := e.mux.Load()
	if m == nil {
		return nil
	}
	select {
	case <-m.done:
		return nil // the server is gone: agentls answers alone
	default:
		return m
	}
}

// rawStream is a stream whose bodies can be scanned and passed on
// undecoded, and whose writes can be held while a burst of messages is
// passed on (framing.Stream).
type rawStream interface {
	ReadBody(ctx context.Context) ([]byte, int64, error)
	Ahead() bool
	Decode(body []byte) (jsonrpc2.Message, error)
	WriteRaw(r framing.Raw, id jsonrpc2.ID) error
	Hold()
	Release()
}

// Read returns the next message that is agentls's.
func (e *Editor) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	raw, ok := e.inner.(rawStream)
	if !ok {
		return e.readDecoded(ctx)
	}
	var total int64
	// While more of the editor's messages are read already, what goes to
	// the server is held and then sent in one write.
	var held *Mux
	release := func() {
		if held != nil {
			held.server.Release()
			held = nil
		}
	}
	defer release()
	for {
		if !raw.Ahead() {
			release()
		}
		body, n, err := raw.ReadBody(ctx)
		total += n
		if err != nil {
			return nil, total, err
		}
		m := e.Mux()
		if m != nil && held == nil && raw.Ahead() {
			m.server.Hold()
			held = m
		}
		if m == nil {
			if msg, err := raw.Decode(body); err == nil {
				return msg, total, nil
			}
			continue
		}
		// The editor's requests for the server and its answers to the
		// server's are passed on undecoded; the rest is decoded.
		var rt *Route
		if r, ok := framing.Scan(body); ok {
			switch r.Kind {
			case framing.RawCall:
				to := e.route(r.Method, r.Params)
				if to == ToServer {
					m.passRaw(r)
					continue
				}
				rt = &to
			case framing.RawResponse:
				if m.answerRawFromEditor(r) {
					continue
				}
			}
		}
		msg, err := raw.Decode(body)
		if err != nil {
			continue
		}
		if e.take(m, msg, rt) {
			continue
		}
		return msg, total, nil
	}
}

// readDecoded is Read over a stream that only decodes.
func (e *Editor) readDecoded(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		msg, n, err := e.inner.Read(ctx)
		total += n
		if err != nil {
			return msg, total, err
		}
		m := e.Mux()
		if m == nil || !e.take(m, msg, nil) {
			return msg, total, nil
		}
	}
}

// take handles one of the editor's messages that is the server's (or
// partly): false when agentls's connection reads it. to is the route of a
// request when it was asked already.
func (e *Editor) take(m *Mux, msg jsonrpc2.Message, to *Route) bool {
	switch msg := msg.(type) {
	case *jsonrpc2.Call:
		if to == nil {
			r := e.route(msg.Method(), msg.Params())
			to = &r
		}
		switch *to {
		case ToServer:
			m.passCall(msg, false)
			return true
		case ToBoth:
			m.passCall(msg, true)
		}
	case *jsonrpc2.Response:
		return m.answerFromEditor(msg)
	case *jsonrpc2.Notification:
		if msg.Method() == "$/cancelRequest" {
			if handled, merged := m.cancelFromEditor(msg.Params()); handled && !merged {
				return true
			}
		}
	}
	return false
}

// Write sends a message to the editor.
func (e *Editor) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return e.inner.Write(ctx, msg)
}

// Close closes the editor's stream.
func (e *Editor) Close() error { return e.inner.Close() }

// responseWriter writes a passed-on answer without re-encoding it
// (framing.Stream.WriteResponse).
type responseWriter interface {
	WriteResponse(ctx context.Context, id jsonrpc2.ID, result json.RawMessage, err error) error
}

// answer writes the answer to one of the editor's requests.
func (e *Editor) answer(id jsonrpc2.ID, result json.RawMessage, err error) error {
	if w, ok := e.inner.(responseWriter); ok {
		return w.WriteResponse(context.Background(), id, result, err)
	}
	return e.write(response(id, result, err))
}

// hold holds the writes to the editor while the server's messages that
// are read already are passed on (Mux.read); release ends it.
func (e *Editor) hold() {
	if w, ok := e.inner.(rawStream); ok {
		w.Hold()
	}
}

func (e *Editor) release() {
	if w, ok := e.inner.(rawStream); ok {
		w.Release()
	}
}

// writeRaw passes on a message of the server's to the editor under id
// (an answer's: the editor's request's), as it came.
func (e *Editor) writeRaw(r framing.Raw, id jsonrpc2.ID) error {
	if w, ok := e.inner.(rawStream); ok {
		return w.WriteRaw(r, id)
	}
	switch r.Kind {
	case framing.RawResponse:
		return e.answer(id, r.Result, nil)
	case framing.RawNotification:
		return e.write(notification(r.Method, r.Params))
	}
	return e.write(call(id, r.Method, r.Params))
}

func (e *Editor) write(msg jsonrpc2.Message) error {
	_, err := e.inner.Write(context.Background(), msg)
	return err
}
