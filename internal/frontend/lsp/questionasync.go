package lsp

import (
	"context"
	"crypto/rand"
	"strconv"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/tools"
)

// The agent's questions out of band (docs/protocol.md), for plugins
// declaring experimental.agentls.asyncQuestion: the question arrives as
// the notification agentls/askQuestion, the plugin shows it without
// holding the editor (so typing meant for a buffer never answers it) and
// answers with the command agentls.answer; agentls/askDone closes it
// however it ended.

// MethodAskQuestion is the notification carrying an agent's question.
const MethodAskQuestion = "agentls/askQuestion"

// CommandAnswer answers a question sent as agentls/askQuestion.
const CommandAnswer = "agentls.answer"

// AnswerArgs is agentls.answer's argument: the question's id and the
// typed answer or the options chosen; neither dismisses the question.
type AnswerArgs struct {
	ID     string   `json:"id"`
	Answer string   `json:"answer,omitempty"`
	Chosen []string `json:"chosen,omitempty"`
}

// askQuestionParams are agentls/askQuestion's params.
type askQuestionParams struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Multi    bool     `json:"multi"`
}

// openQuestions are the questions waiting for agentls.answer.
type openQuestions struct {
	prefix  string // unique per server process, like the asks' ids
	next    uint64
	waiting map[string]chan tools.Reply
}

// questionAsync sends qu as agentls/askQuestion and waits for
// agentls.answer or the end of ctx (the turn was cancelled).
func (q editorQuestioner) questionAsync(ctx context.Context, qu tools.Question) (tools.Reply, error) {
	s := q.s
	ch := make(chan tools.Reply, 1)
	s.mu.Lock()
	if s.questions.waiting == nil {
		s.questions = openQuestions{prefix: "question-" + rand.Text()[:8] + "-", waiting: map[string]chan tools.Reply{}}
	}
	s.questions.next++
	id := s.questions.prefix + strconv.FormatUint(s.questions.next, 10)
	s.questions.waiting[id] = ch
	s.mu.Unlock()
	answered := false
	defer func() {
		s.mu.Lock()
		delete(s.questions.waiting, id)
		s.mu.Unlock()
		p := askDoneParams{ID: id, Reason: "closed"}
		if answered {
			p.Reason = "answered"
		}
		_ = s.conn.Notify(s.base, MethodAskDone, p)
	}()
	opts := qu.Options
	if opts == nil {
		opts = []string{}
	}
	if err := s.conn.Notify(ctx, MethodAskQuestion, askQuestionParams{ID: id, Question: qu.Text, Options: opts, Multi: qu.Multi}); err != nil {
		return tools.Reply{}, err
	}
	select {
	case r := <-ch:
		answered = true
		return r, nil
	case <-ctx.Done():
		return tools.Reply{}, ctx.Err()
	}
}

// answer answers an open question (agentls.answer).
func (s *Server) answer(a AnswerArgs) (any, error) {
	s.mu.Lock()
	ch, ok := s.questions.waiting[a.ID]
	delete(s.questions.waiting, a.ID)
	s.mu.Unlock()
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no open question %q (it was answered, or its turn ended)", a.ID)
	}
	ch <- tools.Reply{Text: a.Answer, Chosen: a.Chosen}
	return map[string]any{"id": a.ID, "answered": true}, nil
}
