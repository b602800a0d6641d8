package wrap

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
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

// Read returns the next message that is agentls's.
func (e *Editor) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		msg, n, err := e.inner.Read(ctx)
		total += n
		if err != nil {
			return msg, total, err
		}
		m := e.Mux()
		if m == nil {
			return msg, total, nil
		}
		switch msg := msg.(type) {
		case *jsonrpc2.Call:
			switch e.route(msg.Method(), msg.Params()) {
			case ToServer:
				m.passCall(msg, false)
				continue
			case ToBoth:
				m.passCall(msg, true)
			}
		case *jsonrpc2.Response:
			if m.answerFromEditor(msg) {
				continue
			}
		case *jsonrpc2.Notification:
			if msg.Method() == "$/cancelRequest" {
				if handled, merged := m.cancelFromEditor(msg.Params()); handled && !merged {
					continue
				}
			}
		}
		return msg, total, nil
	}
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

func (e *Editor) write(msg jsonrpc2.Message) error {
	_, err := e.inner.Write(context.Background(), msg)
	return err
}
