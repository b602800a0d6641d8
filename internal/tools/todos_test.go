package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestTodos(t *testing.T) {
	tool := NewTodosTool()
	ctx := context.Background()
	in := `{"todos":[{"content":"Read the parser","status":"completed"},{"content":"Write the fix","status":"in_progress","active_form":"Writing the fix"},{"content":"Run the tests","status":"pending"}]}`
	req, err := tool.Describe(ctx, Call{Input: json.RawMessage(in)})
	if err != nil || req.Capability != "agent.todos" || !req.ReadOnly {
		t.Fatalf("Describe = %+v, %v", req, err)
	}
	res, err := tool.Run(ctx, Call{Input: json.RawMessage(in)})
	if err != nil || res.IsError || len(res.Todos) != 3 || res.Todos[1].ActiveForm != "Writing the fix" || !strings.Contains(res.Content, "1 of 3 done") {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if got := TodoProgress(res.Todos); got != "1/3: Writing the fix" {
		t.Errorf("TodoProgress = %q", got)
	}
	if got := FormatTodos(res.Todos); got != "[x] Read the parser\n[>] Write the fix\n[ ] Run the tests" {
		t.Errorf("FormatTodos = %q", got)
	}
	// An empty list clears the plan: a non-nil, empty list.
	res, _ = tool.Run(ctx, Call{Input: json.RawMessage(`{"todos":[]}`)})
	if res.IsError || res.Todos == nil || len(res.Todos) != 0 {
		t.Errorf("empty list = %+v", res)
	}
	if got := TodoProgress([]Todo{{Content: "a", Status: "in_progress"}, {Content: "b", Status: "pending"}}); got != "0/2: a" {
		t.Errorf("TodoProgress without an active form = %q", got)
	}

	for in, want := range map[string]string{
		`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`: "2 items are in_progress",
		`{"todos":[{"content":"  ","status":"pending"}]}`:                                           "item 1 has no content",
	} {
		res, err := tool.Run(ctx, Call{Input: json.RawMessage(in)})
		if err != nil || !res.IsError || !strings.Contains(res.Content, want) || res.Todos != nil {
			t.Errorf("Run(%s) = %+v, want an error naming %q", in, res, want)
		}
	}
}
