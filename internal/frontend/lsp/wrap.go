package lsp

// agentls serve --wrap CMD…: agentls starts the real server and is the
// editor's one server. Who answers what (wrapRoute): agentls its own
// commands, initialize and shutdown (both also sent to the server), its
// code actions (merged with the server's) and inline completion when it
// offers it (inline.go); the server everything
// else, unchanged, through internal/langserver/wrap. The editor's
// notifications reach both. The lsp_* tools use the same process
// (client.Servers.Share).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/wrap"
)

// wrapStartTimeout bounds the wrapped server's start and initialize.
const wrapStartTimeout = 60 * time.Second

// wrapShutdownTimeout bounds the wrapped server's answer to shutdown.
const wrapShutdownTimeout = 5 * time.Second

// wrapRoute says who answers an editor request while a server is wrapped.
func (s *Server) wrapRoute(method string, params json.RawMessage) wrap.Route {
	switch method {
	case "initialize", "shutdown":
		return wrap.ToAgentls
	case "workspace/executeCommand":
		var p struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(params, &p) == nil && slices.Contains(commands(), p.Command) {
			return wrap.ToAgentls
		}
		return wrap.ToServer
	case "textDocument/codeAction":
		return wrap.ToBoth
	case "textDocument/inlineCompletion":
		// agentls's when it offers them (completion.model); the wrapped
		// server's otherwise.
		if s.inline.isDeclared() {
			return wrap.ToAgentls
		}
		return wrap.ToServer
	case "codeAction/resolve":
		if ourAction(params) {
			return wrap.ToAgentls
		}
		return wrap.ToServer
	}
	if strings.HasPrefix(method, "agentls/") {
		return wrap.ToAgentls
	}
	return wrap.ToServer
}

// ourAction reports whether a code action is one of agentls's (its
// command is an agentls.* command).
func ourAction(params json.RawMessage) bool {
	var a struct {
		Command *struct {
			Command string `json:"command"`
		} `json:"command"`
	}
	return json.Unmarshal(params, &a) == nil && a.Command != nil && slices.Contains(commands(), a.Command.Command)
}

// wrapped is the wrapped server's Mux while it serves, or nil.
func (s *Server) wrapped() *wrap.Mux {
	if s.wrapIn == nil {
		return nil
	}
	return s.wrapIn.Mux()
}

// startWrapped starts the wrapped server in the first workspace folder,
// under the language servers' trust rules and sandbox, initializes it
// with the editor's params and returns its result. On failure agentls
// serves alone and says why after initialized.
func (s *Server) startWrapped(ctx context.Context, params json.RawMessage, roots []string) (json.RawMessage, *wrap.Mux) {
	folder := ""
	if len(roots) > 0 {
		folder = roots[0]
	} else if wd, err := os.Getwd(); err == nil {
		folder = wd
	}
	fail := func(err error) (json.RawMessage, *wrap.Mux) {
		msg := fmt.Sprintf("agentls: %s was not started, so agentls serves alone: %v", strings.Join(s.opts.Wrap, " "), err)
		s.log.Warn("wrapped server not started", "error", err)
		s.mu.Lock()
		s.wrapProblem = msg
		s.mu.Unlock()
		return nil, nil
	}
	sp, err := s.lsp.StartShared(ctx, s.opts.Wrap, folder)
	if err != nil {
		return fail(err)
	}
	name := sp.Name
	if name == "" {
		name = s.opts.Wrap[0]
	}
	m := wrap.Start(wrap.Options{Name: name, Proc: sp.Proc, Editor: s.wrapIn, Docs: s.docs, Log: s.log})
	adjusted, err := wrap.InitializeParams(params, sp.Confined)
	if err != nil {
		m.Close(0)
		return fail(err)
	}
	ictx, cancel := context.WithTimeout(ctx, wrapStartTimeout)
	defer cancel()
	res, err := m.Initialize(ictx, adjusted)
	if err != nil {
		m.Close(0)
		return fail(fmt.Errorf("initialize: %w (%s)", err, sp.Proc.ExitStatus()))
	}
	s.wrapIn.Use(m)
	if sp.Name != "" {
		s.lsp.Share(m.Shared(sp.Name))
	}
	go s.watchWrapped(m)
	s.log.Info("wrapping a language server", "argv", s.opts.Wrap, "form", sp.Form, "shared_with_tools", sp.Name != "")
	return res, m
}

