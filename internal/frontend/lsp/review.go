package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentls/agentls/internal/frontend/lsp/hunks"
	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// Review before apply (docs/protocol.md): a client declaring
// experimental.agentls.review gets a change to one file that must be
// asked about as the request agentls/review, with its hunks; the person
// accepts some, all or none, or edits the result. What they accept comes
// back to the gate as a permission.Revision, which the file tool writes.

// MethodReview is the review request.
const MethodReview = "agentls/review"

// reviewParams are agentls/review's params.
type reviewParams struct {
	askParams
	URI      string       `json:"uri"`
	Path     string       `json:"path"`
	Exists   bool         `json:"exists"`
	Original string       `json:"original"`
	Proposed string       `json:"proposed"`
	Hunks    []hunks.Hunk `json:"hunks"`
}

// reviewResult is the client's answer; null means deny.
type reviewResult struct {
	Accept *[]int            `json:"accept"`
	Text   *string           `json:"text"`
	Answer permission.Answer `json:"answer"`
}

// Review implements permission.Reviewer: agentls/review for clients that
// take it, the plain ask otherwise.
func (a editorAsker) Review(ctx context.Context, q permission.Question) (permission.Answer, *permission.Revision, error) {
	ch := q.Request.Change
	if ch == nil || !a.s.clientCaps().Experimental.Agentls.Review {
		ans, err := a.Ask(ctx, q)
		return ans, nil, err
	}
	a.s.addPending(q)
	defer a.s.removePending(q.ID)
	defer a.s.askDone(q.ID)
	hs := hunks.Split(ch.Old, ch.New)
	p := reviewParams{
		askParams: askParams{ID: q.ID, SessionID: q.Request.SessionID, Message: q.Message, Tool: q.Request.Tool,
			Capability: string(q.Request.Capability), Warnings: q.Warnings, Diff: q.Request.Diff, Choices: choicesOf(q, true)},
		URI: overlay.PathToURI(ch.Path), Path: a.s.ws.Rel(ch.Path), Exists: ch.Exists,
		Original: ch.Old, Proposed: ch.New, Hunks: hs,
	}
	var raw json.RawMessage
	id, err := a.s.conn.Call(ctx, MethodReview, p, &raw)
	if err != nil {
		if ctx.Err() != nil {
			_ = a.s.conn.Notify(context.WithoutCancel(ctx), "$/cancelRequest", map[string]any{"id": &id})
		}
		return "", nil, fmt.Errorf("review in the editor: %w", err)
	}
	var res *reviewResult
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &res); err != nil {
			return "", nil, fmt.Errorf("the editor answered %s with %s: %w", MethodReview, raw, err)
		}
	}
	return judgeReview(q, hs, res)
}

// judgeReview turns the client's answer into the gate's answer and, when
// the person did not take the change as proposed, the revision to write.
func judgeReview(q permission.Question, hs []hunks.Hunk, res *reviewResult) (permission.Answer, *permission.Revision, error) {
	ch := q.Request.Change
	switch {
	case res == nil, res.Answer == permission.AnswerDeny:
		return permission.AnswerDeny, nil, nil
	case res.Text != nil:
		switch *res.Text {
		case ch.New:
			return permission.AnswerAllow, nil, nil
		case ch.Old:
			return permission.AnswerDeny, nil, nil // nothing left to apply
		}
		diff, _, _ := tools.UnifiedDiff("your proposal → what was written", ch.New, *res.Text)
		return permission.AnswerAllow, &permission.Revision{Old: ch.Old, Text: *res.Text,
			Note: "The person edited your change before it was applied; what was written differs from your proposal by:\n" + diff}, nil
	case res.Accept == nil:
		return "", nil, fmt.Errorf("the editor's %s answer has neither accept nor text", MethodReview)
	}
	accept := slices.Compact(slices.Sorted(slices.Values(*res.Accept)))
	if len(accept) == 0 {
		return permission.AnswerDeny, nil, nil
	}
	text, rejected, err := hunks.Apply(ch.Old, ch.New, accept)
	if err != nil {
		return "", nil, fmt.Errorf("the editor's %s answer: %w", MethodReview, err)
	}
	if len(rejected) == 0 {
		ans := permission.AnswerAllow
		if res.Answer != "" && res.Answer != permission.AnswerAllow && q.Title(res.Answer) != "" {
			ans = res.Answer // a grant, offered and chosen with every hunk
		}
		return ans, nil, nil
	}
	var ids []string
	for _, id := range accept {
		ids = append(ids, strconv.Itoa(id))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The person reviewed this change and applied only hunk(s) %s of %d. These were rejected and not applied (do not apply them again unless the person asks):\n",
		strings.Join(ids, ", "), len(hs))
	for _, h := range rejected {
		fmt.Fprintf(&b, "Hunk %d:\n%s", h.ID, h.Diff)
	}
	return permission.AnswerAllow, &permission.Revision{Old: ch.Old, Text: text, Note: strings.TrimRight(b.String(), "\n")}, nil
}
