// Package fake is an in-process editor for integration tests: it connects
// to an agentls server over a pipe, initializes like a real client, edits
// documents, runs commands and records everything the server sends
// (agentls/event, $/progress, logMessage, showMessage, asks).
package fake

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/langserver/overlay"
)

// Options configure the fake editor.
type Options struct {
	// Roots are the workspace folders.
	Roots []string
	// Capabilities is the client capabilities object; nil means a client
	// like VS Code's (work-done progress, showMessage, documentChanges).
	Capabilities any
	// Settings, when set, answers workspace/configuration for the
	// "agentls" section (read at each call).
	Settings func() any
	// ClientName is clientInfo.name; empty means "fake".
	ClientName string
	// InitOptions is sent as initializationOptions.
	InitOptions any
	// Server configures the server under test (its composition root).
	Server app.Options
	// Answer picks the action for a showMessageRequest; it returns the
	// title, or "" to dismiss (null). Nil answers "Allow".
	Answer func(message string, actions []string) string
	// RefuseEdits, when set, answers every workspace/applyEdit with
	// applied:false and this reason.
	RefuseEdits string
	// NoShowMessageRequest makes the editor answer showMessageRequest with
	// MethodNotFound, like Helix.
	NoShowMessageRequest bool
	// Plugin makes the editor behave like one with the agentls plugin: it
	// declares experimental.agentls.saveDocument and .question, saves on
	// request and answers agentls/question with AnswerQuestion.
	Plugin bool
	// AnswerQuestion answers an agentls/question: free text, or the
	// options chosen; nil (or both empty) means the person dismissed it.
	AnswerQuestion func(q Question) (text string, chosen []string)
	// Review, when set, declares experimental.agentls.review and answers
	// each agentls/review with its result (nil: deny).
	Review func(r Review) any
	// AsyncAnswer, when set, declares experimental.agentls.asyncAsk: each
	// agentls/ask is answered with agentls.approve and the answer it
	// returns ("" never answers).
	AsyncAnswer func(a AsyncAsk) string
	// AsyncQuestion, when set, declares experimental.agentls.asyncQuestion:
	// each agentls/askQuestion is answered with agentls.answer and what it
	// returns (both empty: dismissed).
	AsyncQuestion func(q AsyncQuestion) (text string, chosen []string)
	// BeforeApply runs when an applyEdit arrives, before it is applied
	// (e.g. to type into the buffer first, as a person might).
	BeforeApply func(e *Editor)
	// AnswerApplyEdit, when set, answers every workspace/applyEdit
	// instead of the editor applying it: its result, or its error as a
	// JSON-RPC error. It may block (an editor that never answers: return
	// when ctx ends) or close the connection (an editor that crashed).
	AnswerApplyEdit func(ctx context.Context, e *Editor, params json.RawMessage) (any, error)
	// EditTimeout is the server's lsp.Options.EditTimeout.
	EditTimeout time.Duration
	// ChangeDelay, when set, sends the didChange of an applied edit this
	// long after answering the applyEdit, as Neovim does (it debounces
	// didChange, 150 ms by default).
	ChangeDelay time.Duration
}

// DefaultCapabilities is what a capable client declares.
var DefaultCapabilities = map[string]any{
	"window": map[string]any{
		"workDoneProgress": true,
		"showMessage":      map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": true}},
		"showDocument":     map[string]any{"support": true},
	},
	"workspace": map[string]any{
		"workspaceEdit":    map[string]any{"documentChanges": true},
		"workspaceFolders": true,
		"configuration":    true,
	},
}

// Progress is one $/progress notification.
type Progress struct {
	Token string          `json:"token"`
	Value json.RawMessage `json:"value"`
}

// Kind is the progress value's kind: begin, report or end.
func (p Progress) Kind() string {
	var v struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(p.Value, &v)
	return v.Kind
}

// Message is a window/showMessage or logMessage.
type Message struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// Review is one agentls/review the server sent.
type Review struct {
	ID       string `json:"id"`
	Message  string `json:"message"`
	Path     string `json:"path"`
	URI      string `json:"uri"`
	Exists   bool   `json:"exists"`
	Original string `json:"original"`
	Proposed string `json:"proposed"`
	Diff     string `json:"diff"`
	Hunks    []struct {
		ID       int    `json:"id"`
		OldStart int    `json:"oldStart"`
		OldLines int    `json:"oldLines"`
		NewStart int    `json:"newStart"`
		NewLines int    `json:"newLines"`
		Diff     string `json:"diff"`
	} `json:"hunks"`
	Choices []struct {
		Answer string `json:"answer"`
		Title  string `json:"title"`
	} `json:"choices"`
}

