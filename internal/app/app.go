// Package app is agentls's composition root: the one place that builds
// the pieces of a session — settings, the history store, the workspace,
// the shell and language-server environments, the tool registry, the
// permission gate, the model and the session itself.
//
// A front-end (the editor's language server, `agentls run`, `revert`,
// `permission`, later ACP) gets an *App from cmd/agentls, opens one Env
// for its workspace with what only it has (the editor's unsaved buffers,
// its way of applying edits, of asking about trust), and asks the Env for
// sessions. Front-ends construct none of these pieces themselves, so every
// front-end gets the same logger, audit callback and model options.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/checkpoint"
	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/mcp"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools"
)

// Options are what the program knows before any front-end starts: the
// user's files and folders, the command-line flags, and (for tests) a
// model and a tool set to use instead of the real ones.
type Options struct {
	// Log receives warnings and debug messages of every front-end; nil
	// discards them.
	Log *slog.Logger
	// Executable is the agentls program an editor's terminal runs for a
	// command (`agentls exec`); "" means this program (os.Executable).
	Executable string
	// Config is the user's config file, already loaded; ConfigPath is where
	// it lives (messages name it, trust is re-read from it and written to
	// it, and a changed file is read again: App.UserConfig).
	Config     config.Config
	ConfigPath string
	// ConfigErr is why the config file did not load (Config is then
	// empty): front-ends say so, naming the file, rather than report what
	// follows from its absence (no model, an unknown provider).
	ConfigErr error
	// StateDir holds files kept for the user (full outputs of truncated
	// shell results); empty means the system temp dir. DataDir holds the
	// history database; empty means no history (edits cannot be reverted,
	// nothing is audited).
	StateDir, DataDir string
	// ModelFlag, ModeFlag and Yolo come from the command line and win over
	// everything else.
	ModelFlag, ModeFlag string
	Yolo                bool
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// NewProvider builds a provider from a model string (dir resolves
	// relative replay paths); nil means model.New with the user's
	// providers.
	NewProvider func(spec, dir string) (agent.Provider, error)
	// Tools returns the tools offered to the model; nil means the
	// built-in set and the MCP servers' tools. SubagentTools are a
	// subagent's; nil means the built-in read-only set.
	Tools         func(ws *tools.Workspace) []tools.Tool
	SubagentTools func(ws *tools.Workspace) []tools.Tool
	// Version is agentls's version, told to MCP servers.
	Version string
	// Now is the time the model is told it is; nil means time.Now.
	Now func() time.Time
}

// App makes workspace environments for front-ends.
type App struct {
	opts Options
	log  *slog.Logger
	user *userConfig
}

// New returns the composition root for the given options.
func New(o Options) *App {
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return &App{opts: o, log: o.Log, user: newUserConfig(o.ConfigPath, o.Config, o.ConfigErr)}
}

// Options returns the options the App was made with.
func (a *App) Options() Options { return a.opts }

// Log is the logger every front-end shares.
func (a *App) Log() *slog.Logger { return a.log }

// Frontend is what only the front-end can give an environment.
type Frontend struct {
	// Roots are the workspace folders (an editor sets them at initialize).
	Roots []string
	// Overlay is the editor's unsaved buffers; nil reads the disk.
	Overlay tools.Overlay
	// Applier lands edits in the editor's buffers; nil writes the disk.
	Applier tools.Applier
	// AskTrust is told when a language server's full form would run code
	// from an untrusted folder; nil logs it.
	AskTrust func(client.TrustRequest)
	// Terminals runs the bash tool's foreground commands in the person's
	// terminal (an ACP client's); nil runs them in agentls.
	Terminals tools.Terminals
}

// Env is one workspace as a front-end works on it: its folders, its
// language servers, its background jobs and its history, shared by the
// sessions made from it. Close it when the front-end ends.
type Env struct {
	app *App
	fe  Frontend
	ws  *tools.Workspace
	lsp *tools.LSPEnv

	mu      sync.Mutex
	shell   *tools.ShellEnv // made with the first session's tools
	st      *store.Store    // opened on first use
	stErr   error
	history *agent.History
	// cp takes the checkpoints (opened with the store; cpErr says why
	// not); cpCancel stops its first walk.
	cp       *checkpoint.Engine
	cpErr    error
	cpCancel context.CancelFunc
	trusted  []string // folders trusted during this environment's life
	// editorTrust: the editor trusts the workspace folders (SetEditorTrust).
	editorTrust EditorTrust
	editor      config.Config
	mcp         *mcp.Manager // made at the first session that names a server (mcp.go)
	// sandboxes confine every program the environment starts (sandbox.go).
	sandboxes envSandbox
}

