package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/overlay"
)

// AskArgs is the one argument of agentls.ask.
type AskArgs struct {
	Prompt string          `json:"prompt"`
	URI    string          `json:"uri,omitempty"`
	Range  *protocol.Range `json:"range,omitempty"`
	// SessionID continues a stored session (after a restart, say): the
	// model sees its earlier turns. Empty continues this connection's
	// session.
	SessionID string `json:"sessionId,omitempty"`
	// EditPrompt marks a code action's canned prompt: a plugin asks the
	// person for their question (the prompt as a hint) before it sends
	// agentls.ask; a plain client sends the canned prompt as it is.
	EditPrompt bool `json:"editPrompt,omitempty"`
}

// AskResult is what agentls.ask returns at once; the turn runs on.
type AskResult struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
}

// CancelArgs is the optional argument of agentls.cancel.
type CancelArgs struct {
	TurnID string `json:"turnId,omitempty"`
}

func (s *Server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p executeCommandParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	switch p.Command {
	case CommandAsk:
		var a AskArgs
		if err := oneArg(p.Arguments, &a); err != nil {
			return nil, err
		}
		return s.ask(ctx, a)
	case CommandApprove:
		var a ApproveArgs
		if err := oneArg(p.Arguments, &a); err != nil {
			return nil, err
		}
		return s.approve(a)
	case CommandHistory:
		var a HistoryArgs
		if err := oneArg(p.Arguments, &a); err != nil {
			return nil, err
		}
		return s.history(ctx, a)
	case CommandAnswer:
		var a AnswerArgs
		if err := oneArg(p.Arguments, &a); err != nil {
			return nil, err
		}
		return s.answer(a)
	case CommandRevertTurn:
		var a RevertArgs
		if len(p.Arguments) > 0 {
			if err := oneArg(p.Arguments, &a); err != nil {
				return nil, err
			}
		}
		return s.revertTurn(ctx, a)
	case CommandCancel:
		var a CancelArgs
		if len(p.Arguments) > 0 {
			if err := oneArg(p.Arguments, &a); err != nil {
				return nil, err
			}
		}
		return s.cancelTurn(a.TurnID)
	case CommandSessions:
		return s.sessions(ctx)
	case CommandCompact:
		return s.compact(ctx)
	case CommandSandbox:
		return s.sandboxStatus()
	case CommandModel:
		var a ModelArgs
		if len(p.Arguments) > 0 {
			if err := oneArg(p.Arguments, &a); err != nil {
				return nil, err
			}
		}
		return s.modelStatus(ctx, a)
	case CommandSetModel:
		var a SetModelArgs
		if err := oneArg(p.Arguments, &a); err != nil {
			return nil, err
		}
		return s.setModel(ctx, a)
	case CommandCheckpoints, CommandRestoreCheckpoint:
		var a CheckpointArgs
		if len(p.Arguments) > 0 {
			if err := oneArg(p.Arguments, &a); err != nil {
				return nil, err
			}
		}
		if p.Command == CommandCheckpoints {
			return s.listCheckpoints(ctx, a)
		}
		return s.restoreCheckpoint(ctx, a)
	case CommandInlineAccepted:
		var a InlineAcceptedArgs
		if err := oneArg(p.Arguments, &a); err != nil {
			return nil, err
		}
		return s.inlineAccepted(a)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q: agentls runs %s", p.Command, strings.Join(commands(), ", "))
}

func oneArg(args []json.RawMessage, v any) error {
	if len(args) != 1 {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "expected one argument object, got %d arguments", len(args))
	}
	if err := json.Unmarshal(args[0], v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid argument: %v", err)
	}
	return nil
}

func (s *Server) ask(_ context.Context, a AskArgs) (any, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.ask needs a non-empty \"prompt\"")
	}
	sess, err := s.ensureSession(a.SessionID)
	if err != nil {
		if p := s.configProblem(); p != "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v (%s)", err, p)
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	msg, err := s.promptWithContext(a)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	if a.URI != "" {
		if path, err := overlay.URIToPath(a.URI); err == nil {
			sess.SetFolder(filepath.Dir(path)) // its AGENTS.md files count from this turn
		}
	}
	rep := s.newReporter(a.Prompt)
	ready := make(chan struct{})
	turn, err := sess.StartAfter(s.base, msg, rep.emit, ready)
	if err != nil {
		if errors.Is(err, agent.ErrBusy) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
		}
		return nil, err
	}
	rep.start(turn)
	return askReply{AskResult{SessionID: sess.ID, TurnID: turn.ID}, ready}, nil
}

