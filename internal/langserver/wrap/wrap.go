// Package wrap runs one language server for both the editor and agentls
// (`agentls serve --wrap gopls`), so that an editor that gives a buffer
// one server (Emacs eglot) gets the server's features and the agent's from
// one entry, and agentls's lsp_* tools use the very process the editor
// uses instead of a second one.
//
// A Mux sits between three parties. The editor's requests that agentls
// does not answer itself go to the server unchanged, under ids of the
// Mux's (the answer goes back under the editor's id; $/cancelRequest is
// mapped too); the editor's notifications go on unchanged. The server's
// notifications reach the editor unchanged, and its requests
// (workspace/configuration, client/registerCapability, workspace/applyEdit
// of its own code actions, …) are the editor's to answer, under ids of a
// range agentls's own requests to the editor never reach. agentls's own
// client of the server (package langserver/client) attaches as an Agent:
// its requests get ids of their own and their answers reach it alone; it
// sees copies of the server's messages (diagnostics, progress,
// registrations), whose answers go nowhere; it never initializes, shuts
// down or configures the server, and the documents the editor has open
// are the editor's: its own copy of one is closed when the editor opens
// it, and it sends nothing for them (Agent.EditorDoc gives it the text the
// server has).
//
// The editor's stream is read through an Editor, which takes the
// messages meant for the server out before agentls's own connection sees
// the rest. What agentls answers is the frontend's to say (Editor's
// route function); the merging of answers and capabilities is in merge.go.
//
// What passes through (the editor's requests for the server and their
// answers, the server's notifications, the editor's answers to the
// server's requests) is not decoded: framing.Scan reads its id and method,
// the id is replaced and the params or result go on byte for byte. A
// message Scan does not take (an error answer, an unusual id, …) is
// decoded and routed alike.
package wrap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/framing"
	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/proc"
)

// editorIDBase starts the ids of the server's requests as the editor sees
// them: agentls's own requests to the editor count up from 1 and never
// get there, and the ids stay numbers (Emacs's jsonrpc compares ids with
// eql: strings would never match).
const editorIDBase = 1 << 30

// Documents is the editor's open buffers as agentls keeps them (the
// overlay): the text the server was sent, since the editor's changes reach
// both alike.
type Documents interface {
	Get(path string) (text string, version int32, ok bool)
}

// Options configure a Mux.
type Options struct {
	// Name is the server's name for messages ("gopls").
	Name string
	// Proc is the server's process; the Mux owns it from now on.
	Proc *proc.Proc
	// Editor is the editor's stream.
	Editor *Editor
	// Docs are the editor's buffers.
	Docs Documents
	// Log receives what goes wrong; nil discards it.
	Log *slog.Logger
}

// route is who waits for the answer to a request sent to the server.
type route struct {
	toEditor bool // the editor's request, answered under editor
	editor   jsonrpc2.ID
	wait     chan *jsonrpc2.Response // a request of the Mux's own (Request) or a merge
	agent    *Agent                  // agentls's client, answered under agentID
	agentID  jsonrpc2.ID
}

// Mux shares one server process between the editor and agentls.
type Mux struct {
	name   string
	log    *slog.Logger
	proc   *proc.Proc
	server *framing.Stream
	editor *Editor
	docs   Documents

	// docLock orders the editor's document events against an Agent's
	// syncs (Agent.Lock): the Agent sees the editor's buffers exactly as
	// the server has them while it holds it.
	docLock sync.Mutex

	mu       sync.Mutex
	next     int32                                   // the last id of a request sent to the server
	pending  map[jsonrpc2.ID]route                   // by the server-side id
	passed   map[jsonrpc2.ID]jsonrpc2.ID             // editor's id → server-side id, while pending
	merges   map[jsonrpc2.ID]chan *jsonrpc2.Response // editor's id → the server's part of a merged answer
	nextEd   int32                                   // the last id of a server request sent to the editor
	toServer map[jsonrpc2.ID]jsonrpc2.ID             // editor-side id → the server's id of its request
	edDocs   map[string]string                       // path → the editor's URI: the editor's open documents
	agDocs   map[string]string                       // path → URI: documents agentls's client opened
	diags    map[string]json.RawMessage              // URI → the last publishDiagnostics params
	regs     []*jsonrpc2.Call                        // registrations, for an Agent attaching later
	agent    *Agent
	copies   int64
	init     json.RawMessage // the server's initialize result
	exitSent bool
	done     chan struct{}
	err      error
}