// AsyncAsk is one agentls/ask the server sent.
type AsyncAsk struct {
	ID         string `json:"id"`
	Message    string `json:"message"`
	Tool       string `json:"tool"`
	Capability string `json:"capability"`
	Diff       string `json:"diff"`
	Choices    []struct {
		Answer string `json:"answer"`
		Title  string `json:"title"`
	} `json:"choices"`
}

// AskDone is one agentls/askDone the server sent.
type AskDone struct {
	ID     string `json:"id"`
	Answer string `json:"answer"`
	Reason string `json:"reason"`
}

// AsyncQuestion is one agentls/askQuestion the server sent.
type AsyncQuestion struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Multi    bool     `json:"multi"`
}

// Question is one agentls/question the server sent.
type Question struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Multi    bool     `json:"multi"`
}

// Ask is one showMessageRequest the server sent, and the answer given.
type Ask struct {
	Message string
	Actions []string
	Answer  string
}

// Editor is the fake client.
type Editor struct {
	opts   Options
	conn   jsonrpc2.Conn
	server chan int

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every recorded message
	events    []agent.Event
	progress  []Progress
	logs      []Message
	shows     []Message
	asks      []Ask
	questions []Question
	reviews   []Review
	asyncAsks []AsyncAsk
	// asyncQuestions are the agentls/askQuestion notifications received.
	asyncQuestions []AsyncQuestion
	askDones       []AskDone
	created        []string
	versions       map[string]int32
	applied        []json.RawMessage
	saves          []string
	cancels        []json.RawMessage
	buffers        *overlay.Store // the editor's own copy of open documents
}

// Connect starts a server on an in-memory pipe and connects to it. Call
// Initialize next.
func Connect(ctx context.Context, opts Options) *Editor {
	if opts.Capabilities == nil {
		opts.Capabilities = DefaultCapabilities
	}
	if opts.Plugin || opts.Review != nil || opts.AsyncAnswer != nil || opts.AsyncQuestion != nil {
		caps := map[string]any{}
		for k, v := range opts.Capabilities.(map[string]any) {
			caps[k] = v
		}
		caps["experimental"] = map[string]any{"agentls": map[string]any{"saveDocument": opts.Plugin, "question": opts.Plugin,
			"review": opts.Review != nil, "asyncAsk": opts.AsyncAnswer != nil,
			"asyncQuestion": opts.AsyncQuestion != nil}}
		opts.Capabilities = caps
	}
	clientSide, serverSide := net.Pipe()
	e := &Editor{opts: opts, server: make(chan int, 1), changed: make(chan struct{}), versions: map[string]int32{}, buffers: overlay.NewStore()}
	go func() {
		e.server <- lsp.Serve(ctx, serverSide, lsp.Options{App: app.New(opts.Server), EditTimeout: opts.EditTimeout})
	}()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(clientSide))
	e.conn.Go(ctx, e.handle)
	return e
}

// ExitCode waits for the server to stop and returns its exit code.
func (e *Editor) ExitCode(ctx context.Context) (int, error) {
	select {
	case c := <-e.server:
		return c, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("server did not stop: %w", ctx.Err())
	}
}

// Close drops the connection, like an editor that crashed.
func (e *Editor) Close() error { return e.conn.Close() }

// Conn is the raw connection, for tests that send odd requests.
func (e *Editor) Conn() jsonrpc2.Conn { return e.conn }

// handle never returns an error: jsonrpc2 would end the connection (and
// panics when it fails twice with different error types).
func (e *Editor) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	_ = e.dispatch(ctx, reply, req)
	return nil
}

