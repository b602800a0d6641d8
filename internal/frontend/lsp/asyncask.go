package lsp

import (
	"context"

	"github.com/agentls/agentls/internal/permission"
)

// Asks for plugins that answer out of band (docs/protocol.md): a client
// declaring experimental.agentls.asyncAsk gets each question as the
// notification agentls/ask and answers with agentls.approve, so a picker
// that never returns cannot freeze it; agentls/askDone closes the prompt
// however the question ended.

// Methods of the out-of-band asks.
const (
	MethodAsk     = "agentls/ask"
	MethodAskDone = "agentls/askDone"
)

// askChoice is one answer on offer in agentls/ask and agentls/review.
type askChoice struct {
	Answer permission.Answer `json:"answer"`
	Title  string            `json:"title"`
}

// askParams are agentls/ask's params.
type askParams struct {
	ID         string      `json:"id"`
	SessionID  string      `json:"sessionId,omitempty"`
	Message    string      `json:"message"`
	Tool       string      `json:"tool"`
	Capability string      `json:"capability"`
	Warnings   []string    `json:"warnings,omitempty"`
	Diff       string      `json:"diff,omitempty"`
	Choices    []askChoice `json:"choices"`
}

// askDoneParams are agentls/askDone's params.
type askDoneParams struct {
	ID     string `json:"id"`
	Answer string `json:"answer,omitempty"`
	Reason string `json:"reason"` // answered, or closed (cancelled or timed out)
}

// choicesOf lists q's choices for the wire; grantsOnly keeps the grants.
func choicesOf(q permission.Question, grantsOnly bool) []askChoice {
	out := []askChoice{}
	for _, c := range q.Choices {
		if grantsOnly && c.Answer != permission.AnswerAllowSession && c.Answer != permission.AnswerAllowAlways {
			continue
		}
		out = append(out, askChoice{Answer: c.Answer, Title: c.Title})
	}
	return out
}

// askAsync sends q as agentls/ask and waits until agentls.approve (or a
// code action) resolves it through the gate, which cancels ctx, or the
// turn ends.
func (a editorAsker) askAsync(ctx context.Context, q permission.Question) (permission.Answer, error) {
	p := askParams{ID: q.ID, SessionID: q.Request.SessionID, Message: q.Message, Tool: q.Request.Tool,
		Capability: string(q.Request.Capability), Warnings: q.Warnings, Diff: q.Request.Diff, Choices: choicesOf(q, false)}
	defer a.s.askDone(q.ID)
	if err := a.s.conn.Notify(ctx, MethodAsk, p); err != nil {
		return "", err
	}
	<-ctx.Done()
	return "", ctx.Err()
}

// askDone tells the client a question it was sent out of band is over:
// answered through agentls.approve, or closed.
func (s *Server) askDone(id string) {
	s.mu.Lock()
	ans, answered := s.approved[id]
	delete(s.approved, id)
	s.mu.Unlock()
	p := askDoneParams{ID: id, Reason: "closed"}
	if answered {
		p.Answer, p.Reason = string(ans), "answered"
	}
	_ = s.conn.Notify(s.base, MethodAskDone, p)
}

// clientCaps returns what the client declared at initialize.
func (s *Server) clientCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}
