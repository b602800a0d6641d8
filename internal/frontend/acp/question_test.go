package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/tools"
)

// TestQuestionThroughElicitation: a client that declares elicitation.form
// gets the question tool; its question arrives as a form whose one field
// is a choice of the options, and the person's choice reaches the model.
// A client without it is not offered the tool.
func TestQuestionThroughElicitation(t *testing.T) {
	root := workspace(t, map[string]string{})
	steps := `{"turns":[{"text":"","tool_calls":[{"name":"question","input":{"question":"Which database?","options":["sqlite","postgres"]}}]},{"text":"ok"}]}`
	for _, elicit := range []bool{true, false} {
		ed := newFakeEditor()
		ed.onElicit = func(r sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse {
			return sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"answer": "postgres"}}}
		}
		in, out := serve(t, testApp(t, script(t, steps)))
		c := sdk.NewClientSideConnection(ed, in, out)
		c.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
		caps := sdk.ClientCapabilities{}
		if elicit {
			caps.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		if _, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
			t.Fatal(err)
		}
		cancel()
		id := newSession(t, c, root)
		if _, err := prompt(c, id, sdk.TextBlock("set it up")); err != nil {
			t.Fatal(err)
		}
		ed.mu.Lock()
		result := ""
		for _, u := range ed.updates {
			if tu := u.Update.ToolCallUpdate; tu != nil && len(tu.Content) > 0 && tu.Content[len(tu.Content)-1].Content != nil {
				result = tu.Content[len(tu.Content)-1].Content.Content.Text.Text
			}
		}
		elicits := ed.elicits
		ed.mu.Unlock()
		if !elicit {
			if len(elicits) != 0 || !strings.Contains(result, "question") {
				t.Errorf("without elicitation: %d forms, result %q; want no form and the tool unknown", len(elicits), result)
			}
			continue
		}
		if len(elicits) != 1 || elicits[0].Form == nil || elicits[0].Form.Message != "Which database?" {
			t.Fatalf("forms %+v, want one asking the question", elicits)
		}
		field, _ := elicits[0].Form.RequestedSchema.Properties["answer"].(map[string]any)
		if enum, _ := field["enum"].([]any); len(enum) != 2 || enum[0] != "sqlite" || enum[1] != "postgres" {
			t.Errorf("the answer field %+v, want a choice of the options", field)
		}
		if result != "The person chose: postgres" {
			t.Errorf("tool result %q", result)
		}
	}
}

// TestReplyOf: the form's answer is taken only as the question allows.
func TestReplyOf(t *testing.T) {
	choice := tools.Question{Options: []string{"a", "b"}}
	multi := tools.Question{Options: []string{"a", "b"}, Multi: true}
	free := tools.Question{}
	for _, c := range []struct {
		v       any
		q       tools.Question
		want    string
		wantErr string
	}{
		{"b", choice, "chosen [b]", ""},
		{"c", choice, "", "not one of the options"},
		{[]any{"a", "b"}, multi, "chosen [a b]", ""},
		{[]any{"a", "b"}, choice, "", "several answers"},
		{[]any{"a", 3.0}, multi, "", "not text"},
		{"anything at all", free, "text anything at all", ""},
		{nil, choice, "none", ""},
		{42.0, free, "", "not text"},
	} {
		r, err := replyOf(c.v, c.q)
		got := "none"
		switch {
		case len(r.Chosen) > 0:
			got = "chosen [" + strings.Join(r.Chosen, " ") + "]"
		case r.Text != "":
			got = "text " + r.Text
		}
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("replyOf(%v) error %v, want %q", c.v, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("replyOf(%v) = %s, %v; want %s", c.v, got, err, c.want)
		}
	}
}

// TestScopeElicitation: the form request goes out with its session at the
// top of its params, as ACP's schema (and the official TypeScript client)
// requires; every other line, one that only mentions the method among
// them, goes out as it is.
func TestScopeElicitation(t *testing.T) {
	params, err := json.Marshal(sdk.UnstableCreateElicitationRequest{Form: &sdk.UnstableCreateElicitationForm{
		Mode: "form", Message: "Which database?", Meta: map[string]any{"sessionId": "sess-1"},
		RequestedSchema: sdk.UnstableElicitationSchema{Type: "object", Properties: map[string]any{"answer": map[string]any{"type": "string"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":` + string(params) + "}\n")
	out := scopeElicitation(line)
	var msg struct {
		ID     int    `json:"id"`
		Method string `json:"method"`
		Params struct {
			SessionID string `json:"sessionId"`
			Mode      string `json:"mode"`
			Message   string `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(out, &msg); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if msg.ID != 7 || msg.Method != "elicitation/create" || msg.Params.SessionID != "sess-1" || msg.Params.Mode != "form" || msg.Params.Message != "Which database?" {
		t.Errorf("rewritten: %s", out)
	}
	if !bytes.HasSuffix(out, []byte("}\n")) || bytes.Count(out, []byte("\n")) != 1 {
		t.Errorf("the line %q does not end with one newline", out)
	}
	for _, same := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"text":"\"elicitation/create\"","_meta":{"sessionId":"x"}}}}` + "\n",
		`{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"sessionId":"s","mode":"form","_meta":{"sessionId":"x"}}}` + "\n",
		`{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"mode":"form"}}` + "\n",
	} {
		if got := scopeElicitation([]byte(same)); string(got) != same {
			t.Errorf("%s was rewritten to %s", same, got)
		}
	}
}
