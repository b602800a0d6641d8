package lsp

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/langserver/wrap"
)

// Commands the server executes.
const (
	CommandAsk        = "agentls.ask"
	CommandCancel     = "agentls.cancel"
	CommandRevertTurn = "agentls.revertTurn"
	CommandSessions   = "agentls.sessions"
	CommandCompact    = "agentls.compact"
	// CommandSandbox answers what the kernel enforces for the programs
	// agentls starts (sandbox.Status), for editors' status and health.
	CommandSandbox = "agentls.sandbox"
	// CommandModel answers which model the next prompt goes to, so an
	// editor can say "no model" before the first prompt fails, and the
	// models a picker offers.
	CommandModel = "agentls.model"
	// CommandSetModel switches the conversation to another model between
	// turns; the conversation goes on.
	CommandSetModel = "agentls.setModel"
	// CommandCheckpoints lists a session's checkpoints;
	// CommandRestoreCheckpoint restores to one (or undoes the last
	// restore), open buffers changing through workspace/applyEdit.
	CommandCheckpoints       = "agentls.checkpoints"
	CommandRestoreCheckpoint = "agentls.restoreCheckpoint"
)

// commands are the commands the server runs, as initialize announces them.
func commands() []string {
	return []string{CommandAsk, CommandCancel, CommandRevertTurn, CommandApprove, CommandSessions, CommandCompact, CommandSandbox, CommandModel, CommandSetModel, CommandAnswer, CommandHistory,
		CommandCheckpoints, CommandRestoreCheckpoint, CommandInlineAccepted}
}

func (s *Server) initialize(ctx context.Context, params json.RawMessage) (any, error) {
	var p initializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	var caps clientCaps
	if len(p.Capabilities) > 0 {
		if err := json.Unmarshal(p.Capabilities, &caps); err != nil {
			// A client with odd capability values still gets a server; it
			// just gets no optional features.
			s.log.Warn("client capabilities not understood; optional features off", "error", err)
			caps = clientCaps{}
		}
	}
	var editor config.Config
	initOptions := p.InitializationOptions
	if len(s.opts.Wrap) > 0 {
		// The rest is the wrapped server's.
		initOptions = wrap.AgentlsOptions(initOptions)
	}
	if len(initOptions) > 0 && string(initOptions) != "null" {
		if err := json.Unmarshal(initOptions, &editor); err != nil {
			s.log.Warn("initializationOptions not understood", "error", err)
		}
	}
	var roots []string
	for _, f := range p.WorkspaceFolders {
		if path, err := overlay.URIToPath(f.URI); err == nil {
			roots = append(roots, path)
		} else {
			s.log.Warn("workspace folder ignored", "error", err)
		}
	}
	if len(roots) == 0 && p.RootURI != "" {
		if path, err := overlay.URIToPath(p.RootURI); err == nil {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 && p.RootPath != "" {
		roots = append(roots, p.RootPath)
	}
	if err := s.ws.SetRoots(roots); err != nil {
		return nil, err
	}
	client, clientName := "", ""
	if p.ClientInfo != nil {
		client, clientName = p.ClientInfo.Name+" "+p.ClientInfo.Version, p.ClientInfo.Name
	}
	s.mu.Lock()
	s.state, s.caps, s.editor, s.clientName = stateInitialized, caps, editor, clientName
	s.env.SetEditor(editor)
	s.mu.Unlock()
	switch caps.Experimental.Agentls.WorkspaceTrust {
	case editorTrusted:
		s.env.SetEditorTrust(app.EditorTrusted)
	case editorRestricted:
		s.env.SetEditorTrust(app.EditorRestricted)
	}
	s.log.Info("initialized", "client", client, "roots", roots)
	ours := map[string]any{
		"textDocumentSync": map[string]any{
			"openClose": true,
			"change":    2, // incremental
			"save":      map[string]any{"includeText": false},
		},
		"executeCommandProvider": map[string]any{
			"commands": commands(),
		},
		"codeActionProvider":       map[string]any{"codeActionKinds": []string{"quickfix", "refactor"}},
		"inlineCompletionProvider": s.inlineCapability(editor), // LSP 3.18 (inline.go)
		"workspace": map[string]any{
			"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true},
		},
	}
	if len(s.opts.Wrap) > 0 {
		if res, _ := s.startWrapped(ctx, params, roots); res != nil {
			return s.wrappedInitializeResult(res, normalizeJSON(ours))
		}
	}
	return map[string]any{
		"capabilities": ours,
		"serverInfo":   map[string]any{"name": s.opts.Name, "version": s.opts.Version},
	}, nil
}

// normalizeJSON is v as encoding/json decodes it (maps, []any, float64),
// the form capabilities are merged in.
func normalizeJSON(v map[string]any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out map[string]any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}

func (s *Server) shutdown(ctx context.Context) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	sess := s.session
	s.mu.Unlock()
	s.log.Info("shutdown requested")
	s.wrappedShutdown(ctx)
	if sess != nil {
		if t := sess.Current(); t != nil {
			t.Cancel()
			<-t.Done()
		}
	}
	return nil, nil
}

func (s *Server) exitNotification() {
	s.mu.Lock()
	code := 1
	if s.state == stateShutdown {
		code = 0
	}
	s.mu.Unlock()
	s.log.Info("exit notification", "code", code)
	select {
	case s.exit <- code:
	default:
	}
}