// Start makes the Mux over a running server and starts reading it. The
// editor's messages reach the server once the Editor routes through it
// (Editor.Use, after Initialize).
func Start(o Options) *Mux {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Mux{
		name: o.Name, log: log.With("wrapped", o.Name), proc: o.Proc, editor: o.Editor, docs: o.Docs,
		server:  framing.New(o.Proc, framing.Options{MaxMessageSize: 64 << 20, Peer: o.Name, Log: log}),
		pending: map[jsonrpc2.ID]route{}, passed: map[jsonrpc2.ID]jsonrpc2.ID{}, merges: map[jsonrpc2.ID]chan *jsonrpc2.Response{},
		toServer: map[jsonrpc2.ID]jsonrpc2.ID{}, edDocs: map[string]string{}, agDocs: map[string]string{},
		diags: map[string]json.RawMessage{}, done: make(chan struct{}),
	}
	go m.read()
	return m
}

// Done is closed when the server has exited or its connection broke.
func (m *Mux) Done() <-chan struct{} { return m.done }

// Err says why the server's connection ended.
func (m *Mux) Err() error {
	select {
	case <-m.done:
		return m.err
	default:
		return nil
	}
}

// Name is the server's name.
func (m *Mux) Name() string { return m.name }

// Proc is the server's process.
func (m *Mux) Proc() *proc.Proc { return m.proc }

// Initialize sends the editor's initialize (as the frontend adjusted it)
// and returns the server's result, which an Agent's initialize is
// answered with too.
func (m *Mux) Initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	res, err := m.Request(ctx, "initialize", params)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.init = res
	m.mu.Unlock()
	return res, nil
}

// Request sends a request of the frontend's to the server and waits for
// its answer (shutdown; initialize through Initialize). A cancelled ctx
// cancels it at the server.
func (m *Mux) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	ch := make(chan *jsonrpc2.Response, 1)
	m.mu.Lock()
	if m.endedLocked() {
		err := m.gone(m.err)
		m.mu.Unlock()
		return nil, err
	}
	sid := m.nextIDLocked()
	m.pending[sid] = route{wait: ch}
	err := m.writeServerLocked(call(sid, method, params))
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return m.await(ctx, sid, ch)
}

// await waits for the answer on ch to the request sid.
func (m *Mux) await(ctx context.Context, sid jsonrpc2.ID, ch chan *jsonrpc2.Response) (json.RawMessage, error) {
	select {
	case r := <-ch:
		if r.Err() != nil {
			return nil, r.Err()
		}
		return r.Result(), nil
	case <-ctx.Done():
		m.mu.Lock()
		delete(m.pending, sid)
		_ = m.writeServerLocked(cancelNotification(sid))
		m.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Notify sends one of the editor's notifications to the server unchanged.
func (m *Mux) Notify(method string, params json.RawMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if method == "exit" {
		m.exitSent = true
	}
	_ = m.writeServerLocked(notification(method, params))
}

// DocEvent applies one of the editor's document notifications (didOpen,
// didChange, didClose) with apply (agentls's overlay) and sends it to the
// server, as one step for an Agent holding the lock: it then sees the
// buffers exactly as the server has them. When the editor opens a document
// agentls's client had opened, the client's copy is closed first.
func (m *Mux) DocEvent(method string, params json.RawMessage, apply func()) {
	m.docLock.Lock()
	defer m.docLock.Unlock()
	apply()
	uri := docURI(params)
	path, perr := overlay.URIToPath(uri)
	m.mu.Lock()
	defer m.mu.Unlock()
	if perr == nil {
		switch method {
		case "textDocument/didOpen":
			if own, ok := m.agDocs[path]; ok {
				delete(m.agDocs, path)
				_ = m.writeServerLocked(notification("textDocument/didClose", mustJSON(map[string]any{"textDocument": map[string]string{"uri": own}})))
			}
			m.edDocs[path] = uri
		case "textDocument/didClose":
			delete(m.edDocs, path)
		}
	}
	_ = m.writeServerLocked(notification(method, params))
}

// ServerPart waits for the server's answer to the editor's request id,
// which the Editor sent to the server to be merged with agentls's own
// (RouteBoth). A server error comes back as the error.
func (m *Mux) ServerPart(ctx context.Context, id jsonrpc2.ID) (json.RawMessage, error) {
	m.mu.Lock()
	ch := m.merges[id]
	sid := m.passed[id]
	m.mu.Unlock()
	if ch == nil {
		return nil, fmt.Errorf("%s was not asked", m.name)
	}
	defer func() {
		m.mu.Lock()
		delete(m.merges, id)
		delete(m.passed, id)
		m.mu.Unlock()
	}()
	return m.await(ctx, sid, ch)
}

// Close ends the server: after the editor's exit it waits up to grace for
// the process to end by itself, otherwise (or after that) it kills it.
// An attached Agent is detached.
func (m *Mux) Close(grace time.Duration) {
	m.mu.Lock()
	exited := m.exitSent
	a := m.agent
	m.mu.Unlock()
	if a != nil {
		_ = a.Close()
	}
	if exited {
		select {
		case <-m.proc.Exited():
		case <-time.After(grace):
		}
	}
	m.proc.Kill()
	select {
	case <-m.proc.Exited():
	case <-time.After(2 * time.Second):
	}
	_ = m.server.Close()
	<-m.done
}

// passCall sends one of the editor's requests to the server under an id
// of the Mux's; with merge, the answer is kept for ServerPart instead of
// going to the editor.
func (m *Mux) passCall(c *jsonrpc2.Call, merge bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := c.ID()
	if m.endedLocked() {
		if merge {
			ch := make(chan *jsonrpc2.Response, 1)
			resp, _ := jsonrpc2.NewResponse(id, nil, m.gone(m.err))
			ch <- resp
			m.merges[id] = ch
			return
		}
		m.answerEditorLocked(id, nil, m.gone(m.err))
		return
	}
	sid := m.nextIDLocked()
	if merge {
		ch := make(chan *jsonrpc2.Response, 1)
		m.merges[id] = ch
		m.pending[sid] = route{wait: ch}
	} else {
		m.pending[sid] = route{toEditor: true, editor: id}
	}
	m.passed[id] = sid
	if err := m.writeServerLocked(call(sid, c.Method(), c.Params())); err != nil {
		delete(m.pending, sid)
		m.answerEditorLocked(id, nil, m.gone(err))
	}
}

// passRaw sends one of the editor's requests, as Scan read it, to the
// server under an id of the Mux's, as passCall does, its params as they
// came.
func (m *Mux) passRaw(r framing.Raw) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := r.ID
	if m.endedLocked() {
		m.answerEditorLocked(id, nil, m.gone(m.err))
		return
	}
	sid := m.nextIDLocked()
	m.pending[sid] = route{toEditor: true, editor: id}
	m.passed[id] = sid
	if err := m.server.WriteRaw(r, sid); err != nil {
		delete(m.pending, sid)
		delete(m.passed, id)
		m.answerEditorLocked(id, nil, m.gone(err))
	}
}

// cancelFromEditor maps the editor's $/cancelRequest of a request it
// passed to the server; false when the id is not one (agentls's own).
// merged: the request is partly agentls's, whose handler must hear of the
// cancellation too.
func (m *Mux) cancelFromEditor(params json.RawMessage) (handled, merged bool) {
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	sid, ok := m.passed[p.ID]
	if !ok {
		return false, false
	}
	_ = m.writeServerLocked(cancelNotification(sid))
	return true, m.merges[p.ID] != nil
}

// answerFromEditor sends the editor's answer to one of the server's
// requests back under the server's id; false when it answers none.
func (m *Mux) answerFromEditor(r *jsonrpc2.Response) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	sid, ok := m.toServer[r.ID()]
	if !ok {
		return false
	}
	delete(m.toServer, r.ID())
	_ = m.server.WriteResponse(context.Background(), sid, r.Result(), r.Err())
	return true
}

// answerRawFromEditor is answerFromEditor for an answer Scan read: its
// result goes on as it came.
func (m *Mux) answerRawFromEditor(r framing.Raw) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	sid, ok := m.toServer[r.ID]
	if !ok {
		return false
	}
	delete(m.toServer, r.ID)
	_ = m.server.WriteRaw(r, sid)
	return true
}

// read routes the server's messages until its connection ends. The
// answers to the editor's requests and the notifications are passed on
// undecoded (passOn); the rest is decoded.
func (m *Mux) read() {
	ctx := context.Background()
	// While more of the server's messages are read already, what goes to
	// the editor is held and then sent in one write.
	held := false
	for {
		if held && !m.server.Ahead() {
			m.editor.release()
			held = false
		}
		body, _, err := m.server.ReadBody(ctx)
		if err != nil {
			if held {
				m.editor.release()
			}
			m.end(err)
			return
		}
		if !held && m.server.Ahead() {
			m.editor.hold()
			held = true
		}
		if r, ok := framing.Scan(body); ok && m.passOn(r) {
			continue
		}
		msg, err := m.server.Decode(body)
		if err != nil {
			continue
		}
		switch msg := msg.(type) {
		case *jsonrpc2.Response:
			m.fromServerResponse(msg)
		case *jsonrpc2.Call:
			m.fromServerCall(msg)
		case *jsonrpc2.Notification:
			m.fromServerNotification(msg)
		}
	}
}

// passOn routes a message of the server's that Scan read, as
// fromServerResponse and fromServerNotification route the decoded one:
// an answer to the editor goes to it under the editor's id, a
// notification goes to it unchanged (with a copy for the Agent). False
// leaves the message to the full decode: answers to agentls's own
// requests and the server's requests.
func (m *Mux) passOn(r framing.Raw) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch r.Kind {
	case framing.RawResponse:
		rt, ok := m.pending[r.ID]
		if !ok {
			return true // cancelled by its sender
		}
		if !rt.toEditor {
			return false
		}
		delete(m.pending, r.ID)
		delete(m.passed, rt.editor)
		if err := m.editor.writeRaw(r, rt.editor); err != nil {
			m.log.Debug("answer the editor", "error", err)
		}
		return true
	case framing.RawNotification:
		if r.Method == "textDocument/publishDiagnostics" {
			if uri := docURIOf(r.Params, "uri"); uri != "" {
				m.diags[uri] = r.Params
			}
		}
		_ = m.editor.writeRaw(r, jsonrpc2.ID{})
		if m.agent != nil {
			m.agent.deliver(notification(r.Method, r.Params))
		}
		return true
	}
	return false
}

func (m *Mux) fromServerResponse(r *jsonrpc2.Response) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rt, ok := m.pending[r.ID()]
	if !ok {
		return // cancelled by its sender
	}
	delete(m.pending, r.ID())
	switch {
	case rt.toEditor:
		delete(m.passed, rt.editor)
		m.answerEditorLocked(rt.editor, r.Result(), r.Err())
	case rt.wait != nil:
		rt.wait <- r
	case rt.agent != nil:
		rt.agent.answered(rt.agentID, r)
	}
}

// fromServerCall hands a request of the server's to the editor, which
// answers it, and a copy to the Agent, whose answer goes nowhere.
func (m *Mux) fromServerCall(c *jsonrpc2.Call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextEd++
	eid := jsonrpc2.NewNumberID(editorIDBase + m.nextEd)
	m.toServer[eid] = c.ID()
	if err := m.editor.write(call(eid, c.Method(), c.Params())); err != nil {
		delete(m.toServer, eid)
		_ = m.writeServerLocked(response(c.ID(), nil, &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: "the editor is gone"}))
	}
	switch c.Method() {
	case "client/registerCapability", "client/unregisterCapability":
		if len(m.regs) < 1000 {
			m.regs = append(m.regs, c)
		}
	}
	if m.agent != nil {
		m.agent.deliver(m.copyLocked(c))
	}
}

// copyLocked is a copy of the server's request for the Agent, under an id
// of its own.
func (m *Mux) copyLocked(c *jsonrpc2.Call) *jsonrpc2.Call {
	m.copies++
	return call(jsonrpc2.NewStringID(fmt.Sprintf("agentls-copy-%d", m.copies)), c.Method(), c.Params())
}

func (m *Mux) fromServerNotification(n *jsonrpc2.Notification) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n.Method() == "textDocument/publishDiagnostics" {
		if uri := docURIOf(n.Params(), "uri"); uri != "" {
			m.diags[uri] = n.Params()
		}
	}
	_ = m.editor.write(n)
	if m.agent != nil {
		m.agent.deliver(n)
	}
}

// end fails what waits on the server, once its connection is gone.
func (m *Mux) end(err error) {
	if errors.Is(err, io.EOF) {
		err = nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	gone := m.gone(err)
	for sid, rt := range m.pending {
		delete(m.pending, sid)
		switch {
		case rt.toEditor:
			m.answerEditorLocked(rt.editor, nil, gone)
		case rt.wait != nil:
			resp, _ := jsonrpc2.NewResponse(sid, nil, gone)
			rt.wait <- resp
		case rt.agent != nil:
			resp, _ := jsonrpc2.NewResponse(rt.agentID, nil, gone)
			rt.agent.answered(rt.agentID, resp)
		}
	}
	if m.agent != nil {
		m.agent.closeLocked()
		m.agent = nil
	}
	m.err = err
	close(m.done)
}

// endedLocked reports whether the server's connection is gone (end ran):
// nothing sent now would be answered. m.mu is held.
func (m *Mux) endedLocked() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// gone is the error the editor's and agentls's requests get once the
// server's connection is gone.
func (m *Mux) gone(err error) *jsonrpc2.Error {
	why := m.proc.ExitStatus()
	if err != nil {
		why = err.Error()
	}
	return &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: fmt.Sprintf("%s is gone (%s)", m.name, why)}
}

func (m *Mux) answerEditorLocked(id jsonrpc2.ID, result json.RawMessage, err error) {
	if werr := m.editor.answer(id, result, err); werr != nil {
		m.log.Debug("answer the editor", "error", werr)
	}
}

func (m *Mux) nextIDLocked() jsonrpc2.ID {
	m.next++
	return jsonrpc2.NewNumberID(m.next)
}

func (m *Mux) writeServerLocked(msg jsonrpc2.Message) error {
	_, err := m.server.Write(context.Background(), msg)
	return err
}

// call, notification and response make messages; params and results
// already are JSON, so they cannot fail to marshal.
func call(id jsonrpc2.ID, method string, params json.RawMessage) *jsonrpc2.Call {
	c, _ := jsonrpc2.NewCall(id, method, rawOrNil(params))
	return c
}

func notification(method string, params json.RawMessage) *jsonrpc2.Notification {
	n, _ := jsonrpc2.NewNotification(method, rawOrNil(params))
	return n
}

func response(id jsonrpc2.ID, result json.RawMessage, err error) *jsonrpc2.Response {
	r, _ := jsonrpc2.NewResponse(id, rawOrNil(result), err)
	return r
}

// rawOrNil keeps absent params and results absent (null).
func rawOrNil(v json.RawMessage) any {
	if len(v) == 0 {
		return nil
	}
	return v
}

func cancelNotification(id jsonrpc2.ID) *jsonrpc2.Notification {
	return notification("$/cancelRequest", mustJSON(map[string]any{"id": &id}))
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// docURI is params.textDocument.uri, or "".
func docURI(params json.RawMessage) string {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	_ = json.Unmarshal(params, &p)
	return p.TextDocument.URI
}

// docURIOf is params[key] as a string, or "".
func docURIOf(params json.RawMessage, key string) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(p[key], &s)
	return s
}
