package client

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/overlay"
)

// handle answers the server's requests and records its notifications.
// It runs on the connection's read loop, so it never blocks, and it never
// returns an error: jsonrpc2's conn stores a handler error in an
// atomic.Value and panics when two errors of different types arrive.
func (s *session) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic handling a language server message", "method", req.Method(), "panic", r)
		}
	}()
	params := req.Params()
	answer := func(result any, err error) {
		if err := reply(ctx, result, err); err != nil {
			s.log.Debug("reply to language server", "method", req.Method(), "error", err)
		}
	}
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if json.Unmarshal(params, &p) == nil {
			s.storePublished(p)
		}
	case "$/progress":
		s.recordProgress(params)
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(params, &p)
		level := slog.LevelDebug
		if p.Type == 1 && req.Method() == "window/showMessage" {
			level = slog.LevelWarn
		}
		s.log.Log(ctx, level, "language server message", "method", req.Method(), "message", strings.TrimSpace(p.Message))
	case "telemetry/event", "$/logTrace", "$/cancelRequest":
	case "workspace/configuration":
		answer(s.configuration(params), nil)
	case "window/workDoneProgress/create":
		answer(nil, nil)
	case "client/registerCapability":
		s.register(params)
		answer(nil, nil)
	case "client/unregisterCapability":
		s.unregister(params)
		answer(nil, nil)
	case "workspace/applyEdit":
		answer(map[string]any{
			"applied":       false,
			"failureReason": "agentls does not apply edits on a language server's request; its agent applies edits through its own pipeline",
		}, nil)
	case "window/showMessageRequest":
		answer(nil, nil)
	case "window/showDocument":
		answer(map[string]any{"success": false}, nil)
	case "workspace/workspaceFolders":
		root := s.c.root
		answer([]map[string]string{{"uri": overlay.PathToURI(root), "name": root}}, nil)
	case "workspace/diagnostic/refresh":
		s.diagMu.Lock()
		clear(s.pulled)
		s.diagMu.Unlock()
		answer(nil, nil)
	case "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh", "workspace/codeLens/refresh",
		"workspace/inlineValue/refresh", "workspace/foldingRange/refresh":
		answer(nil, nil)
	default:
		if _, isCall := req.(*jsonrpc2.Call); isCall {
			answer(nil, &jsonrpc2.Error{Code: jsonrpc2.MethodNotFound, Message: fmt.Sprintf("agentls does not handle %s", req.Method())})
		}
	}
	return nil
}

// configuration answers workspace/configuration from the server's
// settings, by section path; null when there is nothing configured.
func (s *session) configuration(params json.RawMessage) []any {
	var p struct {
		Items []struct {
			Section string `json:"section"`
		} `json:"items"`
	}
	_ = json.Unmarshal(params, &p)
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		out[i] = lookupSection(s.settings, it.Section)
	}
	return out
}

// lookupSection finds a dotted section ("python.analysis") in settings,
// whether nested ({"python": {"analysis": …}}) or flat
// ({"python.analysis": …}).
func lookupSection(settings any, section string) any {
	if section == "" {
		return settings
	}
	m, ok := settings.(map[string]any)
	if !ok {
		return nil
	}
	if v, ok := m[section]; ok {
		return v
	}
	for i := len(section) - 1; i > 0; i-- {
		if section[i] != '.' {
			continue
		}
		if v, ok := m[section[:i]]; ok {
			if found := lookupSection(v, section[i+1:]); found != nil {
				return found
			}
		}
	}
	return nil
}

// recordProgress keeps the titles of work in flight, to explain a slow
// answer.
func (s *session) recordProgress(params json.RawMessage) {
	var p progressParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	key := tokenKey(p.Token)
	s.progMu.Lock()
	defer s.progMu.Unlock()
	switch p.Value.Kind {
	case "begin":
		if s.progIdle == nil {
			s.progIdle = make(chan struct{})
		}
		s.progress[key] = p.Value.Title
	case "report":
		if title, ok := s.progress[key]; ok {
			t, _, _ := strings.Cut(title, " (")
			if p.Value.Message != "" {
				t += " (" + p.Value.Message + ")"
			}
			s.progress[key] = t
		}
	case "end":
		if _, ok := s.progress[key]; ok {
			delete(s.progress, key)
			delete(s.outlasted, key)
			if len(s.progress) == 0 {
				close(s.progIdle)
				s.progIdle = nil
			}
		}
	}
}

// register records dynamic registrations; file watchers are compiled so
// DidWrite can tell which writes the server wants to hear about.
func (s *session) register(params json.RawMessage) {
	var p struct {
		Registrations []registration `json:"registrations"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.regMu.Lock()
	defer s.regMu.Unlock()
	for _, r := range p.Registrations {
		s.regs[r.ID] = r
	}
	s.rebuildWatchersLocked()
}

func (s *session) unregister(params json.RawMessage) {
	var p struct {
		// The field's misspelling is the protocol's.
		Unregisterations []registration `json:"unregisterations"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.regMu.Lock()
	defer s.regMu.Unlock()
	for _, r := range p.Unregisterations {
		delete(s.regs, r.ID)
	}
	s.rebuildWatchersLocked()
}

func (s *session) rebuildWatchersLocked() {
	s.watch = s.watch[:0]
	for _, r := range s.regs {
		if r.Method != "workspace/didChangeWatchedFiles" {
			continue
		}
		var opts struct {
			Watchers []fileSystemWatcher `json:"watchers"`
		}
		if json.Unmarshal(r.RegisterOptions, &opts) != nil {
			continue
		}
		for _, fw := range opts.Watchers {
			w, err := newWatcher(fw)
			if err != nil {
				s.log.Debug("ignored file watcher", "pattern", string(fw.GlobPattern), "error", err)
				continue
			}
			s.watch = append(s.watch, w)
		}
	}
}

// registered reports whether a method has been registered dynamically.
func (s *session) registered(method string) bool {
	s.regMu.Lock()
	defer s.regMu.Unlock()
	for _, r := range s.regs {
		if r.Method == method {
			return true
		}
	}
	return false
}

// storePublished records a publishDiagnostics and wakes those waiting.
func (s *session) storePublished(p publishDiagnosticsParams) {
	path, ok := fileOf(p.URI)
	if !ok {
		return
	}
	s.diagMu.Lock()
	s.pushed[path] = &published{version: p.Version, items: p.Diagnostics, at: time.Now()}
	close(s.diagWake)
	s.diagWake = make(chan struct{})
	s.diagMu.Unlock()
}