// watchWrapped ends the connection when the wrapped server ends before
// the editor shut it down: the editor then reports the server's exit and
// can start both again.
func (s *Server) watchWrapped(m *wrap.Mux) {
	select {
	case <-m.Done():
	case <-s.base.Done():
		return
	}
	s.mu.Lock()
	down := s.state == stateShutdown
	s.mu.Unlock()
	if down {
		return
	}
	why := m.Proc().ExitStatus()
	s.log.Error("the wrapped language server ended", "server", m.Name(), "status", why)
	s.showMessage(s.base, 1, fmt.Sprintf("agentls: %s ended (%s); agentls stops too, so the editor can start both again", m.Name(), why))
	select {
	case s.wrapLost <- struct{}{}:
	default:
	}
}

// wrappedInitializeResult merges agentls's capabilities into the wrapped
// server's result.
func (s *Server) wrappedInitializeResult(res json.RawMessage, ours map[string]any) (any, error) {
	info := map[string]any{"name": s.opts.Name, "version": s.opts.Version}
	merged, err := wrap.MergeCapabilities(res, ours, info)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(merged), nil
}

// reportWrapProblem shows why the wrapped server did not start.
func (s *Server) reportWrapProblem() {
	s.mu.Lock()
	p := s.wrapProblem
	s.mu.Unlock()
	if p != "" {
		s.showMessage(s.base, 2, p)
	}
}

// wrappedShutdown sends the editor's shutdown to the wrapped server and
// waits, a bounded time, for its answer.
func (s *Server) wrappedShutdown(ctx context.Context) {
	m := s.wrapped()
	if m == nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, wrapShutdownTimeout)
	defer cancel()
	if _, err := m.Request(sctx, "shutdown", nil); err != nil {
		s.log.Warn("the wrapped server's shutdown", "error", err)
	}
}

// wrappedNotification sends one of the editor's notifications to the
// wrapped server too; it reports whether agentls is done with it. The
// document notifications update agentls's overlay and reach the server in
// one step (wrap.Mux.DocEvent); $/cancelRequest was mapped when read
// (wrap.Editor); a progress cancel goes to whichever side owns the token.
func (s *Server) wrappedNotification(ctx context.Context, m *wrap.Mux, method string, params json.RawMessage, initialized bool) bool {
	switch method {
	case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose":
		var err error
		m.DocEvent(method, params, func() {
			if !initialized {
				return
			}
			switch method {
			case "textDocument/didOpen":
				err = s.didOpen(params)
			case "textDocument/didChange":
				err = s.didChange(params)
			default:
				err = s.didClose(params)
			}
		})
		if err != nil {
			s.log.Warn("notification failed", "method", method, "error", err)
		}
		return true
	case "$/cancelRequest":
		return false
	case "window/workDoneProgress/cancel":
		var p struct {
			Token any `json:"token"`
		}
		_ = json.Unmarshal(params, &p)
		if t, ok := p.Token.(string); ok && strings.HasPrefix(t, "agentls/") {
			return false
		}
		m.Notify(method, params)
		return true
	}
	m.Notify(method, params)
	return false
}

// mergedCodeAction answers textDocument/codeAction with the server's
// actions and agentls's: the answers of a pending question first, then
// the server's, then agentls's others.
func (s *Server) mergedCodeAction(ctx context.Context, m *wrap.Mux, id jsonrpc2.ID, params json.RawMessage) (any, error) {
	head, rest, ourErr := s.codeActionParts(ctx, params)
	raw, err := m.ServerPart(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		s.log.Debug("the wrapped server's code actions", "error", err)
		if ourErr != nil {
			return nil, ourErr
		}
	}
	var theirs []json.RawMessage
	if len(raw) > 0 {
		if jerr := json.Unmarshal(raw, &theirs); jerr != nil {
			s.log.Warn("the wrapped server's code actions are not a list", "error", jerr)
		}
	}
	out := make([]any, 0, len(head)+len(theirs)+len(rest))
	for _, a := range head {
		out = append(out, a)
	}
	for _, a := range theirs {
		out = append(out, a)
	}
	for _, a := range rest {
		out = append(out, a)
	}
	return out, nil
}
