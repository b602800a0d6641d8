package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// A change that must be asked about carries its whole proposal (for a
// review), and a person's revision is what gets written — unless the file
// moved on while they reviewed it.
func TestEditWritesTheRevision(t *testing.T) {
	ws, root := newTestWS(t, nil)
	path := filepath.Join(root, "a.txt")
	writeFiles(t, root, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	callTool(t, NewViewTool(ws), map[string]any{"file_path": "a.txt"})
	edit := NewMultiEditTool(ws)
	in, _ := json.Marshal(map[string]any{"file_path": "a.txt", "edits": []map[string]string{
		{"old_string": "one", "new_string": "ONE"}, {"old_string": "three", "new_string": "THREE"}}})
	req, err := edit.Describe(context.Background(), Call{ID: "c1", Input: in})
	if err != nil {
		t.Fatal(err)
	}
	if c := req.Change; c == nil || c.Path != path || c.Old != "one\ntwo\nthree\n" || c.New != "ONE\ntwo\nTHREE\n" || !c.Exists {
		t.Fatalf("Change = %+v", req.Change)
	}
	rev := &permission.Revision{Old: "one\ntwo\nthree\n", Text: "ONE\ntwo\nthree\n", Note: "Hunk 2 was rejected."}
	res, err := edit.Run(context.Background(), Call{ID: "c1", Input: in, Revised: rev})
	if err != nil || res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(path); string(b) != rev.Text {
		t.Errorf("file = %q, want the revision", b)
	}
	if !strings.Contains(res.Content, "(+1 −1)") || !strings.Contains(res.Content, "Hunk 2 was rejected.") || !strings.Contains(res.Diff, "+ONE") || strings.Contains(res.Diff, "THREE") {
		t.Errorf("result = %+v", res)
	}

	// The file changed after the review started: nothing is written.
	callTool(t, NewViewTool(ws), map[string]any{"file_path": "a.txt"})
	in2, _ := json.Marshal(map[string]any{"file_path": "a.txt", "edits": []map[string]string{{"old_string": "two", "new_string": "TWO"}}})
	stale := &permission.Revision{Old: "what the person saw\n", Text: "ONE\nTWO\nthree\n"}
	res, _ = edit.Run(context.Background(), Call{ID: "c2", Input: in2, Revised: stale})
	if !res.IsError || !strings.Contains(res.Content, "changed while the person reviewed") {
		t.Errorf("stale revision = %+v", res)
	}
	if b, _ := os.ReadFile(path); string(b) != rev.Text {
		t.Errorf("file = %q after a stale revision, want it untouched", b)
	}
}
