package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
	"github.com/agentls/agentls/internal/langserver/overlay"
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

// The person's save while a bash step runs (didSave) is not the step's:
// restoring to before the step keeps it and reports a conflict with both
// versions, and still undoes what the step did.
func TestSaveDuringAStepSurvivesARestore(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"bash","input":{"command":"echo a1 > agent.txt && sleep 2"}}]},
		{"text":"done"}]}`)
	ed, root := setup(t, map[string]string{"agent.txt": "a0\n", "mine.txt": "v0\n"}, prov, func(o *fake.Options) {
		o.Server.DataDir = t.TempDir()
		o.Server.ModeFlag = "auto"
	})
	mine := filepath.Join(root, "mine.txt")
	if err := ed.Open(ctx, mine, "v0\n"); err != nil {
		t.Fatal(err)
	}
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "run the tests"})
	for {
		if b, _ := os.ReadFile(filepath.Join(root, "agent.txt")); string(b) == "a1\n" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the step did not run")
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The person types and saves while the step still runs.
	if err := ed.Change(ctx, mine, fake.Edit{StartLine: 0, EndLine: 1, Text: "the person's work\n"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("the person's work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ed.Conn().Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": overlay.PathToURI(mine)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandCheckpoints, nil)
	if err != nil {
		t.Fatal(err)
	}
	var list lsp.CheckpointList
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Checkpoints) != 1 {
		t.Fatalf("checkpoints: %v %s", err, raw)
	}
	raw, err = ed.ExecuteCommand(ctx, lsp.CommandRestoreCheckpoint, lsp.CheckpointArgs{Checkpoint: list.Checkpoints[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "the person's work\n" {
		t.Errorf("mine.txt = %q: the person's save during the step was reverted (%s)", b, raw)
	}
	if got, _ := ed.Buffer(mine); got != "the person's work\n" {
		t.Errorf("mine.txt's buffer = %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "agent.txt")); string(b) != "a0\n" {
		t.Errorf("agent.txt = %q, want the step undone", b)
	}
	var r struct {
		Conflicts []struct{ Path string } `json:"conflicts"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Conflicts) != 1 || r.Conflicts[0].Path != mine {
		t.Errorf("restore: %v %s, want mine.txt's conflict", err, raw)
	}
}

// The didChange of the agent's own edit may come after the editor
// answered the applyEdit (Neovim debounces didChange), while the edit's
// step still runs (it waits for that didChange, for the language server's
// diagnostics): it is the agent's change, not the person's, so the step's
// checkpoint does not mark the file as holding the person's work, and a
// restore puts the buffer back without a conflict.
func TestLateDidChangeOfTheAgentsEditIsNotThePersons(t *testing.T) {
	requireGopls(t)
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"view","input":{"file_path":"a.go"}}]},
		{"tool_calls":[{"name":"edit","input":{"file_path":"a.go","old_string":"println(\"old\")","new_string":"println(\"new\")"}}]},
		{"text":"done"}]}`)
	ed, root := setup(t, map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", "a.go": tabbed}, prov, func(o *fake.Options) {
		o.Server.DataDir = t.TempDir()
		o.Server.ModeFlag = "auto"
		o.ChangeDelay = 150 * time.Millisecond
	})
	a := filepath.Join(root, "a.go")
	if err := ed.Open(ctx, a, tabbed); err != nil {
		t.Fatal(err)
	}
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "change"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	toolResult(t, evs, "edit")
	if got, _ := ed.Buffer(a); !strings.Contains(got, `"new"`) {
		t.Fatalf("edit did not land: %q", got)
	}
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandCheckpoints, nil)
	if err != nil {
		t.Fatal(err)
	}
	var list lsp.CheckpointList
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Checkpoints) != 1 {
		t.Fatalf("checkpoints: %v %s", err, raw)
	}
	raw, err = ed.ExecuteCommand(ctx, lsp.CommandRestoreCheckpoint, lsp.CheckpointArgs{Checkpoint: list.Checkpoints[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Restored  []string          `json:"restored"`
		Conflicts []json.RawMessage `json:"conflicts"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts) != 0 || len(rep.Restored) != 1 {
		t.Errorf("restore = %s, want a.go put back, no conflict", raw)
	}
	if got, _ := ed.Buffer(a); got != tabbed {
		t.Errorf("buffer after restore = %q", got)
	}
}