// askReply is agentls.ask's result; once it is on its way to the client,
// the turn is released. Some clients (Emacs 28's jsonrpc) handle only the
// first message of a read that also holds the reply, so the turn's first
// messages must not share the reply's write.
type askReply struct {
	AskResult
	ready chan struct{}
}

// replyGap separates the reply from the turn's first messages.
const replyGap = 20 * time.Millisecond

func (r askReply) MarshalJSON() ([]byte, error) { return json.Marshal(r.AskResult) }

// afterReply implements postReplier.
func (r askReply) afterReply() {
	time.AfterFunc(replyGap, func() { close(r.ready) })
}

func (s *Server) cancelTurn(turnID string) (any, error) {
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	var t *agent.Turn
	if sess != nil {
		t = sess.Current()
	}
	if t == nil || turnID != "" && t.ID != turnID {
		return map[string]any{"cancelled": false}, nil
	}
	t.Cancel()
	return map[string]any{"cancelled": true, "turnId": t.ID}, nil
}

// RevertArgs is the optional argument of agentls.revertTurn.
type RevertArgs struct {
	TurnID string `json:"turnId,omitempty"`
	Force  bool   `json:"force,omitempty"`
}

// revertTurn restores the files a turn changed and tells the person.
func (s *Server) revertTurn(ctx context.Context, a RevertArgs) (any, error) {
	h, err := s.env.History(ctx)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	if sess := s.currentSession(); sess != nil && sess.Current() != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "a turn is running: cancel it (agentls.cancel) before reverting")
	}
	rep, err := h.RevertTurn(ctx, a.TurnID, a.Force)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	typ := 3
	if len(rep.Skipped) > 0 {
		typ = 2
	}
	s.showMessage(ctx, typ, "agentls: "+rep.Text(s.ws.Rel))
	return rep, nil
}

func (s *Server) currentSession() *agent.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		return nil
	}
	return s.session.Session
}

// ensureSession creates the connection's session on first use, resolving
// the model and mode from flags, editor options, environment and config.
// resume, when it names another session than the current one, resumes
// that stored session instead (the current one must be idle).
func (s *Server) ensureSession(resume string) (*app.Session, error) {
	_, gen, _ := s.opts.App.UserConfig()
	s.mu.Lock()
	if s.session != nil && gen != s.configGen {
		s.configChanged = true // config.json was saved since: its settings apply now
	}
	sess, wantConf, changed := s.session, s.caps.Workspace.Configuration, s.configChanged
	s.mu.Unlock()
	if sess != nil && changed && sess.Current() == nil && (resume == "" || resume == sess.ID) {
		resume = sess.ID // new settings, same conversation
	} else if sess != nil && (resume == "" || resume == sess.ID) {
		return sess, nil
	}
	if sess != nil && sess.Current() != nil {
		return nil, agent.ErrBusy
	}
	clientConf := s.clientConfiguration(wantConf)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != nil && !s.configChanged && (resume == "" || resume == s.session.ID) {
		return s.session, nil
	}
	editor := config.Merge(s.editor, clientConf)
	source := model.Source{Name: modelSetting(s.clientName), Value: editor.Model}
	settingsModel, _ := s.env.ModelSpec(source)
	chosen, byPerson := s.chosenLocked(resume, settingsModel)
	as, err := s.env.NewSession(s.base, app.SessionOptions{
		Resume:      resume,
		Editor:      editor,
		Models:      []model.Source{source},
		Model:       chosen,
		ModelChosen: byPerson,
		Asker:       editorAsker{s},
		Questioner:  editorQuestioner{s},
		Channel:     "editor",
	})
	if err != nil && changed && s.session != nil {
		// The new settings do not make a session (say, a model without its
		// provider): refuse the prompt rather than answer it with the
		// previous settings as if the new ones applied. The conversation
		// stays; the next ask tries the settings again.
		s.log.Warn("the changed settings do not apply; the prompt is refused", "error", err)
		return nil, fmt.Errorf("the changed settings do not apply, so the prompt was not sent: %w", err)
	}
	if err != nil {
		return nil, err
	}
	for _, w := range as.Settings.Warnings {
		s.showMessage(s.base, 2, "agentls: "+w)
	}
	if s.session != nil {
		s.session.CloseHooks()
	}
	s.gate, s.session, s.configChanged, s.configGen = as.Gate, as, false, gen
	s.chosenModel, s.settingsModel = "", settingsModel
	return s.session, nil
}

