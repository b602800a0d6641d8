package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// Settings resolves the configuration for the workspace as it is now: the
// user file (with the folders trusted now), the editor's settings, the
// flags and the roots' workspace files.
func (e *Env) Settings(editor config.Config) (Settings, error) {
	o := e.app.opts
	user, _, _ := e.app.UserConfig() // its error: front-ends report it (ConfigProblem)
	user.TrustedWorkspaces = e.TrustEntries()
	set, err := resolveSettings(user, editor, config.Flags{Mode: o.ModeFlag, Yolo: o.Yolo}, e.ws.Roots(), o.ConfigPath)
	if err != nil {
		return set, fmt.Errorf("settings: %w", err)
	}
	return set, nil
}

// Gate builds a permission gate for the policy: asks go to asker (nil:
// every ask is a deny), "Always allow" grants and the audit log to the
// history store when it opens, audit failures to the log.
func (e *Env) Gate(ctx context.Context, pol permission.Policy, asker permission.Asker, channel string) (*permission.Gate, error) {
	opts := permission.Options{Policy: pol, Asker: asker, Channel: channel, Roots: e.ws.Roots, IsKnown: e.mcpKnown}
	e.mu.Lock()
	if e.editorTrust == EditorRestricted {
		opts.NoAlways = restrictedNoAlways
	}
	e.mu.Unlock()
	if st, err := e.Store(ctx); err == nil {
		opts.Grants = storeGrants{St: st}
		opts.OnDecision = auditDecision(st, e.ws.Roots, func(err error) { e.app.log.Warn("audit log", "error", err) })
	} else {
		e.app.log.Warn("no history: edits cannot be reverted and decisions are not audited", "error", err)
	}
	return permission.New(opts)
}

// Registry is the tool set offered to the model, with the language
// servers and the MCP servers configured from cfg (a test's Tools
// option replaces both); with q (a person who can answer) it includes
// question, which waits askTimeout as a permission ask does (0: the
// default). The shell's job table is made once per environment, so
// background jobs outlive a session but not the environment.
func (e *Env) Registry(cfg config.Config, q tools.Questioner, askTimeout time.Duration) (*tools.Registry, error) {
	var ts []tools.Tool
	mcp := false
	if f := e.app.opts.Tools; f != nil {
		ts = f(e.ws)
	} else {
		e.lsp.Configure(e.LSPConfig(cfg))
		ts = append(tools.DefaultTools(e.ws, e.shellEnv(), e.lsp), tools.NewSkillTool(e.ws, e.skills))
		mcp = true
	}
	if q != nil {
		ts = append(ts, tools.NewQuestionTool(q, askTimeout))
	}
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		return nil, err
	}
	if src := e.mcpSource(cfg); mcp && src != nil {
		reg.AddSource(src)
	}
	return reg, nil
}

// subagentRegistry is the tool set of the session's subagents:
// read-only by default, more when the settings name them
// (subagent_tools), never question nor agent.
func (e *Env) subagentRegistry(cfg config.Config) (*tools.Registry, error) {
	if f := e.app.opts.SubagentTools; f != nil {
		return tools.NewRegistry(f(e.ws)...)
	}
	shell := e.shellEnv()
	ts := append(tools.SubagentTools(e.ws, shell, e.lsp), tools.NewSkillTool(e.ws, e.skills))
	if len(cfg.SubagentTools) > 0 {
		have := map[string]bool{}
		for _, t := range ts {
			have[t.Spec().Name] = true
		}
		all := map[string]tools.Tool{}
		var names []string
		for _, t := range tools.DefaultTools(e.ws, shell, e.lsp) {
			all[t.Spec().Name] = t
			names = append(names, t.Spec().Name)
		}
		for _, name := range cfg.SubagentTools {
			t, ok := all[name]
			switch {
			case name == "agent" || name == "question":
				return nil, fmt.Errorf("subagent_tools: a subagent never gets %s (it cannot start subagents or ask the person); remove it", name)
			case !ok:
				return nil, fmt.Errorf("subagent_tools: there is no tool %q; the tools are %s", name, strings.Join(names, ", "))
			case !have[name]:
				have[name] = true
				ts = append(ts, t)
			}
		}
	}
	return tools.NewRegistry(ts...)
}

func (e *Env) shellEnv() *tools.ShellEnv {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shell == nil {
		e.shell = tools.NewShellEnv(e.ws, filepath.Join(e.StateDir(), "outputs"))
		e.shell.Confine(e.Sandbox, e.sandboxes.proxy, e.Trusted)
		if e.fe.Terminals != nil {
			if exe, err := e.app.executable(); err != nil {
				e.app.log.Warn("commands run in agentls, not in the editor's terminal", "error", err)
			} else {
				e.shell.UseTerminals(e.fe.Terminals, exe)
			}
		}
	}
	return e.shell
}

