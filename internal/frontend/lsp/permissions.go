package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
)

// CommandApprove answers a pending permission question from any client,
// for editors that cannot show window/showMessageRequest (Helix).
const CommandApprove = "agentls.approve"

// ApproveArgs is agentls.approve's argument: the question id (optional
// when one question is pending) and the answer: allow, allow_session,
// allow_always or deny.
type ApproveArgs struct {
	ID     string `json:"id,omitempty"`
	Answer string `json:"answer"`
}

// configTimeout bounds the workspace/configuration request.
const configTimeout = 5 * time.Second

// fetchConfiguration asks the client for its "agentls" settings section.
func (s *Server) fetchConfiguration() (config.Config, error) {
	ctx, cancel := context.WithTimeout(s.base, configTimeout)
	defer cancel()
	var res []json.RawMessage
	if _, err := s.conn.Call(ctx, "workspace/configuration", map[string]any{"items": []any{map[string]string{"section": "agentls"}}}, &res); err != nil {
		return config.Config{}, err
	}
	if len(res) == 0 || string(res[0]) == "null" || len(res[0]) == 0 {
		return config.Config{}, nil
	}
	var c config.Config
	if err := json.Unmarshal(res[0], &c); err != nil {
		return config.Config{}, fmt.Errorf("section agentls: %w", err)
	}
	return c, nil
}

// addPending and removePending track the questions waiting for an answer,
// offered as code actions and answerable with agentls.approve.
func (s *Server) addPending(q permission.Question) {
	s.mu.Lock()
	if s.pending == nil {
		s.pending = map[string]permission.Question{}
	}
	s.pending[q.ID] = q
	s.mu.Unlock()
}

func (s *Server) removePending(id string) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

func (s *Server) pendingQuestions() []permission.Question {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]permission.Question, 0, len(s.pending))
	for _, q := range s.pending {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// approve answers a pending question (agentls.approve).
func (s *Server) approve(a ApproveArgs) (any, error) {
	pend := s.pendingQuestions()
	id := a.ID
	if id == "" {
		if len(pend) != 1 {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%d questions are pending: give the \"id\" of the one to answer", len(pend))
		}
		id = pend[0].ID
	}
	var q *permission.Question
	for i := range pend {
		if pend[i].ID == id {
			q = &pend[i]
		}
	}
	if q == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no pending question %q (it may have been answered already)", id)
	}
	ans := permission.Answer(a.Answer)
	if q.Title(ans) == "" {
		var offered []string
		for _, c := range q.Choices {
			offered = append(offered, string(c.Answer))
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "answer %q is not offered for %s: use one of %v", a.Answer, id, offered)
	}
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	s.mu.Lock()
	if s.approved == nil {
		s.approved = map[string]permission.Answer{}
	}
	s.approved[id] = ans
	s.mu.Unlock()
	first := gate != nil && gate.Resolve(id, ans)
	if !first {
		s.mu.Lock()
		delete(s.approved, id)
		s.mu.Unlock()
	}
	return map[string]any{"id": id, "answered": first}, nil
}

// pendingActions offers each pending question's choices as code actions.
func (s *Server) pendingActions() []protocol.CodeAction {
	var out []protocol.CodeAction
	for _, q := range s.pendingQuestions() {
		for _, c := range q.Choices {
			out = append(out, protocol.CodeAction{
				Title: "agentls: " + c.Title + " — " + firstLine(q.Message, 80),
				Kind:  protocol.QuickFix,
				Command: &protocol.Command{Title: c.Title, Command: CommandApprove, Arguments: []any{
					map[string]string{"id": q.ID, "answer": string(c.Answer)},
				}},
			})
		}
	}
	return out
}
