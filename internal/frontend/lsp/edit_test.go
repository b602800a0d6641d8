package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

const tabbed = "package main\n\nfunc main() {\n\tif true {\n\t\tprintln(\"old\")\n\t}\n}\n"

// editScript views a.go then edits it with spaces where the file has tabs.
const editScript = `{"turns":[
	{"tool_calls":[{"name":"view","input":{"file_path":"a.go"}}]},
	{"tool_calls":[{"name":"edit","input":{"file_path":"a.go","old_string":"    if true {\n        println(\"old\")\n    }","new_string":"    if true {\n        println(\"new\")\n    }"}}]},
	{"text":"changed it"}]}`

func resultsOf(evs []agent.Event, name string) []agent.Event {
	var out []agent.Event
	for _, e := range evs {
		if e.Type == agent.EventToolResult && e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func TestEditLandsInBufferKeepingUnsavedChange(t *testing.T) {
	ctx := ctxT(t)
	var asked []fake.Ask
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, editScript), func(o *fake.Options) {
		o.Answer = func(msg string, actions []string) string {
			asked = append(asked, fake.Ask{Message: msg, Actions: actions})
			if len(asked) == 1 {
				return "Show diff"
			}
			return "Allow"
		}
	})
	path := filepath.Join(root, "a.go")
	if err := ed.Open(ctx, path, tabbed); err != nil {
		t.Fatal(err)
	}
	// An unsaved change elsewhere: "package main" → "package main // mine".
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 0, StartChar: 12, EndLine: 0, EndChar: 12, Text: " // mine"}); err != nil {
		t.Fatal(err)
	}
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "say new"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	want := "package main // mine\n\nfunc main() {\n\tif true {\n\t\tprintln(\"new\")\n\t}\n}\n"
	if got, _ := ed.Buffer(path); got != want {
		t.Errorf("buffer =\n%s\nwant\n%s", got, want)
	}
	if disk, _ := os.ReadFile(path); string(disk) != tabbed {
		t.Errorf("disk changed while the file is open in the editor:\n%s", disk)
	}
	if len(asked) != 2 || asked[0].Message != "agentls wants to edit a.go (+1 −1)" ||
		strings.Join(asked[0].Actions, ",") != "Allow,Allow edits in the workspace root this session,Deny,Show diff" {
		t.Errorf("asks = %+v", asked)
	}
	applied := ed.Applied()
	if len(applied) != 1 || !strings.Contains(string(applied[0]), `"version":2`) || !strings.Contains(string(applied[0]), `"label":"agentls: edit a.go"`) {
		t.Errorf("applyEdit params = %s", applied)
	}
	edits := resultsOf(evs, "edit")
	if len(edits) != 1 || *edits[0].IsError || !strings.Contains(*edits[0].Content, "whitespace") ||
		!strings.Contains(edits[0].Diff, "-\t\tprintln(\"old\")\n+\t\tprintln(\"new\")") {
		t.Errorf("edit result = %+v", edits)
	}
}

func TestEditDeniedLeavesBuffer(t *testing.T) {
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, editScript), func(o *fake.Options) {
		o.Answer = func(string, []string) string { return "Deny" }
	})
	path := filepath.Join(root, "a.go")
	if err := ed.Open(ctx, path, tabbed); err != nil {
		t.Fatal(err)
	}
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "say new"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := ed.Buffer(path); got != tabbed || len(ed.Applied()) != 0 {
		t.Errorf("denied edit changed the buffer: %q, applied %d", got, len(ed.Applied()))
	}
	if r := evs[len(evs)-1].Reason; r != agent.ReasonDenied {
		t.Errorf("turn ended %q, want denied", r)
	}
}

// A file not open in the editor is written to disk atomically, keeping
// its mode.
func TestEditClosedFileGoesToDisk(t *testing.T) {
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, editScript), nil)
	path := filepath.Join(root, "a.go")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "say new"})
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	disk, _ := os.ReadFile(path)
	if !strings.Contains(string(disk), "\t\tprintln(\"new\")") {
		t.Errorf("disk = %q", disk)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode())
	}
	if len(ed.Applied()) != 0 {
		t.Errorf("applyEdit sent for a closed file")
	}
}