// Open makes the environment for a front-end. Nothing is started: the
// store opens, the language servers start and the shell's job table is
// made when first needed.
func (a *App) Open(fe Frontend) (*Env, error) {
	ws, err := tools.NewWorkspace(fe.Roots, fe.Overlay)
	if err != nil {
		return nil, err
	}
	if fe.Applier != nil {
		ws.SetApplier(fe.Applier)
	}
	e := &Env{app: a, fe: fe, ws: ws}
	e.sandboxes.proxy = sandbox.NewProxy(sandbox.ProxyOptions{Log: a.log})
	e.lsp = tools.NewLSPEnv(ws, e.earlyLSPConfig, a.log)
	e.sweepPendingWrites()
	return e, nil
}

// sweepPendingWrites removes the temporary files that an agentls killed
// while writing left in a project, and has this environment's writes
// leave the markers that let the next one do the same (tools/pending.go).
func (e *Env) sweepPendingWrites() {
	dir := filepath.Join(e.StateDir(), "pending-writes")
	e.ws.SetPendingDir(dir)
	removed, err := tools.SweepPendingWrites(dir)
	for _, p := range removed {
		e.app.log.Info("removed the temporary file of a write an earlier agentls did not finish", "path", p)
	}
	if err != nil {
		e.app.log.Warn("sweep unfinished writes", "error", err)
	}
}

// Workspace is the environment's folders, read through the overlay.
func (e *Env) Workspace() *tools.Workspace { return e.ws }

// LSP is the environment's language servers.
func (e *Env) LSP() *tools.LSPEnv { return e.lsp }

// SetEditor records the editor's settings (initializationOptions), which
// the language servers use before the first session resolves everything.
func (e *Env) SetEditor(c config.Config) {
	e.mu.Lock()
	e.editor = c
	e.mu.Unlock()
}

// StateDir is where files kept for the user go (diffs, full outputs).
func (e *Env) StateDir() string {
	if d := e.app.opts.StateDir; d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "agentls")
}

// Close ends what the environment left running (background jobs,
// language servers, MCP servers) and closes the history database and the folders.
// Errors are logged: a front-end closing down has no one to tell. A step
// that takes longer than slowClose is logged with its time, so an editor
// waiting on agentls's exit has something to read.
func (e *Env) Close() {
	e.mu.Lock()
	shell, st, cp, cpCancel := e.shell, e.st, e.cp, e.cpCancel
	e.shell, e.st, e.history, e.cp = nil, nil, nil, nil
	e.mu.Unlock()
	e.closeStep("stop checkpoints", func() {
		if cpCancel != nil {
			cpCancel()
		}
		if cp != nil {
			cp.Close()
		}
	})
	e.closeStep("stop background jobs", func() {
		if shell != nil {
			if err := shell.Close(); err != nil {
				e.app.log.Warn("stop background jobs", "error", err)
			}
		}
	})
	e.closeStep("stop language servers", func() { e.lsp.Shutdown(context.Background()) })
	e.closeStep("stop MCP servers", e.closeMCP)
	e.closeStep("remove sandboxes", e.closeSandboxes)
	e.closeStep("close history", func() {
		if st != nil {
			if err := st.Close(); err != nil {
				e.app.log.Warn("close history", "error", err)
			}
		}
	})
	if err := e.ws.Close(); err != nil {
		e.app.log.Warn("close workspace folders", "error", err)
	}
}

// slowClose is how long one step of Close may take before it is logged.
const slowClose = 500 * time.Millisecond

func (e *Env) closeStep(what string, fn func()) {
	start := time.Now()
	fn()
	if d := time.Since(start); d > slowClose {
		e.app.log.Warn("slow to close", "step", what, "took", d.Round(time.Millisecond))
	}
}

// now is the time as the app tells it (Options.Now).
func (a *App) now() time.Time {
	if a.opts.Now != nil {
		return a.opts.Now()
	}
	return time.Now()
}

// Getenv reads agentls's environment as every part of the app does (a
// test's own function, else os.Getenv).
func (a *App) Getenv(name string) string { return a.opts.Getenv(name) }

// executable is the agentls program for `agentls exec`.
func (a *App) executable() (string, error) {
	if a.opts.Executable != "" {
		return a.opts.Executable, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the agentls program: %w", err)
	}
	return exe, nil
}
