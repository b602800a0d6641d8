package tools

// LSPEnv binds a Workspace to its language servers for the lsp_* tools:
// the servers (lsp/client.Servers) read files through the workspace, as
// the agent sees them (editor buffers first), and follow the editor's
// buffers through a batching forwarder (lsp/docsync).

import (
	"context"
	"hash/maphash"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/langserver/docsync"
)

const (
	// lspTouchDelay batches an editor's keystrokes into one sync.
	lspTouchDelay = 50 * time.Millisecond
	// lspFlushWait bounds how long a tool waits for the editor's pending
	// changes to reach the servers.
	lspFlushWait = 5 * time.Second
)

// LSPEnv is the set of language servers behind the lsp_* tools for one
// workspace, started on first use, fed by the editor (Touch, Closed) and
// by the agent's own writes. Close it with Shutdown.
type LSPEnv struct {
	ws      *Workspace
	servers *client.Servers
	editor  *docsync.Forwarder
}

// NewLSPEnv returns the language servers for ws. cfg is called once, when
// the first server is needed (nil: built-in servers only); log may be nil.
// Nothing starts until a file is used. The workspace's editing tools then
// report the servers' fresh diagnostics after every change.
func NewLSPEnv(ws *Workspace, cfg func() client.Config, log *slog.Logger) *LSPEnv {
	servers := client.NewServers(lspDocuments{ws: ws, seed: maphash.MakeSeed()}, cfg, log)
	e := &LSPEnv{ws: ws, servers: servers, editor: docsync.New(servers.SyncEditor, lspTouchDelay)}
	ws.setAfterChange(e.afterChange)
	return e
}

// LSPTools returns the lsp_* tools over env.
func LSPTools(env *LSPEnv) []Tool {
	return []Tool{
		NewLSPDiagnosticsTool(env), NewLSPReferencesTool(env), NewLSPDefinitionTool(env), NewLSPSymbolsTool(env),
		NewLSPCallHierarchyTool(env), NewLSPRenameTool(env), NewLSPReplaceSymbolTool(env), NewLSPRestartTool(env),
	}
}

// Configure sets the configuration. Before the first server starts it
// just replaces the one cfg would give; afterwards a different
// configuration stops the running servers, which restart on next use with
// the editor's open documents.
func (e *LSPEnv) Configure(cfg client.Config) {
	if e.servers.Configure(cfg) {
		e.editor.Resync()
	}
}

// Manager returns the client.Manager, creating it on first use.
func (e *LSPEnv) Manager() (*client.Manager, error) { return e.servers.Manager() }

// Shutdown stops the editor's forwarding and every server.
func (e *LSPEnv) Shutdown(ctx context.Context) {
	e.editor.Stop()
	e.servers.Shutdown(ctx)
}

// StartShared starts the program the person named with `agentls serve
// --wrap` in folder, under the servers' trust rules and sandbox
// (client.Servers.StartShared).
func (e *LSPEnv) StartShared(ctx context.Context, argv []string, folder string) (*client.SharedProcess, error) {
	return e.servers.StartShared(ctx, argv, folder)
}

// Running returns the language server for a file when one runs now,
// never starting one (client.Manager.Running).
func (e *LSPEnv) Running(abs string) (*client.Client, bool) {
	m, err := e.Manager()
	if err != nil {
		return nil, false
	}
	return m.Running(abs)
}

// Share makes the lsp_* tools use the server shared with the editor for
// its files instead of starting their own.
func (e *LSPEnv) Share(sh client.Shared) { e.servers.Share(sh) }

// Touch tells the servers that the editor opened or changed path: the
// servers for its type start if needed and get its text, shortly and in
// the background. Files outside the workspace folders are ignored.
func (e *LSPEnv) Touch(path string) {
	path = filepath.Clean(path)
	if e.ws.Root(path) == "" {
		return
	}
	e.editor.Changed(path)
}

// Closed tells the servers that the editor closed path.
func (e *LSPEnv) Closed(path string) { e.editor.Closed(filepath.Clean(path)) }

// flush waits (a bounded time) until the editor's queued changes have
// reached the servers, so a request sees what the person sees.
func (e *LSPEnv) flush(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, lspFlushWait)
	defer cancel()
	e.editor.Flush(ctx)
}

// clientFor returns the server for a file, after the editor's pending
// changes reached the servers.
func (e *LSPEnv) clientFor(ctx context.Context, abs string) (*client.Client, error) {
	m, err := e.Manager()
	if err != nil {
		return nil, err
	}
	e.flush(ctx)
	return m.ClientFor(ctx, abs)
}

// discoverClients returns every server for the workspace, starting those
// for the languages its files are in, for the queries that name no file.
func (e *LSPEnv) discoverClients(ctx context.Context) ([]*client.Client, error) {
	e.flush(ctx)
	return e.servers.Discover(ctx, e.walkFiles)
}

// walkFiles lists a workspace folder for discovery, skipping what the
// file tools skip.
func (e *LSPEnv) walkFiles(ctx context.Context, root string, visit func(path string, dir bool) bool) {
	_, _ = e.ws.walk(ctx, root, nil, func(we walkEntry) walkAction {
		if !visit(we.abs, we.isDir) {
			return walkStop
		}
		return walkContinue
	})
}

// isOpen reports whether abs is open in the editor.
func (e *LSPEnv) isOpen(abs string) bool {
	if ov := e.ws.overlay; ov != nil {
		_, ok := ov.Document(abs)
		return ok
	}
	return false
}

// lspDocuments is what the servers read: the workspace's files as the
// agent sees them (editor buffers first). It implements client.Workspace
// and client.Stamper.
type lspDocuments struct {
	ws   *Workspace
	seed maphash.Seed
}

// Roots are the workspace folders.
func (d lspDocuments) Roots() []string { return d.ws.Roots() }

// ReadFile reads the editor's buffer, else the disk, as the agent does.
func (d lspDocuments) ReadFile(path string) (string, bool, error) {
	f, err := d.ws.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	return f.Text, f.Open, nil
}

// Stamp identifies a buffer by version, length and a hash (a reopened
// buffer starts at version 1 again), a disk file by size and mtime.
func (d lspDocuments) Stamp(path string) (client.Stamp, error) {
	if ov := d.ws.overlay; ov != nil {
		if doc, ok := ov.Document(filepath.Clean(path)); ok {
			return client.Stamp{InEditor: true, Version: doc.Version, Size: int64(len(doc.Text)), ModTime: int64(maphash.String(d.seed, doc.Text))}, nil
		}
	}
	return client.DiskStamp(path)
}

// Coverage lists the workspace's source languages and the server that
// would answer for each, as the configuration stands, starting nothing
// (client.Servers.Coverage): where the lsp_* tools work.
func (e *LSPEnv) Coverage(ctx context.Context) []client.LanguageServer {
	return e.servers.Coverage(ctx, e.walkFiles)
}
