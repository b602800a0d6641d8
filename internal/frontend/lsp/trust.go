package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/langserver/client"
)

// The editor's side of workspace trust: language servers ask (through
// client.Config.AskTrust) when their full form would run code from an
// untrusted folder; the person is asked once per folder and session,
// "Trust this folder" writes the user config's trusted_workspaces and
// restarts the folder's servers in their full form, "Not now" is
// remembered until the editor disconnects.

//
// An editor with a trust of its own (VS Code's Workspace Trust) says so in
// capabilities.experimental.agentls.workspaceTrust, so the person answers
// one trust question, the editor's: "trusted" lets the workspace's
// language servers run in their full form without asking (this
// connection only; .agentls.json still needs agentls's own trust, as it
// may loosen permissions), "restricted" (Restricted Mode) keeps them in
// their safe form without asking.

// The editor's workspace trust values.
const (
	editorTrusted    = "trusted"
	editorRestricted = "restricted"
)

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
	if asked || s.env.Trusted(folder) || s.base.Err() != nil {
		return
	}
	s.mu.Lock()
	restricted := s.caps.Experimental.Agentls.WorkspaceTrust == editorRestricted
	s.mu.Unlock()
	if restricted {
		s.log.Info("language server runs in its safe form: the editor is in Restricted Mode", "folder", folder, "server", req.Server)
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

// trustFolder trusts folder (the environment saves it and restarts its
// language servers), syncs the documents open in it again and tells the
// person.
func (s *Server) trustFolder(ctx context.Context, folder string) {
	savedIn, err := s.env.Trust(ctx, folder)
	saved := ""
	switch {
	case errors.Is(err, app.ErrTrustNotSaved):
		s.showMessage(ctx, 2, "agentls: "+err.Error())
	case err != nil:
		s.showMessage(ctx, 1, "agentls: "+err.Error())
		return
	case savedIn != "":
		saved = " (saved in " + savedIn + ")"
	}
	for _, p := range s.docs.Paths() {
		if rel, err := filepath.Rel(folder, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			s.lsp.Touch(p)
		}
	}
	s.showMessage(ctx, 3, fmt.Sprintf("agentls: trusted %s%s: its language servers now run in their full form. Its .agentls.json may loosen permissions and run hooks from the next session on; `agentls untrust %s` takes the trust back.", folder, saved, folder))
}
