package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed question.md
var questionDescription string

type questionInput struct {
	Question string   `json:"question" jsonschema:"The question, one sentence."`
	Options  []string `json:"options,omitempty" jsonschema:"The answers to choose from, if the answer is a choice."`
	Multi    bool     `json:"multi,omitempty" jsonschema:"true: several options may be chosen."`
}

var questionSchema = schemaFor[questionInput]()

// Question is what the person is asked.
type Question struct {
	Text    string
	Options []string
	Multi   bool
}

// Reply is the person's answer: the options chosen, or free text. Empty
// means they did not answer (dismissed, or the editor cannot take free
// text).
type Reply struct {
	Chosen []string
	Text   string
}

// Questioner reaches the person: the editor implements it
// (window/showMessageRequest, or the plugins' free-text prompt).
type Questioner interface {
	Question(ctx context.Context, q Question) (Reply, error)
}

// DefaultQuestionTimeout bounds how long a question waits for the person,
// as a permission ask does.
const DefaultQuestionTimeout = permission.DefaultAskTimeout

// QuestionTool asks the person a structured question. It is offered only
// where a person can answer (an editor session), never headless nor to a
// subagent.
type QuestionTool struct {
	q       Questioner
	timeout time.Duration
}

// NewQuestionTool returns the question tool asking through q; timeout 0
// means DefaultQuestionTimeout.
func NewQuestionTool(q Questioner, timeout time.Duration) *QuestionTool {
	if timeout <= 0 {
		timeout = DefaultQuestionTimeout
	}
	return &QuestionTool{q: q, timeout: timeout}
}

// Spec describes question: capability agent.question, allowed by default.
func (t *QuestionTool) Spec() Spec {
	return Spec{Name: "question", Description: questionDescription, Schema: questionSchema().JSON,
		Capability: "agent.question", Action: permission.ActionRead, ReadOnly: true}
}

func (t *QuestionTool) parse(call Call) (questionInput, error) {
	var in questionInput
	if err := questionSchema().decode(call, "question", &in); err != nil {
		return in, err
	}
	if strings.TrimSpace(in.Question) == "" {
		return in, errors.New("question: the question is empty")
	}
	if len(in.Options) > 8 {
		return in, fmt.Errorf("question: %d options; offer at most 8", len(in.Options))
	}
	return in, nil
}

// Describe validates the question.
func (t *QuestionTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return permission.Request{Tool: "question", Capability: "agent.question", Action: permission.ActionRead, ReadOnly: true,
		Summary: "agentls asks: " + in.Question}, nil
}

// Run asks and returns the answer, or "no answer".
func (t *QuestionTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	rep, err := t.q.Question(ctx, Question{Text: in.Question, Options: in.Options, Multi: in.Multi})
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Result{Content: fmt.Sprintf("No answer: the person did not answer within %s. Go on with your best judgement and say what you assumed.", t.timeout)}, nil
	case err != nil && ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return Result{Content: "No answer: the question could not be shown (" + err.Error() + "). Go on with your best judgement and say what you assumed."}, nil
	}
	switch {
	case len(rep.Chosen) > 0:
		return Result{Content: "The person chose: " + strings.Join(rep.Chosen, "; ")}, nil
	case strings.TrimSpace(rep.Text) != "":
		return Result{Content: "The person answered: " + rep.Text}, nil
	}
	return Result{Content: "No answer: the person dismissed the question. Go on with your best judgement and say what you assumed."}, nil
}