func (e *Editor) dispatch(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case "agentls/event":
		var ev agent.Event
		_ = json.Unmarshal(req.Params(), &ev)
		e.record(func() { e.events = append(e.events, ev) })
	case "$/progress":
		var p Progress
		_ = json.Unmarshal(req.Params(), &p)
		e.record(func() { e.progress = append(e.progress, p) })
	case "window/logMessage":
		var m Message
		_ = json.Unmarshal(req.Params(), &m)
		e.record(func() { e.logs = append(e.logs, m) })
	case "window/showMessage":
		var m Message
		_ = json.Unmarshal(req.Params(), &m)
		e.record(func() { e.shows = append(e.shows, m) })
	case "window/workDoneProgress/create":
		var p struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		e.record(func() { e.created = append(e.created, p.Token) })
		return reply(ctx, nil, nil)
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		e.record(func() { e.cancels = append(e.cancels, p.ID) })
	case "workspace/applyEdit":
		if e.opts.BeforeApply != nil {
			e.opts.BeforeApply(e)
		}
		e.record(func() { e.applied = append(e.applied, append(json.RawMessage(nil), req.Params()...)) })
		if e.opts.AnswerApplyEdit != nil {
			// Off the reading goroutine: an answer that never comes must
			// not stop the editor from reading what the server sends.
			go func() {
				res, err := e.opts.AnswerApplyEdit(ctx, e, req.Params())
				_ = reply(ctx, res, err)
			}()
			return nil
		}
		if e.opts.RefuseEdits != "" {
			return reply(ctx, map[string]any{"applied": false, "failureReason": e.opts.RefuseEdits}, nil)
		}
		applied, reason := e.applyEdit(ctx, req.Params())
		return reply(ctx, map[string]any{"applied": applied, "failureReason": reason}, nil)
	case "agentls/saveDocument":
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		e.record(func() { e.saves = append(e.saves, p.TextDocument.URI) })
		path, err := overlay.URIToPath(p.TextDocument.URI)
		text, _, ok := e.buffers.Get(path)
		if !e.opts.Plugin || err != nil || !ok {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: cannot save %s", p.TextDocument.URI))
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return reply(ctx, map[string]any{"saved": false}, nil)
		}
		return reply(ctx, map[string]any{"saved": true}, nil)
	case lsp.MethodReview:
		var r Review
		_ = json.Unmarshal(req.Params(), &r)
		e.record(func() { e.reviews = append(e.reviews, r) })
		if e.opts.Review == nil {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s not supported", req.Method()))
		}
		return reply(ctx, e.opts.Review(r), nil)
	case lsp.MethodAsk:
		var a AsyncAsk
		_ = json.Unmarshal(req.Params(), &a)
		e.record(func() { e.asyncAsks = append(e.asyncAsks, a) })
		if e.opts.AsyncAnswer != nil {
			// Out of band, as a plugin's prompt answers later.
			go func() {
				if ans := e.opts.AsyncAnswer(a); ans != "" {
					_, _ = e.ExecuteCommand(ctx, lsp.CommandApprove, lsp.ApproveArgs{ID: a.ID, Answer: ans})
				}
			}()
		}
	case lsp.MethodAskQuestion:
		var q AsyncQuestion
		_ = json.Unmarshal(req.Params(), &q)
		e.record(func() { e.asyncQuestions = append(e.asyncQuestions, q) })
		if e.opts.AsyncQuestion != nil {
			go func() {
				text, chosen := e.opts.AsyncQuestion(q)
				_, _ = e.ExecuteCommand(ctx, lsp.CommandAnswer, lsp.AnswerArgs{ID: q.ID, Answer: text, Chosen: chosen})
			}()
		}
	case lsp.MethodAskDone:
		var d AskDone
		_ = json.Unmarshal(req.Params(), &d)
		e.record(func() { e.askDones = append(e.askDones, d) })
	case lsp.MethodQuestion:
		var q Question
		_ = json.Unmarshal(req.Params(), &q)
		e.record(func() { e.questions = append(e.questions, q) })
		if !e.opts.Plugin {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s not supported", req.Method()))
		}
		var text string
		var chosen []string
		if e.opts.AnswerQuestion != nil {
			text, chosen = e.opts.AnswerQuestion(q)
		}
		if text == "" && len(chosen) == 0 {
			return reply(ctx, map[string]any{"answer": nil}, nil)
		}
		return reply(ctx, map[string]any{"answer": text, "chosen": chosen}, nil)
	case "workspace/configuration":
		if e.opts.Settings == nil {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: no settings"))
		}
		return reply(ctx, []any{e.opts.Settings()}, nil)
	case "window/showDocument":
		return reply(ctx, map[string]any{"success": true}, nil)
	case "window/showMessageRequest":
		if e.opts.NoShowMessageRequest {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: no showMessageRequest"))
		}
		var p struct {
			Message string `json:"message"`
			Actions []struct {
				Title string `json:"title"`
			} `json:"actions"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, a.Title)
		}
		answer := "Allow"
		if e.opts.Answer != nil {
			answer = e.opts.Answer(p.Message, titles)
		}
		e.record(func() { e.asks = append(e.asks, Ask{Message: p.Message, Actions: titles, Answer: answer}) })
		if answer == "" {
			return reply(ctx, nil, nil)
		}
		return reply(ctx, map[string]string{"title": answer}, nil)
	default:
		if _, ok := req.(*jsonrpc2.Call); ok {
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor: %s not supported", req.Method()))
		}
	}
	return nil
}

func (e *Editor) record(f func()) {
	e.mu.Lock()
	f()
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// Initialize sends initialize and initialized.
func (e *Editor) Initialize(ctx context.Context) (json.RawMessage, error) {
	var folders []map[string]string
	for _, r := range e.opts.Roots {
		folders = append(folders, map[string]string{"uri": overlay.PathToURI(r), "name": filepath.Base(r)})
	}
	params := map[string]any{
		"processId":        nil,
		"clientInfo":       map[string]string{"name": cmp.Or(e.opts.ClientName, "fake"), "version": "1"},
		"capabilities":     e.opts.Capabilities,
		"workspaceFolders": folders,
	}
	if len(e.opts.Roots) > 0 {
		params["rootUri"] = overlay.PathToURI(e.opts.Roots[0])
	}
	if e.opts.InitOptions != nil {
		params["initializationOptions"] = e.opts.InitOptions
	}
	var res json.RawMessage
	if _, err := e.conn.Call(ctx, "initialize", params, &res); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := e.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return nil, err
	}
	return res, nil
}

// Shutdown sends shutdown then exit.
func (e *Editor) Shutdown(ctx context.Context) error {
	if _, err := e.conn.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return e.conn.Notify(ctx, "exit", nil)
}

// Open sends didOpen for an absolute path.
func (e *Editor) Open(ctx context.Context, path, text string) error {
	e.mu.Lock()
	e.versions[path] = 1
	e.mu.Unlock()
	if err := e.buffers.Open(overlay.PathToURI(path), "go", 1, text); err != nil {
		return err
	}
	return e.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": overlay.PathToURI(path), "languageId": "go", "version": 1, "text": text},
	})
}

// Edit is one incremental change: zero-based lines, UTF-16 columns.
type Edit struct {
	StartLine, StartChar, EndLine, EndChar int
	Text                                   string
}

// Change sends didChange with incremental edits and a bumped version.
func (e *Editor) Change(ctx context.Context, path string, edits ...Edit) error {
	e.mu.Lock()
	e.versions[path]++
	v := e.versions[path]
	e.mu.Unlock()
	var changes []map[string]any
	var local []overlay.Change
	for _, ed := range edits {
		local = append(local, overlay.Change{Range: &overlay.Range{
			Start: overlay.Position{Line: uint32(ed.StartLine), Character: uint32(ed.StartChar)},
			End:   overlay.Position{Line: uint32(ed.EndLine), Character: uint32(ed.EndChar)},
		}, Text: ed.Text})
		changes = append(changes, map[string]any{
			"range": map[string]any{
				"start": map[string]int{"line": ed.StartLine, "character": ed.StartChar},
				"end":   map[string]int{"line": ed.EndLine, "character": ed.EndChar},
			},
			"text": ed.Text,
		})
	}
	if _, err := e.buffers.Change(overlay.PathToURI(path), v, local); err != nil {
		return err
	}
	return e.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": overlay.PathToURI(path), "version": v},
		"contentChanges": changes,
	})
}

// Buffer returns the editor's text of an open document.
func (e *Editor) Buffer(path string) (string, bool) {
	text, _, ok := e.buffers.Get(path)
	return text, ok
}

// Saves returns the URIs the server asked the editor to save.
func (e *Editor) Saves() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.saves...)
}

// Cancels returns the ids of the $/cancelRequest notifications the server
// sent (requests it no longer waits for).
func (e *Editor) Cancels() []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]json.RawMessage(nil), e.cancels...)
}

// Applied returns the params of every workspace/applyEdit received.
func (e *Editor) Applied() []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]json.RawMessage(nil), e.applied...)
}

type applyParams struct {
	Label string `json:"label"`
	Edit  struct {
		DocumentChanges []struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
			} `json:"textDocument"`
			Edits []textEditJSON `json:"edits"`
		} `json:"documentChanges"`
		Changes map[string][]textEditJSON `json:"changes"`
	} `json:"edit"`
}

type textEditJSON struct {
	Range struct {
		Start struct{ Line, Character uint32 } `json:"start"`
		End   struct{ Line, Character uint32 } `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

// applyEdit applies a WorkspaceEdit to the editor's buffers like VS Code:
// a versioned change to a buffer that has moved on is refused, and an
// applied change is announced with didChange (full text, next version).
func (e *Editor) applyEdit(ctx context.Context, raw json.RawMessage) (bool, string) {
	var p applyParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return false, "bad params: " + err.Error()
	}
	type docEdit struct {
		uri     string
		version *int32
		edits   []textEditJSON
	}
	var all []docEdit
	for _, dc := range p.Edit.DocumentChanges {
		v := dc.TextDocument.Version
		all = append(all, docEdit{dc.TextDocument.URI, &v, dc.Edits})
	}
	for uri, edits := range p.Edit.Changes {
		all = append(all, docEdit{uri: uri, edits: edits})
	}
	for _, d := range all {
		path, err := overlay.URIToPath(d.uri)
		if err != nil {
			return false, err.Error()
		}
		e.mu.Lock()
		cur, open := e.versions[path]
		e.mu.Unlock()
		if !open {
			return false, "fake editor: " + path + " is not open"
		}
		if d.version != nil && *d.version != cur {
			return false, fmt.Sprintf("document version %d does not match the buffer's %d", *d.version, cur)
		}
		var changes []overlay.Change
		for i := len(d.edits) - 1; i >= 0; i-- { // non-overlapping: apply from the end
			te := d.edits[i]
			changes = append(changes, overlay.Change{Range: &overlay.Range{
				Start: overlay.Position{Line: te.Range.Start.Line, Character: te.Range.Start.Character},
				End:   overlay.Position{Line: te.Range.End.Line, Character: te.Range.End.Character},
			}, Text: te.NewText})
		}
		e.mu.Lock()
		e.versions[path]++
		v := e.versions[path]
		e.mu.Unlock()
		if _, err := e.buffers.Change(d.uri, v, changes); err != nil {
			return false, err.Error()
		}
		text, _, _ := e.buffers.Get(path)
		params := map[string]any{
			"textDocument":   map[string]any{"uri": d.uri, "version": v},
			"contentChanges": []any{map[string]any{"text": text}},
		}
		if e.opts.ChangeDelay > 0 {
			go func() {
				time.Sleep(e.opts.ChangeDelay)
				_ = e.conn.Notify(ctx, "textDocument/didChange", params)
			}()
			continue
		}
		if err := e.conn.Notify(ctx, "textDocument/didChange", params); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}

// ExecuteCommand runs a workspace command with one argument object.
func (e *Editor) ExecuteCommand(ctx context.Context, command string, arg any) (json.RawMessage, error) {
	params := map[string]any{"command": command}
	if arg != nil {
		params["arguments"] = []any{arg}
	}
	var res json.RawMessage
	_, err := e.conn.Call(ctx, "workspace/executeCommand", params, &res)
	return res, err
}

// Inline is a textDocument/inlineCompletion answer as the editor reads
// it: Null when the server answered null (keep what is shown), else the
// items' text and ranges.
type Inline struct {
	Null  bool
	Items []InlineItem
}

// InlineItem is one inline completion item.
type InlineItem struct {
	InsertText string `json:"insertText"`
	Range      *struct {
		Start, End struct{ Line, Character int }
	} `json:"range"`
}

// Inline triggers.
const (
	InlineInvoked   = 1
	InlineAutomatic = 2
)

// InlineCompletion asks for inline completion at a zero-based line and
// UTF-16 column of an open document, as an editor does while the person
// types. When ctx ends first it sends $/cancelRequest for the request at
// once, as VS Code and Neovim do, and returns ctx's error.
func (e *Editor) InlineCompletion(ctx context.Context, path string, line, char, trigger int) (Inline, error) {
	params := map[string]any{
		"textDocument": map[string]any{"uri": overlay.PathToURI(path)},
		"position":     map[string]int{"line": line, "character": char},
		"context":      map[string]any{"triggerKind": trigger},
	}
	var res json.RawMessage
	id, err := e.conn.Call(ctx, "textDocument/inlineCompletion", params, &res)
	if ctx.Err() != nil {
		if nerr := e.conn.Notify(context.WithoutCancel(ctx), "$/cancelRequest", map[string]any{"id": &id}); nerr != nil {
			return Inline{}, nerr
		}
		return Inline{}, ctx.Err()
	}
	if err != nil {
		return Inline{}, err
	}
	if len(res) == 0 || string(res) == "null" {
		return Inline{Null: true}, nil
	}
	var list struct {
		Items []InlineItem `json:"items"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return Inline{}, fmt.Errorf("decode inline completion %s: %w", res, err)
	}
	return Inline{Items: list.Items}, nil
}

// Ask runs agentls.ask and returns its result.
func (e *Editor) Ask(ctx context.Context, args lsp.AskArgs) (lsp.AskResult, error) {
	raw, err := e.ExecuteCommand(ctx, lsp.CommandAsk, args)
	if err != nil {
		return lsp.AskResult{}, err
	}
	var r lsp.AskResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("decode ask result %s: %w", raw, err)
	}
	return r, nil
}

// WaitFor blocks until cond holds, or ctx ends. cond is re-evaluated
// after every recorded message; it may call the Editor's getters.
func (e *Editor) WaitFor(ctx context.Context, what string, cond func(*Editor) bool) error {
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond(e) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// WaitTurnEnd waits for the turn's turn_end event and the final
// showMessage, and returns the turn's events.
func (e *Editor) WaitTurnEnd(ctx context.Context, turnID string) ([]agent.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var evs []agent.Event
	err := e.WaitFor(ctx, "turn end of "+turnID, func(e *Editor) bool {
		evs = evs[:0]
		ended, ends := false, 0
		for _, ev := range e.Events() {
			if ev.Type == agent.EventTurnEnd {
				ends++
			}
			if ev.TurnID == turnID {
				evs = append(evs, ev)
				ended = ended || ev.Type == agent.EventTurnEnd
			}
		}
		// Every turn ends with exactly one showMessage after its turn_end.
		return ended && len(e.Shows()) >= ends
	})
	return evs, err
}

// Events returns the agentls/event notifications so far.
func (e *Editor) Events() []agent.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]agent.Event(nil), e.events...)
}

// Progress returns the $/progress notifications so far.
func (e *Editor) Progress() []Progress {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Progress(nil), e.progress...)
}

// Created returns the progress tokens the server asked to create.
func (e *Editor) Created() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.created...)
}

// Logs returns the window/logMessage notifications so far.
func (e *Editor) Logs() []Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Message(nil), e.logs...)
}

// Shows returns the window/showMessage notifications so far.
func (e *Editor) Shows() []Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Message(nil), e.shows...)
}

// Reviews returns every agentls/review the server sent.
func (e *Editor) Reviews() []Review {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Review(nil), e.reviews...)
}

// AsyncAsks returns every agentls/ask the server sent.
func (e *Editor) AsyncAsks() []AsyncAsk {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]AsyncAsk(nil), e.asyncAsks...)
}

// AskDones returns every agentls/askDone the server sent.
func (e *Editor) AskDones() []AskDone {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]AskDone(nil), e.askDones...)
}

// AsyncQuestions returns every agentls/askQuestion the server sent.
func (e *Editor) AsyncQuestions() []AsyncQuestion {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]AsyncQuestion(nil), e.asyncQuestions...)
}

// Questions returns every agentls/question the server sent.
func (e *Editor) Questions() []Question {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Question(nil), e.questions...)
}

// Asks returns the showMessageRequests so far.
func (e *Editor) Asks() []Ask {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Ask(nil), e.asks...)
}
