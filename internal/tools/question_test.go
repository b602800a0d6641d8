package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// questionerFunc adapts a function to Questioner.
type questionerFunc func(ctx context.Context, q Question) (Reply, error)

func (f questionerFunc) Question(ctx context.Context, q Question) (Reply, error) { return f(ctx, q) }

func TestQuestion(t *testing.T) {
	ctx := context.Background()
	var asked Question
	reply := func(r Reply, err error) Questioner {
		return questionerFunc(func(_ context.Context, q Question) (Reply, error) { asked = q; return r, err })
	}
	tests := []struct {
		name string
		q    Questioner
		want string
	}{
		{"chosen", reply(Reply{Chosen: []string{"sqlite"}}, nil), "The person chose: sqlite"},
		{"several chosen", reply(Reply{Chosen: []string{"a", "b"}}, nil), "The person chose: a; b"},
		{"free text", reply(Reply{Text: "use postgres"}, nil), "The person answered: use postgres"},
		{"dismissed", reply(Reply{}, nil), "No answer: the person dismissed the question"},
		{"cannot be shown", reply(Reply{}, errors.New("the editor refused")), "No answer: the question could not be shown (the editor refused)"},
	}
	for _, tt := range tests {
		res, err := NewQuestionTool(tt.q, 0).Run(ctx, Call{Input: json.RawMessage(`{"question":"Which store?","options":["sqlite","postgres"],"multi":true}`)})
		if err != nil || res.IsError || !strings.HasPrefix(res.Content, tt.want) {
			t.Errorf("%s: %+v, %v, want %q", tt.name, res, err, tt.want)
		}
	}
	if asked.Text != "Which store?" || strings.Join(asked.Options, ",") != "sqlite,postgres" || !asked.Multi {
		t.Errorf("asked %+v", asked)
	}

	// Nobody answers: the timeout gives "no answer", as an ask does.
	wait := questionerFunc(func(ctx context.Context, _ Question) (Reply, error) { <-ctx.Done(); return Reply{}, ctx.Err() })
	res, err := NewQuestionTool(wait, 20*time.Millisecond).Run(ctx, Call{Input: json.RawMessage(`{"question":"q"}`)})
	if err != nil || !strings.Contains(res.Content, "did not answer within 20ms") {
		t.Errorf("timeout: %+v, %v", res, err)
	}
	// The turn is cancelled: the error goes back, not an answer.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewQuestionTool(wait, time.Minute).Run(cctx, Call{Input: json.RawMessage(`{"question":"q"}`)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}

	for in, want := range map[string]string{
		`{"question":"  "}`: "the question is empty",
		`{"question":"q","options":["1","2","3","4","5","6","7","8","9"]}`: "offer at most 8",
	} {
		if _, err := NewQuestionTool(wait, 0).Describe(ctx, Call{Input: json.RawMessage(in)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Describe(%s) = %v, want %q", in, err, want)
		}
	}
}

func TestAgentTool(t *testing.T) {
	ctx := context.Background()
	in := json.RawMessage(`{"prompt":"Find where the config is read","description":"find config"}`)
	req, err := NewAgentTool().Describe(ctx, Call{Input: in})
	if err != nil || req.Capability != "agent.subagent" || req.Summary != "agentls starts a subagent: find config" {
		t.Fatalf("Describe = %+v, %v", req, err)
	}
	// Inside a subagent there is no Subagent runner: no nesting.
	if res, _ := NewAgentTool().Run(ctx, Call{Input: in}); !res.IsError || !strings.Contains(res.Content, "cannot start subagents") {
		t.Errorf("nested = %+v", res)
	}
	var gotPrompt string
	run := func(_ context.Context, prompt, _ string) (string, error) {
		gotPrompt = prompt
		return "config.go:12", nil
	}
	res, err := NewAgentTool().Run(ctx, Call{Input: in, Subagent: run})
	if err != nil || res.IsError || !strings.Contains(res.Content, "config.go:12") || gotPrompt != "Find where the config is read" {
		t.Errorf("Run = %+v, %v (prompt %q)", res, err, gotPrompt)
	}
	fail := func(context.Context, string, string) (string, error) { return "", errors.New("provider down") }
	if res, _ := NewAgentTool().Run(ctx, Call{Input: in, Subagent: fail}); !res.IsError || !strings.Contains(res.Content, "provider down") {
		t.Errorf("failing subagent = %+v", res)
	}
}
