package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/permission"
)

// A session's config options (ACP's configOptions): the permission mode
// — the session modes again, since a client that reads config options
// ignores modes — and the model, which a person may switch between
// prompts with the conversation kept.
const (
	configMode  = "mode"
	configModel = "model"
)

// configOptions are the session's options with their current values.
func (ss *session) configOptions() []sdk.SessionConfigOption {
	modeCat, modelCat := sdk.SessionConfigOptionCategoryMode, sdk.SessionConfigOptionCategoryModel
	var modes sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range modeList() {
		modes = append(modes, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	var models sdk.SessionConfigSelectOptionsUngrouped
	current := ss.as.Model()
	for _, c := range ss.env.ModelChoices(current, ss.as.Settings) {
		desc := c.From
		models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(c.Model), Name: c.Model, Description: &desc})
	}
	modeDesc := "What agentls may do without asking"
	modelDesc := "The model the conversation goes on with; switching keeps it"
	return []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{Id: configMode, Name: "Mode", Description: &modeDesc, Category: &modeCat,
			CurrentValue: sdk.SessionConfigValueId(ss.as.Gate.Mode()), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modes}}},
		{Select: &sdk.SessionConfigOptionSelect{Id: configModel, Name: "Model", Description: &modelDesc, Category: &modelCat,
			CurrentValue: sdk.SessionConfigValueId(current), Options: sdk.SessionConfigSelectOptions{Ungrouped: &models}}},
	}
}

// sendConfigOptions tells the client the options changed (a mode or a
// model switched by a slash command or session/set_mode).
func (ss *session) sendConfigOptions() {
	ss.send(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: ss.configOptions()}})
}

// switchModel makes the session's next prompt run spec, the conversation
// kept (app.Session.SwitchModel): refused while a prompt is answered, or
// for a model that cannot run, in the words of a session's start.
func (ss *session) switchModel(ctx context.Context, spec string) error {
	if ss.isBusy() {
		return agent.ErrBusy
	}
	prev := ss.as.Model()
	if err := ss.as.SwitchModel(ctx, spec, nil); err != nil {
		return err
	}
	ss.srv.log.Info("acp: model", "session", ss.id, "model", spec, "was", prev)
	return nil
}

// SetSessionConfigOption implements ACP's session/set_config_option:
// the mode applies to the next tool call, the model to the next prompt.
func (s *Server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	const method = "session/set_config_option"
	if p.ValueId == nil {
		if err := s.ready(method); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, err
		}
		return sdk.SetSessionConfigOptionResponse{}, reqErr(codeInvalidParams, "%s: agentls's options (mode, model) take a value id, not a boolean", method)
	}
	v := p.ValueId
	ss, err := s.lookup(method, v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	switch v.ConfigId {
	case configMode:
		if err := ss.as.Gate.SetMode(permission.Mode(v.Value)); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, reqErr(codeInvalidParams, "%s: %v", method, err)
		}
		s.log.Info("acp: mode", "session", ss.id, "mode", v.Value)
		// Clients that read modes see it there too.
		ss.send(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(v.Value)}})
	case configModel:
		if err := ss.switchModel(ctx, string(v.Value)); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, reqErr(codeInvalidRequest, "%s: the conversation stays on %s: %v", method, ss.as.Model(), err)
		}
	default:
		return sdk.SetSessionConfigOptionResponse{}, reqErr(codeInvalidParams, "%s: agentls has no option %q; its options are %s and %s (session/new's configOptions)", method, v.ConfigId, configMode, configModel)
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: ss.configOptions()}, nil
}

// modelCommand shows the model and the ones offered, or switches to the
// one named (/model).
func (ss *session) modelCommand(arg string) string {
	current := ss.as.Model()
	if arg == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "agentls: the model is %s. Offered:", current)
		for _, c := range ss.env.ModelChoices(current, ss.as.Settings) {
			fmt.Fprintf(&b, "\n- %s (%s)", c.Model, c.From)
		}
		b.WriteString("\nSwitch with /model provider:model (any model, listed or not) or the editor's model menu; the conversation goes on.")
		return b.String()
	}
	// The prompt that carries the command is being answered: the switch
	// waits for no turn, but that prompt is not one.
	if ss.as.Current() != nil {
		return "agentls: the model stays " + current + ": " + agent.ErrBusy.Error()
	}
	if err := ss.as.SwitchModel(ss.srv.base, arg, nil); err != nil {
		return "agentls: the model stays " + current + ": " + err.Error()
	}
	ss.srv.log.Info("acp: model", "session", ss.id, "model", arg, "was", current)
	ss.sendConfigOptions()
	return "agentls: the model is now " + ss.as.Model() + "; the conversation goes on."
}