func TestEditNeedsARead(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"edit","input":{"file_path":"a.go","old_string":"old","new_string":"new"}}]},
		{"text":"x"}]}`)
	ed, root := setup(t, map[string]string{"a.go": tabbed}, prov, nil)
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "go"})
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	r := resultsOf(evs, "edit")
	if len(r) != 1 || !strings.Contains(*r[0].Content, "view it first") {
		t.Errorf("edit without a read: %+v", r)
	}
	if len(ed.Asks()) != 0 {
		t.Errorf("asked about an edit that cannot run")
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "a.go")); string(disk) != tabbed {
		t.Errorf("disk changed")
	}
}

// Disk and buffer: with the agentls plugin and a clean buffer, the editor
// saves after the edit, so disk holds the agent's text; with the person's
// own unsaved changes in the buffer, or a plain client, nothing is saved.
func TestEditSavesOnlyCleanBuffersThroughPlugin(t *testing.T) {
	want := "package main\n\nfunc main() {\n\tif true {\n\t\tprintln(\"new\")\n\t}\n}\n"
	for _, tc := range []struct {
		name       string
		plugin     bool
		dirty      bool
		wantSaved  bool
		resultText string
	}{
		{"plugin, clean buffer", true, false, true, "the editor saved it"},
		{"plugin, unsaved user change", true, true, false, "user's own unsaved changes"},
		{"plain client", false, false, false, "no agentls plugin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, editScript), func(o *fake.Options) { o.Plugin = tc.plugin })
			path := filepath.Join(root, "a.go")
			if err := ed.Open(ctx, path, tabbed); err != nil {
				t.Fatal(err)
			}
			if tc.dirty {
				if err := ed.Change(ctx, path, fake.Edit{StartLine: 0, StartChar: 12, EndLine: 0, EndChar: 12, Text: " // mine"}); err != nil {
					t.Fatal(err)
				}
			}
			res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "say new"})
			evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
			if err != nil {
				t.Fatal(err)
			}
			disk, _ := os.ReadFile(path)
			if saved := string(disk) == want; saved != tc.wantSaved {
				t.Errorf("disk = %q (saved %v, want %v)", disk, saved, tc.wantSaved)
			}
			if !tc.wantSaved && string(disk) != tabbed {
				t.Errorf("disk changed without a save: %q", disk)
			}
			if n := len(ed.Saves()); (n == 1) != tc.wantSaved {
				t.Errorf("save requests = %v", ed.Saves())
			}
			r := resultsOf(evs, "edit")
			if len(r) != 1 || !strings.Contains(*r[0].Content, tc.resultText) {
				t.Errorf("edit result = %+v", r)
			}
		})
	}
}

// agentls.revertTurn restores the buffer the turn changed, through
// applyEdit, and the file on disk the turn wrote.
func TestRevertTurnRestoresBufferAndDisk(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"view","input":{"file_path":"a.go"}},{"name":"view","input":{"file_path":"b.go"}}]},
		{"tool_calls":[
			{"name":"edit","input":{"file_path":"a.go","old_string":"println(\"old\")","new_string":"println(\"new\")"}},
			{"name":"edit","input":{"file_path":"b.go","old_string":"package b","new_string":"package bee"}}]},
		{"text":"done"}]}`)
	ed, root := setup(t, map[string]string{"a.go": tabbed, "b.go": "package b\n"}, prov, func(o *fake.Options) {
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
	if disk, _ := os.ReadFile(filepath.Join(root, "b.go")); string(disk) != "package bee\n" {
		t.Fatalf("b.go = %q", disk)
	}
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandRevertTurn, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), res.TurnID) {
		t.Errorf("revert result %s does not name the turn %s", raw, res.TurnID)
	}
	if got, _ := ed.Buffer(a); got != tabbed {
		t.Errorf("buffer after revert = %q", got)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "b.go")); string(disk) != "package b\n" {
		t.Errorf("b.go after revert = %q", disk)
	}
	if n := len(ed.Applied()); n != 2 {
		t.Errorf("applyEdit calls = %d, want 2 (the edit and its revert)", n)
	}
	// Nothing left to revert.
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandRevertTurn, nil); err == nil || !strings.Contains(err.Error(), "no agent turn") {
		t.Errorf("second revert: %v", err)
	}
}

// Without window/showDocument, "Show diff" puts the diff into the repeated
// question, so the person sees it in any client.
func TestShowDiffWithoutShowDocument(t *testing.T) {
	ctx := ctxT(t)
	var msgs []string
	ed, root := setup(t, map[string]string{"a.go": tabbed}, script(t, editScript), func(o *fake.Options) {
		o.Capabilities = map[string]any{"window": map[string]any{"workDoneProgress": true}}
		o.Answer = func(msg string, _ []string) string {
			msgs = append(msgs, msg)
			if len(msgs) == 1 {
				return "Show diff"
			}
			return "Deny"
		}
	})
	if err := ed.Open(ctx, filepath.Join(root, "a.go"), tabbed); err != nil {
		t.Fatal(err)
	}
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "x"})
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || strings.Contains(msgs[0], "+\t\tprintln") || !strings.Contains(msgs[1], "+\t\tprintln(\"new\")") {
		t.Errorf("questions = %q", msgs)
	}
}
