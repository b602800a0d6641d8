package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/lsp/client"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
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
	lspCfg.AskTrust = trustNotice(os.Stderr)
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

// trustNotice tells the person on stderr, once per server and folder,
// that a language server runs in its safe form (or not at all) because
// the folder is not trusted, and how to trust it.
func trustNotice(w io.Writer) func(client.TrustRequest) {
	var mu sync.Mutex
	told := map[string]bool{}
	return func(r client.TrustRequest) {
		mu.Lock()
		defer mu.Unlock()
		if key := r.Server + "\x00" + r.Folder; !told[key] {
			told[key] = true
			fmt.Fprintf(w, "agentls: %s would run code from %s (%s), which is not trusted. %s Trust it with `agentls trust %s`.\n", r.Server, r.Folder, r.Code, r.Meanwhile, r.Folder)
		}
	}
}

// usageError marks errors that are the caller's to fix (exit 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }
