package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/config/trust"
	"github.com/agentls/agentls/internal/lsp/client"
	"github.com/agentls/agentls/internal/tools"
)

// The editor's side of workspace trust: language servers ask (through
// client.Config.AskTrust) when their full form would run code from an
// untrusted folder; the person is asked once per folder and session,
// "Trust this folder" writes the user config's trusted_workspaces and
// restarts the folder's servers in their full form, "Not now" is
// remembered until the editor disconnects.

// Titles of the trust question's actions.
const (
	titleTrust  = "Trust this folder"
	titleNotNow = "Not now"
)

// trustState is what one connection knows about trust beyond the user
// config file.
type trustState struct {
	mu sync.Mutex
	// added are folders trusted in this session, kept even when they
	// could not be saved.
	added []string
	// asked are the folders asked about (the question pending, or
	// answered "Not now"): each is asked once per session.
	asked map[string]bool
}

// trustEntries is the trusted_workspaces list now: the user config file as
// it is on disk (so `agentls trust` in a terminal counts at the next
// server start), else the one loaded at start, plus the folders trusted in
// this session.
func (s *Server) trustEntries() []string {
	entries := s.opts.Config.TrustedWorkspaces
	if s.opts.ConfigPath != "" {
		if c, err := config.Load(s.opts.ConfigPath); err == nil {
			entries = c.TrustedWorkspaces
		}
	}
	s.trust.mu.Lock()
	defer s.trust.mu.Unlock()
	return append(slices.Clone(entries), s.trust.added...)
}

// folderTrusted is client.Config.Trusted: the one trust rule over
// trustEntries.
func (s *Server) folderTrusted(folder string) bool {
	return trust.Trusted(folder, s.trustEntries())
}

// lspClientConfig is cfg's language-server configuration with this
// connection's trust: asked at every server start, and asking the person.
func (s *Server) lspClientConfig(cfg config.Config) client.Config {
	c := cfg.LSPConfig()
	c.Trusted = s.folderTrusted
	c.AskTrust = s.askTrust
	return c
}

// askTrust asks the person, once per folder and session, whether to trust
// the folder whose code a language server's full form would run.
func (s *Server) askTrust(req client.TrustRequest) {
	folder := filepath.Clean(req.Folder)
	s.trust.mu.Lock()
	if s.trust.asked == nil {
		s.trust.asked = map[string]bool{}
	}
	asked := s.trust.asked[folder]
	s.trust.asked[folder] = true
	s.trust.mu.Unlock()
	if asked || s.folderTrusted(folder) || s.base.Err() != nil {
		return
	}
	msg := fmt.Sprintf("agentls: %s starts code from this repository (%s): %s. Trust this folder? %s", req.Server, folder, req.Code, req.Meanwhile)
	title, err := editorAsker{s}.request(s.base, msg, []map[string]string{{"title": titleTrust}, {"title": titleNotNow}})
	var rpcErr *jsonrpc2.Error
	switch {
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound:
		s.showMessage(s.base, 2, msg+fmt.Sprintf("\nTo trust it, run `agentls trust %s` in a terminal, then restart the server (lsp_restart %s).", folder, req.Server))
	case err != nil:
		s.log.Warn("ask to trust a folder", "folder", folder, "error", err)
	case title == titleTrust:
		s.trustFolder(s.base, folder)
	default:
		s.log.Info("folder not trusted for this session", "folder", folder, "server", req.Server)
	}
}

// trustFolder trusts folder: saved in the user config's trusted_workspaces
// (for this session only when that fails, which the person is told), then
// the folder's language servers restart in their full form and the
// documents open in it are synced again.
func (s *Server) trustFolder(ctx context.Context, folder string) {
	entry, err := trust.Entry(folder, false)
	if err != nil {
		s.showMessage(ctx, 1, "agentls: "+err.Error())
		return
	}
	saved := ""
	if s.opts.ConfigPath != "" {
		_, err = config.UpdateTrust(s.opts.ConfigPath, func(list []string) []string {
			if trust.Trusted(entry, list) {
				return list
			}
			return append(list, entry)
		}, tools.WriteFileAtomic)
		if err != nil {
			s.showMessage(ctx, 2, fmt.Sprintf("agentls: %s is trusted for this session only: %v", folder, err))
		} else {
			saved = " (saved in " + s.opts.ConfigPath + ")"
		}
	}
	s.trust.mu.Lock()
	s.trust.added = append(s.trust.added, entry)
	s.trust.mu.Unlock()
	if m, err := s.lsp.Manager(); err == nil {
		if err := m.Retrust(ctx, folder); err != nil {
			s.log.Warn("restart language servers after trusting a folder", "folder", folder, "error", err)
		}
	}
	for _, p := range s.docs.Paths() {
		if rel, err := filepath.Rel(folder, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			s.lsp.Touch(p)
		}
	}
	s.showMessage(ctx, 3, fmt.Sprintf("agentls: trusted %s%s: its language servers now run in their full form. Its .agentls.json may loosen permissions and run hooks from the next session on; `agentls untrust %s` takes the trust back.", folder, saved, folder))
}
