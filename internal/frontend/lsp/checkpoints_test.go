package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// agentls.restoreCheckpoint puts an open buffer back through applyEdit
// (the editor's undo can take it back) and a file on disk back on disk;
// undo brings the turn's changes again the same ways.
func TestRestoreCheckpointThroughTheEditor(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"view","input":{"file_path":"a.go"}}]},
		{"tool_calls":[{"name":"edit","input":{"file_path":"a.go","old_string":"println(\"old\")","new_string":"println(\"new\")"}}]},
		{"tool_calls":[{"name":"bash","input":{"command":"echo made > c.txt"}}]},
		{"text":"done"}]}`)
	ed, root := setup(t, map[string]string{"a.go": tabbed}, prov, func(o *fake.Options) {
		o.Server.DataDir = t.TempDir()
		o.Server.ModeFlag = "auto"
	})
	a := filepath.Join(root, "a.go")
	if err := ed.Open(ctx, a, tabbed); err != nil {
		t.Fatal(err)
	}
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "change"})
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	if got, _ := ed.Buffer(a); !strings.Contains(got, `"new"`) {
		t.Fatalf("edit did not land: %q", got)
	}
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandCheckpoints, nil)
	if err != nil {
		t.Fatal(err)
	}
	var list lsp.CheckpointList
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Checkpoints) != 2 || list.Checkpoints[0].Tool != "edit" || list.Checkpoints[1].Tool != "bash" {
		t.Fatalf("checkpoints: %v %s", err, raw)
	}
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandRestoreCheckpoint, lsp.CheckpointArgs{Checkpoint: list.Checkpoints[0].ID}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ed.Buffer(a); got != tabbed {
		t.Errorf("buffer after restore = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt after restore: %v", err)
	}
	if n := len(ed.Applied()); n != 2 {
		t.Errorf("applyEdit calls = %d, want 2 (the edit and the restore)", n)
	}
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandRestoreCheckpoint, lsp.CheckpointArgs{Undo: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ed.Buffer(a); !strings.Contains(got, `"new"`) {
		t.Errorf("buffer after undo = %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "c.txt")); string(b) != "made\n" {
		t.Errorf("c.txt after undo = %q", b)
	}
	if n := len(ed.Applied()); n != 3 {
		t.Errorf("applyEdit calls = %d, want 3", n)
	}
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandRestoreCheckpoint, lsp.CheckpointArgs{Checkpoint: 1, What: "sideways"}); err == nil {
		t.Error("what: sideways was accepted")
	}
}
