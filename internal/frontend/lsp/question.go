package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentls/agentls/internal/tools"
)

// MethodQuestion is agentls's request asking a client with the agentls
// plugin a question that may take free text (docs/protocol.md). Clients
// announce support with capabilities.experimental.agentls.question.
const MethodQuestion = "agentls/question"

// errNoFreeText is why a question without options gets no answer from a
// plain client.
var errNoFreeText = errors.New("this editor can only offer choices, and the question has none")

// editorQuestioner asks the person the agent's questions: through the
// plugins' agentls/question (free text too), else as
// window/showMessageRequest with the options as actions.
type editorQuestioner struct{ s *Server }

// Question implements tools.Questioner.
func (q editorQuestioner) Question(ctx context.Context, qu tools.Question) (tools.Reply, error) {
	caps := q.s.clientCaps().Experimental.Agentls
	if caps.AsyncQuestion {
		return q.questionAsync(ctx, qu)
	}
	if caps.Question {
		var res struct {
			Answer *string  `json:"answer"`
			Chosen []string `json:"chosen"`
		}
		params := map[string]any{"question": qu.Text, "options": qu.Options, "multi": qu.Multi}
		if _, err := q.s.conn.Call(ctx, MethodQuestion, params, &res); err != nil {
			return tools.Reply{}, fmt.Errorf("%s: %w", MethodQuestion, err)
		}
		rep := tools.Reply{Chosen: res.Chosen}
		if res.Answer != nil {
			rep.Text = *res.Answer
		}
		return rep, nil
	}
	if len(qu.Options) == 0 {
		return tools.Reply{}, errNoFreeText
	}
	actions := make([]map[string]string, len(qu.Options))
	for i, o := range qu.Options {
		actions[i] = map[string]string{"title": o}
	}
	msg := "agentls asks: " + qu.Text
	if qu.Multi {
		msg += " (this editor takes one choice)"
	}
	title, err := editorAsker{q.s}.request(ctx, msg, actions)
	if err != nil {
		return tools.Reply{}, err
	}
	if title == "" || !slices.Contains(qu.Options, title) {
		return tools.Reply{}, nil // dismissed
	}
	return tools.Reply{Chosen: []string{title}}, nil
}
