package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/config/trust"
	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/tools"
)

// TrustEntries is the trusted_workspaces list now: the user config file as
// it is on disk (so `agentls trust` in a terminal counts at the next
// server start), else the one loaded at start, plus the folders trusted
// during this environment's life.
func (e *Env) TrustEntries() []string {
	o := e.app.opts
	entries := o.Config.TrustedWorkspaces
	if o.ConfigPath != "" {
		if c, err := config.Load(o.ConfigPath); err == nil {
			entries = c.TrustedWorkspaces
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return append(slices.Clone(entries), e.trusted...)
}

// Trusted reports whether folder is trusted, by the one trust rule.
func (e *Env) Trusted(folder string) bool { return trust.Trusted(folder, e.TrustEntries()) }

// EditorTrust is the editor's own trust of the workspace folders (VS
// Code's Workspace Trust), for editors that have one.
type EditorTrust int

// The editor's trust: unknown (the editor has none, or did not say),
// trusted, or Restricted Mode.
const (
	EditorTrustUnknown EditorTrust = iota
	EditorTrusted
	EditorRestricted
)

// restrictedNoAlways is why "Always allow" is not offered while the editor
// keeps the folder in Restricted Mode.
const restrictedNoAlways = "the editor keeps this folder in Restricted Mode; trust the folder in the editor to keep grants"

// SetEditorTrust records the editor's own trust of the workspace folders.
// Trusted lets their language servers run in their full form without
// agentls asking; it loosens nothing else (.agentls.json still needs
// agentls's trust). Restricted (VS Code's Restricted Mode) means the person
// has not trusted the folder: sessions made after this offer no "Always
// allow", which would remember a grant for a folder the person keeps at
// arm's length.
func (e *Env) SetEditorTrust(t EditorTrust) {
	e.mu.Lock()
	e.editorTrust = t
	e.mu.Unlock()
}

// langServerTrusted is whether a language server may run folder's own
// code: agentls's trust, or the editor's for a folder in the workspace.
func (e *Env) langServerTrusted(folder string) bool {
	if e.Trusted(folder) {
		return true
	}
	e.mu.Lock()
	editor := e.editorTrust
	e.mu.Unlock()
	if editor != EditorTrusted {
		return false
	}
	// The trust rule's own comparison (cleaned, links resolved): a link in
	// the workspace to a folder outside it is not covered.
	var roots []string
	for _, r := range e.ws.Roots() {
		roots = append(roots, r+trust.Subfolders)
	}
	return trust.Trusted(folder, roots)
}

// ErrTrustNotSaved marks a trust kept for this environment only: the user
// config file could not be written.
var ErrTrustNotSaved = errors.New("not saved in the config file")

// Trust trusts folder: saved in the user config's trusted_workspaces
// (where is returned; "" when there is no config file) and for this
// environment even when saving fails (the error says so), then its
// language servers restart in their full form.
func (e *Env) Trust(ctx context.Context, folder string) (savedIn string, err error) {
	entry, err := trust.Entry(folder, false)
	if err != nil {
		return "", err
	}
	var saveErr error
	if p := e.app.opts.ConfigPath; p != "" {
		_, saveErr = config.UpdateTrust(p, func(list []string) []string {
			if trust.Trusted(entry, list) {
				return list
			}
			return append(list, entry)
		}, tools.WriteFileAtomic)
		if saveErr == nil {
			savedIn = p
		}
	}
	e.mu.Lock()
	e.trusted = append(e.trusted, entry)
	e.mu.Unlock()
	if m, err := e.lsp.Manager(); err == nil {
		if err := m.Retrust(ctx, folder); err != nil {
			e.app.log.Warn("restart language servers after trusting a folder", "folder", folder, "error", err)
		}
	}
	if saveErr != nil {
		return "", fmt.Errorf("%s is trusted for this session only (%w): %v", folder, ErrTrustNotSaved, saveErr)
	}
	return savedIn, nil
}

// LSPConfig is cfg's language-server configuration with this
// environment's trust: asked at every server start, and telling the
// front-end when a server's full form would run the repository's code.
func (e *Env) LSPConfig(cfg config.Config) client.Config {
	c := client.Config{Servers: make(map[string]config.ServerConfig, len(cfg.LSP))}
	for name, sc := range cfg.LSP {
		sc.Name = name
		c.Servers[name] = sc
	}
	if cfg.AutoLSP != nil {
		auto := *cfg.AutoLSP
		c.AutoLSP = &auto
	}
	c.Trusted = e.langServerTrusted
	c.Sandbox = e.Sandbox()
	c.AskTrust = e.fe.AskTrust
	if c.AskTrust == nil {
		c.AskTrust = func(r client.TrustRequest) {
			e.app.log.Info("language server runs in its safe form: the folder is not trusted",
				"server", r.Server, "folder", r.Folder, "code", r.Code)
		}
	}
	return c
}

// earlyLSPConfig is the language servers' configuration when a file is
// touched before a session exists: the user file, the editor's settings
// and the trusted workspace files (an untrusted one cannot name a program
// to run). NewSession refines it with everything the front-end resolved.
func (e *Env) earlyLSPConfig() client.Config {
	e.mu.Lock()
	editor := e.editor
	e.mu.Unlock()
	o := e.app.opts
	wsCfgs, _ := config.LoadWorkspaces(e.ws.Roots())
	cfg, _, err := config.Resolve(o.Config, editor, config.Flags{}, wsCfgs, e.TrustEntries())
	if err != nil {
		e.app.log.Warn("language servers: settings do not resolve; using the user config file's lsp entries only", "error", err)
		return e.LSPConfig(o.Config)
	}
	return e.LSPConfig(cfg)
}
