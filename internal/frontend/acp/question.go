package acp

import (
	"bytes"
	"context"
	"encoding/json"
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
		// The session scope goes at the top of the params (scopeElicitation).
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

// scopeElicitation gives an elicitation/create request the session scope
// ACP's schema requires at the top of its params (sessionId; the
// official TypeScript client refuses the request without it): the Go
// SDK's form has no field for it, so the questioner puts the session in
// _meta and the line is rewritten here on its way out (wire.Write). Any
// other line is returned as it is.
func scopeElicitation(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"`+sdk.ClientMethodElicitationCreate+`"`)) {
		return line
	}
	var msg map[string]json.RawMessage
	var method string
	var params map[string]json.RawMessage
	var meta struct {
		SessionID json.RawMessage `json:"sessionId"`
	}
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["method"], &method) != nil || method != sdk.ClientMethodElicitationCreate ||
		json.Unmarshal(msg["params"], &params) != nil || params["sessionId"] != nil ||
		json.Unmarshal(params["_meta"], &meta) != nil || len(meta.SessionID) == 0 {
		return line
	}
	params["sessionId"] = meta.SessionID
	p, err := json.Marshal(params)
	if err != nil {
		return line
	}
	msg["params"] = p
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	if bytes.HasSuffix(line, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}