// sessions lists the workspace's stored sessions (agentls.sessions), the
// connection's current one marked.
func (s *Server) sessions(ctx context.Context) (any, error) {
	st, err := s.env.Store(ctx)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	roots := s.ws.Roots()
	if len(roots) == 0 {
		return []any{}, nil
	}
	list, err := st.Sessions(ctx, roots[0])
	if err != nil {
		return nil, err
	}
	cur := ""
	if sess := s.currentSession(); sess != nil {
		cur = sess.ID
	}
	out := make([]map[string]any, 0, len(list))
	for _, si := range list {
		out = append(out, map[string]any{"id": si.ID, "title": si.Title, "model": si.Model, "updated": si.Updated,
			"created": si.Created, "records": si.Records, "current": si.ID == cur})
	}
	return out, nil
}

// compact compacts the current session's conversation now
// (agentls.compact); what it did arrives as an agentls/event.
func (s *Server) compact(ctx context.Context) (any, error) {
	sess := s.currentSession()
	if sess == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "no conversation to compact yet: ask something first (agentls.ask)")
	}
	var done agent.Event
	err := sess.Compact(ctx, func(e agent.Event) {
		done = e
		if err := s.conn.Notify(s.base, "agentls/event", e); err != nil {
			s.log.Debug("agentls/event failed", "error", err)
		}
	})
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	return map[string]any{"sessionId": sess.ID, "message": done.Message}, nil
}

// promptWithContext adds the user's file and selection to the prompt.
func (s *Server) promptWithContext(a AskArgs) (string, error) {
	if a.URI == "" {
		return a.Prompt, nil
	}
	path, err := overlay.URIToPath(a.URI)
	if err != nil {
		return "", err
	}
	c := &agent.Context{File: s.ws.Rel(path)}
	if a.Range != nil {
		f, err := s.ws.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read the selection of %s: %w", path, err)
		}
		c.StartLine, c.EndLine = int(a.Range.Start.Line)+1, int(a.Range.End.Line)+1
		c.Selected = selectText(f.Text, *a.Range)
		if a.Range.Start == a.Range.End {
			// A cursor, no selection (a code action on a plain line): the
			// line it is on, not "lines N-N selected" with nothing in them.
			c.Cursor, c.Selected = true, lineText(f.Text, int(a.Range.Start.Line))
		}
	}
	return agent.UserMessage(a.Prompt, c), nil
}

// lineText is line n (0-based) of text, without its line break; "" past
// the end.
func lineText(text string, n int) string {
	lines := strings.SplitN(text, "\n", n+2)
	if n >= len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[n], "\r")
}

// selectText cuts an LSP range out of text.
func selectText(text string, r protocol.Range) string {
	pos := func(p protocol.Position) overlay.Position {
		return overlay.Position{Line: p.Line, Character: p.Character}
	}
	a, b := overlay.Offset(text, pos(r.Start)), overlay.Offset(text, pos(r.End))
	if b < a {
		a, b = b, a
	}
	return text[a:b]
}

// clientConfiguration asks the client for its settings
// (workspace/configuration) when it can answer; nothing on failure, which
// leaves initializationOptions. Never with s.mu held: the reply is read by
// the loop that also delivers notifications, which take s.mu.
func (s *Server) clientConfiguration(want bool) config.Config {
	if !want {
		return config.Config{}
	}
	c, err := s.fetchConfiguration()
	if err != nil {
		s.log.Warn("workspace/configuration failed; using initializationOptions only", "error", err)
	}
	return c
}

// sandboxStatus is what the kernel enforces for this workspace's programs.
func (s *Server) sandboxStatus() (any, error) {
	if s.env == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agentls.sandbox: the server is not initialized")
	}
	sb := s.env.Sandbox()
	st := sb.Status()
	if sb == nil {
		st.Mode = "off"
		st.Reason = `sandbox.mode is "off" in the user config file: programs run unconfined`
	}
	return st, nil
}
