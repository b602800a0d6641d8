package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
)

// modelsSeen is a set of models "rec:NAME", each answering "NAME here"
// and recording what it was sent as "NAME saw N messages".
type modelsSeen struct {
	mu   sync.Mutex
	seen []string
}

func (m *modelsSeen) app(t *testing.T, dataDir string) *app.App {
	return app.New(app.Options{
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		DataDir: dataDir, StateDir: t.TempDir(), ModelFlag: "rec:first",
		Getenv: func(string) string { return "" },
		NewProvider: func(spec, _ string) (agent.Provider, error) {
			name, ok := strings.CutPrefix(spec, "rec:")
			if !ok {
				return nil, fmt.Errorf("unknown provider in model %q", spec)
			}
			return recProvider{name: name, m: m}, nil
		},
	})
}

func (m *modelsSeen) requests() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.seen, "; ")
}

type recProvider struct {
	name string
	m    *modelsSeen
}

func (p recProvider) Name() string { return "rec:" + p.name }
func (p recProvider) Complete(_ context.Context, req agent.Request, _ agent.Stream) (agent.Response, error) {
	p.m.mu.Lock()
	p.m.seen = append(p.m.seen, fmt.Sprintf("%s saw %d messages", p.name, len(req.Messages)))
	p.m.mu.Unlock()
	return agent.Response{Text: p.name + " here"}, nil
}

// option is the select option id of opts, or nil.
func option(opts []sdk.SessionConfigOption, id string) *sdk.SessionConfigOptionSelect {
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return o.Select
		}
	}
	return nil
}

func values(o *sdk.SessionConfigOptionSelect) []string {
	var out []string
	if o != nil && o.Options.Ungrouped != nil {
		for _, v := range *o.Options.Ungrouped {
			out = append(out, string(v.Value))
		}
	}
	return out
}

// TestModelConfigOption: session/new offers the mode and the model as
// config options; session/set_config_option switches the model between
// prompts and the next prompt's model is sent the conversation; a model
// that cannot run, an unknown option and a boolean are refused, saying
// what to do; /model lists and switches too; a stored session loaded in
// another connection goes on with the model chosen last.
func TestModelConfigOption(t *testing.T) {
	models := &modelsSeen{}
	dataDir := t.TempDir()
	ed := newFakeEditor()
	c := connect(t, models.app(t, dataDir), ed, sdk.FileSystemCapabilities{})
	root := workspace(t, nil)
	ctx := context.Background()
	r, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := r.SessionId
	mode, model := option(r.ConfigOptions, "mode"), option(r.ConfigOptions, "model")
	if mode == nil || model == nil || *mode.Category != sdk.SessionConfigOptionCategoryMode || *model.Category != sdk.SessionConfigOptionCategoryModel ||
		string(mode.CurrentValue) != string(r.Modes.CurrentModeId) || model.CurrentValue != "rec:first" ||
		strings.Join(values(mode), " ") != "chat approve smart auto" || values(model)[0] != "rec:first" {
		t.Fatalf("session/new configOptions: mode %+v, model %+v", mode, model)
	}
	if _, err := prompt(c, id, sdk.TextBlock("one")); err != nil {
		t.Fatal(err)
	}
	set := func(configID, value string) (sdk.SetSessionConfigOptionResponse, error) {
		return c.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: id, ConfigId: sdk.SessionConfigId(configID), Value: sdk.SessionConfigValueId(value)}})
	}
	res, err := set("model", "rec:second")
	if err != nil || option(res.ConfigOptions, "model").CurrentValue != "rec:second" {
		t.Fatalf("set model: %+v %v", res, err)
	}
	if _, err := prompt(c, id, sdk.TextBlock("two")); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		id, value string
		code      int
		says      string
	}{
		{"model", "gpt-4o", codeInvalidRequest, "stays on rec:second"},
		{"temperature", "1", codeInvalidParams, "its options are mode and model"},
		{"mode", "yolo", codeInvalidParams, "chat, approve, smart or auto"},
	} {
		if _, err := set(bad.id, bad.value); codeOf(err) != bad.code || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("set %s=%s: %v, want code %d saying %q", bad.id, bad.value, err, bad.code, bad.says)
		}
	}
	if _, err := c.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{Boolean: &sdk.SetSessionConfigOptionBoolean{
		SessionId: id, ConfigId: "model", Type: "boolean", Value: true}}); codeOf(err) != codeInvalidParams {
		t.Errorf("a boolean: %v", err)
	}
	res, err = set("mode", "chat")
	if err != nil || option(res.ConfigOptions, "mode").CurrentValue != "chat" {
		t.Errorf("set mode chat: %+v %v", res, err)
	}
	ed.until(t, "the mode update", func() bool {
		for _, u := range ed.updates {
			if u.Update.CurrentModeUpdate != nil && u.Update.CurrentModeUpdate.CurrentModeId == "chat" {
				return true
			}
		}
		return false
	})

	if _, err := prompt(c, id, sdk.TextBlock("/model rec:third")); err != nil {
		t.Fatal(err)
	}
	ed.until(t, "the config option update naming rec:third", func() bool {
		for _, u := range ed.updates {
			if co := u.Update.ConfigOptionUpdate; co != nil && option(co.ConfigOptions, "model").CurrentValue == "rec:third" {
				return true
			}
		}
		return false
	})
	if _, err := prompt(c, id, sdk.TextBlock("three")); err != nil {
		t.Fatal(err)
	}
	if got, want := models.requests(), "first saw 1 messages; second saw 3 messages; third saw 5 messages"; got != want {
		t.Errorf("requests: %s\nwant: %s", got, want)
	}

	// Another connection loads the stored session: on rec:third.
	c2 := connect(t, models.app(t, dataDir), newFakeEditor(), sdk.FileSystemCapabilities{})
	loaded, err := c2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if m := option(loaded.ConfigOptions, "model"); m == nil || m.CurrentValue != "rec:third" {
		t.Errorf("loaded session's model option: %+v", m)
	}
}
