package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentls/agentls/internal/textclip"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// titleShowDiff is the extra action of an edit's ask.
const titleShowDiff = "Show diff"

// maxDiffShows bounds how often one ask may be re-asked after "Show diff".
const maxDiffShows = 5

// editorAsker asks the person through window/showMessageRequest.
type editorAsker struct{ s *Server }

// Ask implements permission.Asker: the gate's choices are the actions,
// plus "Show diff" for edits, which shows the diff and asks again. A
// dismissed prompt or an unknown title is a dismissal (deny). A client
// that does not implement showMessageRequest (Helix) is told with
// window/showMessage how to answer: the question stays pending, offered
// as code actions and answerable with agentls.approve, until the gate's
// ask timeout.
func (a editorAsker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	a.s.addPending(q)
	defer a.s.removePending(q.ID)
	if a.s.clientCaps().Experimental.Agentls.AsyncAsk {
		return a.askAsync(ctx, q)
	}
	actions := make([]map[string]string, 0, len(q.Choices)+1)
	for _, c := range q.Choices {
		actions = append(actions, map[string]string{"title": c.Title})
	}
	if q.Request.Diff != "" {
		actions = append(actions, map[string]string{"title": titleShowDiff})
	}
	msg := q.Message
	for shown := 0; ; shown++ {
		title, err := a.request(ctx, msg, actions)
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound {
			return a.outOfBand(ctx, q)
		}
		if err != nil {
			return "", err
		}
		if title == titleShowDiff && shown < maxDiffShows {
			if !a.s.showDiff(ctx, q.Request) {
				// No document to show it in: the diff goes into the
				// question itself, so the person sees it either way.
				msg = q.Message + "\n\n" + clip(q.Request.Diff, maxDiffInMessage)
			}
			continue
		}
		for _, c := range q.Choices {
			if c.Title == title {
				return c.Answer, nil
			}
		}
		return "", nil // dismissed
	}
}

// outOfBand tells a client without showMessageRequest how to answer, then
// waits: agentls.approve (or a code action) resolves the question through
// the gate, which then cancels ctx.
func (a editorAsker) outOfBand(ctx context.Context, q permission.Question) (permission.Answer, error) {
	var opts []string
	for _, c := range q.Choices {
		opts = append(opts, string(c.Answer))
	}
	a.s.showMessage(ctx, 2, fmt.Sprintf("agentls is waiting for your answer: %s\nAnswer with a code action (\"agentls: Allow …\") or the command agentls.approve {\"id\": %q, \"answer\": one of %v}.", q.Message, q.ID, opts))
	<-ctx.Done()
	return "", ctx.Err()
}

// request sends one showMessageRequest and returns the chosen title ("" for
// a dismissed prompt).
func (a editorAsker) request(ctx context.Context, msg string, actions []map[string]string) (string, error) {
	params := map[string]any{"type": 2, "message": msg, "actions": actions}
	var raw json.RawMessage
	id, err := a.s.conn.Call(ctx, "window/showMessageRequest", params, &raw)
	if err != nil {
		if ctx.Err() != nil {
			// jsonrpc2 does not tell the client; without this the prompt
			// would stay on screen after the turn was cancelled.
			_ = a.s.conn.Notify(context.WithoutCancel(ctx), "$/cancelRequest", map[string]any{"id": &id})
		}
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

// maxDiffInMessage bounds a diff shown inside a question.
const maxDiffInMessage = 4000

// clip cuts s to at most n bytes at a line end, marking the cut.
func clip(s string, n int) string {
	return textclip.Line(s, n, "\n… (diff cut; the full diff is in the log)")
}

// showDiff shows an edit's unified diff as a document when the client can
// show one, and reports whether it did; the diff also goes to the log.
func (s *Server) showDiff(ctx context.Context, req permission.Request) bool {
	s.mu.Lock()
	canShow := s.caps.Window.ShowDocument != nil && s.caps.Window.ShowDocument.Support
	s.mu.Unlock()
	s.logMessage(ctx, 3, "agentls: proposed change:\n"+req.Diff)
	if !canShow {
		return false
	}
	dir := filepath.Join(s.env.StateDir(), "diffs")
	path := filepath.Join(dir, "edit-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".diff")
	if err := tools.WriteFileAtomic(path, []byte(req.Diff), 0o600); err != nil {
		s.log.Warn("write diff file", "error", err)
		return false
	}
	var res struct {
		Success bool `json:"success"`
	}
	if _, err := s.conn.Call(ctx, "window/showDocument", map[string]any{"uri": overlay.PathToURI(path), "takeFocus": true}, &res); err != nil || !res.Success {
		s.log.Warn("showDocument failed; the diff goes into the question", "error", err)
		return false
	}
	return true
}
