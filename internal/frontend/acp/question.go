package acp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/tools"
)

// questioner puts the question tool's questions to the person as an
// elicitation form (elicitation/create, mode form; ACP's unstable
// elicitation), for clients that declare elicitation.form: one field,
// "answer" — a choice of the options (several when the question allows
// it), or free text. Clients without it get no question tool: a
// permission request is not a question (an auto-approving client would
// answer it by policy).
type questioner struct{ ss *session }

// answerField is the form's one field.
const answerField = "answer"

// Question implements tools.Questioner.
func (q questioner) Question(ctx context.Context, qu tools.Question) (tools.Reply, error) {
	title := "Answer"
	var field map[string]any
	switch {
	case len(qu.Options) > 0 && qu.Multi:
		field = map[string]any{"type": "array", "title": title, "items": map[string]any{"type": "string", "enum": qu.Options}, "uniqueItems": true}
	case len(qu.Options) > 0:
		field = map[string]any{"type": "string", "title": title, "enum": qu.Options}
	default:
		field = map[string]any{"type": "string", "title": title}
	}
	req := sdk.UnstableCreateElicitationRequest{Form: &sdk.UnstableCreateElicitationForm{
		Mode: "form", Message: qu.Text,
		Meta: map[string]any{"sessionId": q.ss.id},
		RequestedSchema: sdk.UnstableElicitationSchema{
			Type: "object", Properties: map[string]any{answerField: field}, Required: []string{answerField},
		},
	}}
	resp, err := q.ss.srv.conn.UnstableCreateElicitation(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Reply{}, ctx.Err()
		}
		return tools.Reply{}, fmt.Errorf("elicitation/create: %w", err)
	}
	if resp.Accept == nil {
		return tools.Reply{}, nil // declined or cancelled: no answer
	}
	return replyOf(resp.Accept.Content[answerField], qu)
}

// replyOf reads the form's answer: options must be the question's own.
func replyOf(v any, qu tools.Question) (tools.Reply, error) {
	var got []string
	switch a := v.(type) {
	case string:
		if len(qu.Options) == 0 {
			return tools.Reply{Text: a}, nil
		}
		got = []string{a}
	case []any:
		for _, x := range a {
			s, ok := x.(string)
			if !ok {
				return tools.Reply{}, errors.New("elicitation/create: the answer list holds a value that is not text")
			}
			got = append(got, s)
		}
	case nil:
		return tools.Reply{}, nil
	default:
		return tools.Reply{}, fmt.Errorf("elicitation/create: the answer is a %T, not text", v)
	}
	for _, s := range got {
		if !slices.Contains(qu.Options, s) {
			return tools.Reply{}, fmt.Errorf("elicitation/create: %q is not one of the options", s)
		}
	}
	if len(got) > 1 && !qu.Multi {
		return tools.Reply{}, errors.New("elicitation/create: several answers to a question of one")
	}
	return tools.Reply{Chosen: got}, nil
}
