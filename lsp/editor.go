package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/permission"
)

// Action titles of an ask, as the person sees them.
const (
	titleAllow = "Allow"
	titleDeny  = "Deny"
)

// editorAsker asks the person through window/showMessageRequest.
type editorAsker struct{ s *Server }

// Ask implements permission.Asker. A dismissed prompt (null), an unknown
// title or a failed request is a deny.
func (a editorAsker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	params := map[string]any{
		"type":    2, // Warning
		"message": q.Message,
		"actions": []map[string]string{{"title": titleAllow}, {"title": titleDeny}},
	}
	var raw json.RawMessage
	if _, err := a.s.conn.Call(ctx, "window/showMessageRequest", params, &raw); err != nil {
		return permission.AnswerDeny, fmt.Errorf("ask in the editor: %w", err)
	}
	if len(raw) == 0 {
		return permission.AnswerDeny, nil
	}
	var item *struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(raw, &item); err != nil {
		return permission.AnswerDeny, fmt.Errorf("editor answered the ask with %s: %w", raw, err)
	}
	if item != nil && item.Title == titleAllow {
		return permission.AnswerAllow, nil
	}
	return permission.AnswerDeny, nil
}
