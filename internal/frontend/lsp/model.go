package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// Which model the conversation runs: the last choice wins, made in the
// chat (agentls.setModel) or in the settings (a changed agentls.model).
// A choice in the chat holds until the settings name another model than
// they did when it was made; the settings otherwise stay what a new
// conversation starts with.

// ModelStatus is agentls.model's and agentls.setModel's reply: the model
// the next prompt goes to ("provider:model"), or none and why, why it
// cannot run (no key, an unknown provider) when it is named but cannot,
// and the models a picker offers.
type ModelStatus struct {
	Model   string            `json:"model"`
	Problem string            `json:"problem,omitempty"`
	Models  []app.ModelChoice `json:"models,omitempty"`
}

// ModelArgs is agentls.model's optional argument.
type ModelArgs struct {
	// SessionID is the stored session the next prompt continues (a chat
	// shown again after a restart): its model is the one chosen in it,
	// unless one is chosen now.
	SessionID string `json:"sessionId,omitempty"`
}

// SetModelArgs is the one argument of agentls.setModel.
type SetModelArgs struct {
	// Model is "provider:model"; it need not be one of ModelStatus.Models.
	Model string `json:"model"`
}

// chosenLocked is the model a session made now runs ("" leaves it to a
// stored session's own choice, else the defaults) and whether the person
// chose it for the conversation: before the first session, one chosen
// in the chat; remade for new settings, the model the session runs —
// unless the settings now name another model than when it was made or
// chosen, the newer choice; another stored session keeps its own. s.mu
// is held.
func (s *Server) chosenLocked(resume, settingsModel string) (string, bool) {
	switch {
	case s.session == nil:
		return s.chosenModel, s.chosenModel != ""
	case resume != "" && resume != s.session.ID:
		return "", false
	case settingsModel != "" && settingsModel != s.settingsModel:
		return settingsModel, false
	}
	return s.session.Model(), false // what it ran last: nothing to journal
}

// editorModel is the model source of the editor's settings as they are
// now (initializationOptions and workspace/configuration), and the
// settings.
func (s *Server) editorModel() (model.Source, config.Config) {
	s.mu.Lock()
	editor, wantConf := s.editor, s.caps.Workspace.Configuration
	s.mu.Unlock()
	editor = config.Merge(editor, s.clientConfiguration(wantConf))
	return model.Source{Name: modelSetting(s.clientName), Value: editor.Model}, editor
}

// modelStatus says which model the next prompt goes to, as ensureSession
// will pick it (continuing a.SessionID), and what a picker offers.
func (s *Server) modelStatus(ctx context.Context, a ModelArgs) (any, error) {
	if s.env == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agentls.model: the server is not initialized")
	}
	source, editor := s.editorModel()
	settingsModel, err := s.env.ModelSpec(source)
	s.mu.Lock()
	var next string
	resume := ""
	switch {
	case s.session != nil && (a.SessionID == "" || a.SessionID == s.session.ID):
		next, _ = s.chosenLocked("", settingsModel)
		err = nil
	case s.chosenModel != "":
		next, err = s.chosenModel, nil
	case a.SessionID != "":
		resume = a.SessionID
	default:
		next = settingsModel
	}
	s.mu.Unlock()
	if resume != "" {
		// A stored session goes on with the model chosen in it, else the
		// settings'; one that cannot be read is the ask's to report.
		next, err = s.env.SessionModel(ctx, app.SessionOptions{Resume: resume, Models: []model.Source{source}})
	}
	set, setErr := s.env.Settings(editor) // a broken setting still lists the rest
	st := ModelStatus{Model: next, Models: s.env.ModelChoices(next, set, source)}
	if err == nil && next != "" && setErr == nil {
		// A model that is named but cannot run (its key's variable unset,
		// an unknown provider) is a problem now, as the prompt would be
		// refused: an editor does not announce it as applied.
		_, err = s.env.Provider(next, "", set)
	}
	if err != nil {
		st.Problem = err.Error()
	}
	return st, nil
}

// setModel switches the conversation to a.Model (agentls.setModel): its
// next turn runs there with everything said so far. The model is resolved
// as at a session's start, so one that cannot run (no provider, no key)
// is refused now, in those words, and the conversation keeps its model.
// Before the first prompt it is the model the conversation starts with.
func (s *Server) setModel(ctx context.Context, a SetModelArgs) (any, error) {
	spec := strings.TrimSpace(a.Model)
	if spec == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.setModel needs a \"model\" (provider:model, e.g. anthropic:claude-sonnet-4-5)")
	}
	if s.env == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agentls.setModel: the server is not initialized")
	}
	source, editor := s.editorModel()
	settingsModel, _ := s.env.ModelSpec(source)
	if s.currentSession() == nil {
		set, err := s.env.Settings(editor)
		if err == nil {
			_, err = s.env.Provider(spec, "", set)
		}
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the model stays as it was: %v", err)
		}
		s.mu.Lock()
		s.chosenModel = spec
		s.mu.Unlock()
		s.log.Info("model chosen for the conversation", "model", spec)
		return s.modelStatus(ctx, ModelArgs{})
	}
	// Settings changed meanwhile (a provider just added to config.json)
	// apply first, so the switch resolves the model with them.
	sess, err := s.ensureSession("")
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	prev := sess.Model()
	if err := sess.SwitchModel(ctx, spec, s.notifyEvent); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the conversation stays on %s: %v", prev, err)
	}
	s.mu.Lock()
	if s.session == sess {
		s.settingsModel = settingsModel // the settings as they are now were seen: this choice is newer
	}
	s.mu.Unlock()
	s.log.Info("model switched", "session", sess.ID, "model", spec, "was", prev)
	return s.modelStatus(ctx, ModelArgs{})
}

// notifyEvent sends an agent event outside a turn (a model switch).
func (s *Server) notifyEvent(e agent.Event) {
	if err := s.conn.Notify(s.base, "agentls/event", e); err != nil {
		s.log.Debug("agentls/event failed", "error", err)
	}
}