// SessionOptions are a front-end's choices for one session.
type SessionOptions struct {
	// Editor is the editor's settings (initializationOptions merged with
	// what the client answered for workspace/configuration).
	Editor config.Config
	// Models are the front-end's own model sources, tried after --model and
	// before AGENTLS_MODEL and the config file (e.g. the editor's
	// initializationOptions.model).
	Models []model.Source
	// ModelDir resolves a relative replay path; "" means the first root.
	ModelDir string
	// Asker reaches the person; nil means every ask is a deny.
	Asker permission.Asker
	// Channel names where asks go: editor, terminal or headless.
	Channel string
	// MaxSteps overrides the configured maximum of model calls per turn.
	MaxSteps int
	// Provider, when set, is used instead of building one (a front-end
	// that reported model errors first, with Provider).
	Provider agent.Provider
	// Model and Settings, when set, are what the front-end already
	// resolved (ModelSpec, Settings) to build Provider or decide how to
	// ask: the session uses them instead of resolving them again.
	Model    string
	Settings *Settings
	// ModelChosen says the person chose Model for this session (a model
	// picker, run's --model) rather than it being a default: a stored
	// session keeps a chosen model when resumed, and otherwise follows
	// the defaults.
	ModelChosen bool
	// Resume continues a stored session by id; Continue continues the
	// workspace's latest one. The model sees the conversation as it last
	// did (summaries included).
	Resume   string
	Continue bool
	// Questioner reaches the person for the question tool; nil (headless)
	// means the tool is not offered.
	Questioner tools.Questioner
	// MCPServers are MCP servers the front-end was handed for this session
	// (ACP's session/new and session/load mcpServers). They join the
	// settings' own `mcp` entries, over them, as the editor's settings do.
	MCPServers config.MCPServers
}

// Session is a session with what the front-end needs beside it.
type Session struct {
	*agent.Session
	// Gate answers questions out of band (agentls.approve).
	Gate *permission.Gate
	// Settings are what the session was resolved with; Warnings are for
	// the person, once.
	Settings Settings
	// Tools is the tool set offered to the model, so a front-end can show
	// a call by what its tool does (its capability).
	Tools *tools.Registry

	env      *Env
	modelDir string
}

// NewSession resolves the model, settings, gate and tools and makes a
// session. Errors say what to fix in the words of configuration (the
// front-end may add its own).
func (e *Env) NewSession(ctx context.Context, so SessionOptions) (*Session, error) {
	old, err := e.findStored(ctx, so)
	if err != nil {
		return nil, err
	}
	spec, chosen, err := e.sessionModel(so, old)
	if err != nil {
		return nil, err
	}
	var set Settings
	if so.Settings != nil {
		set = *so.Settings
	} else {
		if set, err = e.Settings(so.Editor); err != nil {
			return nil, err
		}
	}
	prov := so.Provider
	if prov == nil {
		if prov, err = e.Provider(spec, so.ModelDir, set); err != nil {
			if old.restored.ChosenModel == spec && so.Model == "" {
				return nil, fmt.Errorf("session %s goes on with %s, the model chosen in it: %w (choose another model for it)", old.id, spec, err)
			}
			return nil, err
		}
	}
	gate, err := e.Gate(ctx, set.Policy, so.Asker, so.Channel)
	if err != nil {
		return nil, err
	}
	if len(so.MCPServers) > 0 {
		set.Config = config.Merge(set.Config, config.Config{MCP: so.MCPServers})
	}
	reg, err := e.Registry(set.Config, so.Questioner, set.Policy.AskTimeout)
	if err != nil {
		return nil, err
	}
	subs, err := e.subagentRegistry(set.Config)
	if err != nil {
		return nil, err
	}
	maxSteps := so.MaxSteps
	if maxSteps == 0 {
		maxSteps = set.Config.MaxSteps
	}
	id := old.id
	if id == "" {
		id = agent.NewSessionID()
	}
	journal := e.startJournal(ctx, id, spec, so.Channel, len(old.restored.History) > 0)
	if w := e.sandboxNotice(); w != "" {
		set.Warnings = append(set.Warnings, w)
	}
	// The list of skills goes with the tool that loads them: a test's own
	// tool set has none.
	var skillList func() string
	if _, ok := reg.Get("skill"); ok {
		if _, ok := subs.Get("skill"); ok {
			skillList = e.skillsPrompt
		}
	}
	sess := agent.NewSession(id, agent.Config{
		Provider:    prov,
		Model:       spec,
		ModelChosen: chosen,
		Tools:       reg,
		Gate:        gate,
		MaxSteps:    maxSteps,
		Channel:     so.Channel,
		Hooks:       set.Hooks,
		HookDir:     e.firstRoot,

		HookSandbox: e.Sandbox(),

		Instructions:         e.instructions,
		Environment:          e.environment(gate, reg),
		Skills:               skillList,
		MaxStopContinuations: set.Config.MaxStopContinuations,
		ContextWindow:        e.contextWindow(ctx, spec, set, prov),
		Price:                price(spec, set),
		Journal:              journal,
		Restored:             old.restored,
		Subagents:            subs,
		Checkpoints:          e.prepareCheckpoints(ctx),
	})
	return &Session{Session: sess, Gate: gate, Settings: set, Tools: reg, env: e, modelDir: so.ModelDir}, nil
}

