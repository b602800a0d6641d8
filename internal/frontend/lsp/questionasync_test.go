package lsp_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// A plugin declaring asyncQuestion gets the agent's questions as the
// notification agentls/askQuestion (never a request that holds the
// editor) and answers with agentls.answer: free text, choices, or a
// dismissal; each question is closed with agentls/askDone, and its id is
// not the same as another server process's.
func TestQuestionAsync(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"question","input":{"question":"What should the table be called?"}}]},
		{"tool_calls":[{"name":"question","input":{"question":"Which checks?","options":["vet","lint","race"],"multi":true}}]},
		{"tool_calls":[{"name":"question","input":{"question":"Which store?","options":["sqlite","postgres"]}}]},
		{"tool_calls":[{"name":"question","input":{"question":"Anything else?"}}]},
		{"text":"done"}]}`)
	ed, _ := setup(t, nil, prov, func(o *fake.Options) {
		o.Plugin = true
		o.AsyncQuestion = func(q fake.AsyncQuestion) (string, []string) {
			switch q.Question {
			case "What should the table be called?":
				return "call it kv", nil
			case "Which checks?":
				return "", []string{"vet", "race"}
			case "Which store?":
				return "a file, no database", nil // free text for an option question
			}
			return "", nil
		}
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "add storage"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ed.Questions()) != 0 || len(ed.Asks()) != 0 {
		t.Errorf("a request was used: agentls/question %+v, showMessageRequest %+v", ed.Questions(), ed.Asks())
	}
	qs := ed.AsyncQuestions()
	if len(qs) != 4 || !qs[1].Multi || strings.Join(qs[1].Options, ",") != "vet,lint,race" || qs[0].Options == nil {
		t.Fatalf("agentls/askQuestion = %+v, want the four questions with their options ([] for none)", qs)
	}
	want := []string{"The person answered: call it kv", "The person chose: vet; race", "The person answered: a file, no database",
		"No answer: the person dismissed the question"}
	got := toolResults(evs)
	for i := range want {
		if i >= len(got) || !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("tool results = %q, want %q", got, want)
			break
		}
	}
	done := map[string]string{}
	for _, d := range ed.AskDones() {
		done[d.ID] = d.Reason
	}
	for _, q := range qs {
		if !strings.HasPrefix(q.ID, "question-") || done[q.ID] != "answered" {
			t.Errorf("question %q: askDone reason %q, want an id question-… closed as answered", q.ID, done[q.ID])
		}
	}
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandAnswer, lsp.AnswerArgs{ID: qs[0].ID, Answer: "late"}); err == nil ||
		!strings.Contains(err.Error(), "no open question") {
		t.Errorf("a late agentls.answer = %v, want refused: no open question", err)
	}
}
