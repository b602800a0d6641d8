package app

import (
	"context"
	"path/filepath"

	"github.com/agentls/agentls/internal/agent/hooks"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
)

// Settings is what a server or a headless run resolves before its first
// turn: the merged configuration, the permission policy and the hooks,
// plus warnings to show the person once.
type Settings struct {
	Config   config.Config
	Policy   permission.Policy
	Hooks    []hooks.Config
	Warnings []string
}

// resolveSettings merges the user file, the editor's settings, the flags
// and each root's .agentls.json, with a workspace file allowed only to
// tighten unless its root is trusted — and its hooks never run then.
func resolveSettings(user, editor config.Config, flags config.Flags, roots []string, userFile string) (Settings, error) {
	wsCfgs, warns := config.LoadWorkspaces(roots)
	cfg, more, err := config.Resolve(user, editor, flags, wsCfgs, user.TrustedWorkspaces)
	if err != nil {
		return Settings{}, err
	}
	var out Settings
	for _, w := range append(warns, more...) {
		out.Warnings = append(out.Warnings, w.String())
	}
	pol, err := cfg.Permissions.Policy()
	if err != nil {
		return Settings{}, err
	}
	sources := []hooks.Source{{Name: userFile, Hooks: user.Hooks}, {Name: "editor settings", Hooks: editor.Hooks}}
	for _, r := range roots {
		if c, ok := wsCfgs[r]; ok {
			sources = append(sources, hooks.Source{Name: filepath.Join(r, config.WorkspaceFile), Root: r, Hooks: c.Hooks})
		}
	}
	hs, hookWarns, err := hooks.Collect(sources, user.TrustedWorkspaces)
	if err != nil {
		return Settings{}, err
	}
	out.Config, out.Policy, out.Hooks = cfg, pol, hs
	out.Warnings = append(out.Warnings, hookWarns...)
	return out, nil
}

// storeGrants keeps "Always allow" grants in the history database.
type storeGrants struct{ St *store.Store }

// Allowed implements permission.GrantStore.
func (g storeGrants) Allowed(ctx context.Context, p permission.PersistentGrant) (bool, error) {
	return g.St.HasGrant(ctx, grantOf(p))
}

// Save implements permission.GrantStore.
func (g storeGrants) Save(ctx context.Context, p permission.PersistentGrant) error {
	return g.St.SaveGrant(ctx, grantOf(p))
}

func grantOf(p permission.PersistentGrant) store.Grant {
	return store.Grant{Workspace: p.Workspace, Tool: p.Tool, Capability: string(p.Capability), Action: string(p.Action), Scope: p.Scope, Env: p.Env}
}

// auditDecision returns an OnDecision callback that appends every
// decision to the store's audit log (workspace = the first root).
func auditDecision(st *store.Store, roots func() []string, onErr func(error)) func(permission.Event) {
	return func(e permission.Event) {
		ws := ""
		if r := roots(); len(r) > 0 {
			ws = r[0]
		}
		err := st.RecordDecision(context.Background(), store.Decision{Workspace: ws, SessionID: e.SessionID, Tool: e.Tool,
			Capability: e.Capability, Action: e.Action, Scope: e.Scope, Decision: e.Decision, Source: e.Source,
			Rule: e.Rule, Channel: e.Channel, Reason: e.Reason})
		if err != nil && onErr != nil {
			onErr(err)
		}
	}
}
