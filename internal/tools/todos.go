package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed todos.md
var todosDescription string

type todosInput struct {
	Todos []Todo `json:"todos" jsonschema:"The whole list, in order."`
}

var todosSchema = schemaFor[todosInput]()

// TodosTool replaces the session's todo list: the plan the person sees
// and the agent keeps through compaction. It only changes the session's
// own state, so it is allowed by default (capability agent.todos).
type TodosTool struct{}

// NewTodosTool returns the todos tool.
func NewTodosTool() TodosTool { return TodosTool{} }

// Spec describes todos.
func (TodosTool) Spec() Spec {
	return Spec{Name: "todos", Description: todosDescription, Schema: todosSchema().JSON,
		Capability: "agent.todos", Action: permission.ActionWrite, ReadOnly: true}
}

func (TodosTool) parse(call Call) ([]Todo, error) {
	var in todosInput
	if err := todosSchema().decode(call, "todos", &in); err != nil {
		return nil, err
	}
	active := 0
	for i, t := range in.Todos {
		if strings.TrimSpace(t.Content) == "" {
			return nil, fmt.Errorf("todos: item %d has no content", i+1)
		}
		if t.Status == "in_progress" {
			active++
		}
	}
	if active > 1 {
		return nil, fmt.Errorf("todos: %d items are in_progress; keep one in progress at a time", active)
	}
	if in.Todos == nil {
		in.Todos = []Todo{}
	}
	return in.Todos, nil
}

// Describe validates the list.
func (t TodosTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	list, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return permission.Request{Tool: "todos", Capability: "agent.todos", Action: permission.ActionWrite, ReadOnly: true,
		Summary: fmt.Sprintf("agentls updates its plan (%d items)", len(list))}, nil
}

// Run returns the new list for the session to keep.
func (t TodosTool) Run(_ context.Context, call Call) (Result, error) {
	list, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	done := 0
	for _, it := range list {
		if it.Status == "completed" {
			done++
		}
	}
	return Result{Content: fmt.Sprintf("Todo list updated: %d of %d done.", done, len(list)), Todos: list}, nil
}

// TodoProgress is a one-line account of a list for progress reports:
// "2/5: writing the fix" (the item in progress, by its active form).
func TodoProgress(list []Todo) string {
	done, current := 0, ""
	for _, t := range list {
		switch t.Status {
		case "completed":
			done++
		case "in_progress":
			current = t.ActiveForm
			if current == "" {
				current = t.Content
			}
		}
	}
	s := fmt.Sprintf("%d/%d", done, len(list))
	if current != "" {
		s += ": " + current
	}
	return s
}

// FormatTodos renders a list for the model (after a compaction) and
// transcripts.
func FormatTodos(list []Todo) string {
	var b strings.Builder
	for _, t := range list {
		mark := "[ ]"
		switch t.Status {
		case "completed":
			mark = "[x]"
		case "in_progress":
			mark = "[>]"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, t.Content)
	}
	return strings.TrimRight(b.String(), "\n")
}