// SessionModel is the model a session opened with so runs: so.Model,
// the model a person last chose in the stored session it continues
// (Resume, Continue), else the defaults — the --model flag, the
// front-end's own sources, AGENTLS_MODEL, the config file. The error
// names every place a model can be set.
func (e *Env) SessionModel(ctx context.Context, so SessionOptions) (string, error) {
	old, err := e.findStored(ctx, so)
	if err != nil {
		// NewSession says so; the model comes from the defaults here.
		old = stored{}
	}
	spec, _, err := e.sessionModel(so, old)
	return spec, err
}

// sessionModel picks the model (SessionModel) and says whether it was
// chosen for the session (agent.Config.ModelChosen).
func (e *Env) sessionModel(so SessionOptions, old stored) (spec string, chosen bool, err error) {
	switch {
	case so.Model != "":
		return so.Model, so.ModelChosen, nil
	case old.restored.ChosenModel != "":
		return old.restored.ChosenModel, true, nil
	}
	spec, err = e.ModelSpec(so.Models...)
	return spec, false, err
}

// SwitchModel makes the session run spec from its next turn on, the
// conversation kept (agent.Session.SwitchModel): the model is resolved
// as at the session's start, so a model without its provider or key is
// refused with the same words before anything changes, and the session
// keeps its model. The model event goes to emit.
func (s *Session) SwitchModel(ctx context.Context, spec string, emit func(agent.Event)) error {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return fmt.Errorf("no model given: name one as provider:model (e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5)")
	}
	if s.Current() != nil {
		return agent.ErrBusy
	}
	prov, err := s.env.Provider(spec, s.modelDir, s.Settings)
	if err != nil {
		return err
	}
	return s.Session.SwitchModel(agent.Model{Spec: spec, Provider: prov, ContextWindow: s.env.contextWindow(ctx, spec, s.Settings, prov), Price: price(spec, s.Settings)}, emit)
}

// Provider builds the provider for spec with the settings' providers;
// dir resolves a relative replay path ("" means the first root).
func (e *Env) Provider(spec, dir string, set Settings) (agent.Provider, error) {
	o := e.app.opts
	if dir == "" {
		dir = e.firstRoot()
	}
	if o.NewProvider != nil {
		return o.NewProvider(spec, dir)
	}
	return model.New(spec, model.Options{Providers: set.Config.Providers, Dir: dir, Getenv: o.Getenv})
}

// ModelSpec picks the model: --model, then the front-end's own sources,
// then AGENTLS_MODEL, then the config file. The error names every place
// a model can be set.
func (e *Env) ModelSpec(frontend ...model.Source) (string, error) {
	o := e.app.opts
	cfgName := "\"model\" in the config file"
	if o.ConfigPath != "" {
		cfgName = "\"model\" in " + o.ConfigPath
	}
	// A front-end's own place comes first in the message; the flag is
	// named only when it is set or when no front-end has a place.
	var sources []model.Source
	if o.ModelFlag != "" || len(frontend) == 0 {
		sources = append(sources, model.Source{Name: "--model", Value: o.ModelFlag})
	}
	sources = append(sources, frontend...)
	user, _, _ := e.app.UserConfig()
	sources = append(sources,
		model.Source{Name: "the AGENTLS_MODEL environment variable", Value: o.Getenv("AGENTLS_MODEL")},
		model.Source{Name: cfgName, Value: user.Model})
	spec, _, err := model.Resolve(sources...)
	return spec, err
}

// firstRoot is where relative paths start: the first workspace folder.
func (e *Env) firstRoot() string {
	if r := e.ws.Roots(); len(r) > 0 {
		return r[0]
	}
	return "."
}
