package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/store"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/lsp/client"
	"github.com/agentls/agentls/permission"
	"github.com/agentls/agentls/tools"
)

// headless is what a command without an editor works with: the user's
// folders and config, the resolved settings for one workspace, the history
// database and the tool set.
type headless struct {
	dirs     config.Dirs
	user     config.Config
	set      agent.Settings
	ws       *tools.Workspace
	st       *store.Store // nil when the history cannot be opened
	shellEnv *tools.ShellEnv
	lsp      *tools.LSPEnv
	reg      *tools.Registry
}

// openHeadless loads everything for a workspace folder. Errors say what
// to fix; the caller decides the exit code.
func openHeadless(ctx context.Context, workspace string, flags config.Flags) (*headless, error) {
	if fi, err := os.Stat(workspace); err != nil || !fi.IsDir() {
		return nil, usageError{fmt.Errorf("--workspace %s is not a directory", workspace)}
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, usageError{err}
	}
	dirs, err := config.UserDirs()
	if err != nil {
		return nil, err
	}
	user, err := config.Load(dirs.File())
	if err != nil {
		return nil, err
	}
	set, err := agent.ResolveSettings(user, config.Config{}, flags, []string{abs}, dirs.File())
	if err != nil {
		return nil, usageError{err}
	}
	ws, err := tools.NewWorkspace([]string{abs}, nil)
	if err != nil {
		return nil, usageError{err}
	}
	h := &headless{dirs: dirs, user: user, set: set, ws: ws}
	if st, err := store.Open(ctx, store.DefaultPath(dirs.Data)); err == nil {
		h.st = st
		ws.SetRecorder(agent.NewHistory(st, ws))
	} else {
		fmt.Fprintf(os.Stderr, "agentls: no history (edits will not be revertible, nothing is audited): %v\n", err)
	}
	h.shellEnv = tools.NewShellEnv(ws, filepath.Join(dirs.State, "outputs"))
	lspCfg := set.Config.LSPConfig()
	h.lsp = tools.NewLSPEnv(ws, func() client.Config { return lspCfg }, nil)
	if h.reg, err = tools.NewRegistry(tools.DefaultTools(ws, h.shellEnv, h.lsp)...); err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// gate builds the permission gate with the given asker (nil: asks deny).
func (h *headless) gate(asker permission.Asker, channel string) (*permission.Gate, error) {
	opts := permission.Options{Policy: h.set.Policy, Asker: asker, Channel: channel, Roots: h.ws.Roots}
	if h.st != nil {
		opts.Grants = agent.StoreGrants{St: h.st}
		opts.OnDecision = agent.AuditDecision(h.st, h.ws.Roots, nil)
	}
	return permission.New(opts)
}

func (h *headless) close() {
	if h.shellEnv != nil {
		h.shellEnv.Close()
	}
	if h.lsp != nil {
		h.lsp.Shutdown(context.Background())
	}
	if h.st != nil {
		h.st.Close()
	}
	h.ws.Close()
}

// usageError marks errors that are the caller's to fix (exit 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }
