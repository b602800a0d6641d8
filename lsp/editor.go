package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentls/agentls/lsp/overlay"
	"github.com/agentls/agentls/permission"
	"github.com/agentls/agentls/tools"
)

// Action titles of an ask, as the person sees them.
const (
	titleAllow    = "Allow"
	titleDeny     = "Deny"
	titleShowDiff = "Show diff"
)

// maxDiffShows bounds how often one ask may be re-asked after "Show diff".
const maxDiffShows = 5

// editorAsker asks the person through window/showMessageRequest.
type editorAsker struct{ s *Server }

// Ask implements permission.Asker. A dismissed prompt (null), an unknown
// title or a failed request is a deny. "Show diff" shows the edit's diff
// and asks again.
func (a editorAsker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	actions := []map[string]string{{"title": titleAllow}, {"title": titleDeny}}
	if q.Request.Diff != "" {
		actions = append(actions, map[string]string{"title": titleShowDiff})
	}
	for shown := 0; ; shown++ {
		title, err := a.request(ctx, q.Message, actions)
		if err != nil {
			return permission.AnswerDeny, err
		}
		switch {
		case title == titleAllow:
			return permission.AnswerAllow, nil
		case title == titleShowDiff && shown < maxDiffShows:
			a.s.showDiff(ctx, q.Request)
		default:
			return permission.AnswerDeny, nil
		}
	}
}

// request sends one showMessageRequest and returns the chosen title ("" for
// a dismissed prompt).
func (a editorAsker) request(ctx context.Context, msg string, actions []map[string]string) (string, error) {
	params := map[string]any{"type": 2, "message": msg, "actions": actions}
	var raw json.RawMessage
	if _, err := a.s.conn.Call(ctx, "window/showMessageRequest", params, &raw); err != nil {
		return "", fmt.Errorf("ask in the editor: %w", err)
	}
	if len(raw) == 0 {
		return "", nil
	}
	var item *struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(raw, &item); err != nil {
		return "", fmt.Errorf("editor answered the ask with %s: %w", raw, err)
	}
	if item == nil {
		return "", nil
	}
	return item.Title, nil
}

// showDiff shows an edit's unified diff: as a document when the client can
// show one, else in the log.
func (s *Server) showDiff(ctx context.Context, req permission.Request) {
	s.mu.Lock()
	canShow := s.caps.Window.ShowDocument != nil && s.caps.Window.ShowDocument.Support
	s.mu.Unlock()
	if canShow {
		dir := filepath.Join(s.stateDir(), "diffs")
		name := "edit-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ".diff"
		path := filepath.Join(dir, name)
		if err := tools.WriteFileAtomic(path, []byte(req.Diff), 0o600); err == nil {
			var res json.RawMessage
			_, err := s.conn.Call(ctx, "window/showDocument", map[string]any{"uri": overlay.PathToURI(path), "takeFocus": true}, &res)
			if err == nil {
				return
			}
			s.log.Warn("showDocument failed; diff goes to the log", "error", err)
		} else {
			s.log.Warn("write diff file", "error", err)
		}
	}
	s.logMessage(ctx, 3, "agentls: proposed change:\n"+req.Diff)
}

// stateDir is where files for the user go (diffs, full outputs).
func (s *Server) stateDir() string {
	if s.opts.StateDir != "" {
		return s.opts.StateDir
	}
	return filepath.Join(os.TempDir(), "agentls")
}
