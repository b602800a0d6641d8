//go:build unix

package nvim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// The edit scenarios: main.go is indented with tabs on disk; the person
// changes line 1 in Neovim without saving; the replay model views the file
// and edits greet() quoting it with 4 spaces per level, so the edit lands
// through the whitespace-tolerant match and new_string is re-indented with
// tabs. The ask is answered Allow or Deny by the harness.
const (
	editDisk = "// Command greet says hello.\n" +
		"package main\n" +
		"\n" +
		"import \"fmt\"\n" +
		"\n" +
		"func main() {\n" +
		"\tfmt.Println(greet(\"\"))\n" +
		"}\n" +
		"\n" +
		"func greet(name string) string {\n" +
		"\tif name == \"\" {\n" +
		"\t\treturn \"hello, nobody\"\n" +
		"\t}\n" +
		"\treturn \"hello, \" + name\n" +
		"}\n"
	editUnsavedLine = "// Command greet greets people (unsaved)."
	editOld         = "    if name == \"\" {\n        return \"hello, nobody\"\n    }"
	editNew         = "    if name == \"\" {\n        return \"hello, stranger\"\n    }"
	editAnswer      = "Empty names are now greeted as strangers."
	editAsk         = "agentls wants to edit main.go (+1 −1)"
	// editActions are the choices the gate offers for an edit in the root,
	// then the "Show diff" the server adds for edits.
	editActions = "Allow, Allow edits in the workspace root this session, Always allow, Deny, Show diff"
)

var (
	// editBefore is the buffer when the person asks: the disk text with
	// their unsaved line 1.
	editBefore = editUnsavedLine + strings.TrimPrefix(editDisk, "// Command greet says hello.")
	// editAfter is the buffer after an allowed edit: only the return line
	// changed, indented with two tabs like its neighbours.
	editAfter = strings.Replace(editBefore, "\t\treturn \"hello, nobody\"\n", "\t\treturn \"hello, stranger\"\n", 1)
)

// editRun runs ask_unsaved.lua on the fixture with the ask answered
// `answer`; undo asks the scenario to run :undo once after the turn.
func editRun(t *testing.T, answer string, undo bool) (*run, *record) {
	t.Helper()
	type call struct {
		Name  string         `json:"name"`
		Input map[string]any `json:"input"`
	}
	type turn struct {
		Text      string `json:"text"`
		ToolCalls []call `json:"tool_calls,omitempty"`
	}
	script, err := json.Marshal(map[string][]turn{"turns": {
		{Text: "Looking at greet.", ToolCalls: []call{{Name: "view", Input: map[string]any{"file_path": "main.go"}}}},
		{Text: "Changing the empty-name greeting.", ToolCalls: []call{{Name: "edit", Input: map[string]any{
			"file_path": "main.go", "old_string": editOld, "new_string": editNew}}}},
		{Text: editAnswer},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := newRun(t, map[string]string{"main.go": editDisk})
	path := r.path("replay.json")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		t.Fatal(err)
	}
	r.env["AGENTLS_E2E_MODEL"] = "replay:" + path
	r.env["AGENTLS_E2E_FILE"] = "main.go"
	r.env["AGENTLS_E2E_LINE"] = "1"
	r.env["AGENTLS_E2E_TEXT"] = editUnsavedLine
	r.env["AGENTLS_E2E_PROMPT"] = "greet strangers when the name is empty"
	r.env["AGENTLS_E2E_ANSWER"] = answer
	if undo {
		r.env["AGENTLS_E2E_UNDO"] = "1"
	}
	rec := r.nvim("ask_unsaved.lua")

	if rec.TextBeforeAsk != strings.TrimSuffix(editBefore, "\n") || !rec.ModifiedBeforeAsk {
		r.fail("the person's unsaved change was not set up: modified=%v text:\n%s", rec.ModifiedBeforeAsk, rec.TextBeforeAsk)
	}
	return r, rec
}

// turnSummary checks that every event belongs to the turn the ask
// returned, and returns the event types joined by spaces, the tool_result
// and permission events by tool name, and the turn_end reason.
func turnSummary(t *testing.T, rec *record) (types string, results, perms map[string]agent.Event, end string) {
	t.Helper()
	res := rec.Ask.ask(t, "agentls.ask")
	var list []string
	results, perms = map[string]agent.Event{}, map[string]agent.Event{}
	deltas := 0
	for _, e := range rec.Events {
		if e.Type == agent.EventTextDelta {
			deltas++ // streamed pieces; the step's text event follows
		} else {
			list = append(list, string(e.Type))
		}
		if e.TurnID != res.TurnID || e.SessionID != res.SessionID {
			t.Errorf("event %s on session %q turn %q, ask returned %+v", e.Type, e.SessionID, e.TurnID, res)
		}
		switch e.Type {
		case agent.EventToolResult:
			results[e.Name] = e
		case agent.EventPermission:
			perms[e.Tool] = e
		case agent.EventTurnEnd:
			end = e.Reason
		}
	}
	if texts := strings.Count(strings.Join(list, " "), "text"); deltas < texts {
		t.Errorf("%d text_delta events for %d texts: the answer did not stream to Neovim", deltas, texts)
	}
	return strings.Join(list, " "), results, perms, end
}

// checkAsk asserts the one permission ask: a Warning naming the edit and
// its size, with the gate's choices (Allow, the session grant for the
// folder, Always allow, Deny) and Show diff.
func checkAsk(t *testing.T, rec *record) {
	t.Helper()
	if len(rec.Asks) != 1 {
		t.Errorf("window/showMessageRequest sent %d times, want once: %+v", len(rec.Asks), rec.Asks)
		return
	}
	a := rec.Asks[0]
	var titles []string
	for _, x := range a.Actions {
		titles = append(titles, x.Title)
	}
	if a.Type != 2 || a.Message != editAsk || strings.Join(titles, ", ") != editActions {
		t.Errorf("ask = type %d %q actions %q\nwant type 2 %q actions [%s]", a.Type, a.Message, titles, editAsk, editActions)
	}
}

// checkDisk asserts main.go on disk is the fixture: Neovim has no agentls
// plugin, so nothing is saved, and the person's change is not saved either.
func checkDisk(t *testing.T, r *run) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(r.root, "main.go")); err != nil || string(b) != editDisk {
		t.Errorf("main.go on disk changed (%v):\n%s", err, b)
	}
}

// Allow: the edit, quoted with spaces for a file indented with tabs, lands
// in the buffer re-indented with tabs, next to the person's unsaved change,
// unsaved; one :undo takes exactly the agent's change back.
func TestNvimEditUnsavedBufferAllow(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r, rec := editRun(t, "Allow", true)

		types, results, perms, end := turnSummary(t, rec)
		if want := "turn_start text tool_call permission tool_result text tool_call permission tool_result text turn_end"; types != want {
			t.Errorf("events = %s\nwant     %s", types, want)
		}
		if end != agent.ReasonCompleted {
			t.Errorf("turn_end reason = %q, want %q", end, agent.ReasonCompleted)
		}
		if v := results["view"]; v.Content == nil || !strings.Contains(*v.Content, editUnsavedLine) {
			t.Errorf("view did not read the unsaved buffer: %+v", v)
		}
		if p := perms["edit"]; p.Decision != "allow" || p.Source != "user" {
			t.Errorf("edit permission = %s from %q, want allow from user", p.Decision, p.Source)
		}
		// The model is told the change is in the unsaved buffer and was
		// matched ignoring whitespace.
		edit := results["edit"]
		if edit.IsError == nil || *edit.IsError || edit.Content == nil ||
			!strings.Contains(*edit.Content, "in the editor's buffer") || !strings.Contains(*edit.Content, "It is not saved") ||
			!strings.Contains(*edit.Content, "matched ignoring whitespace") {
			t.Errorf("edit tool_result = %+v, want success saying: in the buffer, not saved, matched ignoring whitespace", edit)
		}
		if !strings.Contains(edit.Diff, "-\t\treturn \"hello, nobody\"\n") || !strings.Contains(edit.Diff, "+\t\treturn \"hello, stranger\"\n") {
			t.Errorf("edit tool_result diff does not replace the tab-indented return line:\n%s", edit.Diff)
		}
		checkAsk(t, rec)

		// One applyEdit of the return line only, applied by Neovim. Neovim
		// 0.7.2 does not declare workspace.workspaceEdit.documentChanges, so
		// the edit comes as plain, unversioned changes (docs/protocol.md).
		if len(rec.Applies) != 1 {
			t.Fatalf("workspace/applyEdit sent %d times, want once: %+v", len(rec.Applies), rec.Applies)
		}
		ap := rec.Applies[0]
		if ap.Params.Label != "agentls: edit main.go" {
			t.Errorf("applyEdit label = %q, want %q", ap.Params.Label, "agentls: edit main.go")
		}
		if dc := ap.Params.Edit.DocumentChanges; len(dc) != 0 {
			t.Errorf("applyEdit has documentChanges %+v for a client that does not declare them", dc)
		}
		var edits []textEdit
		for uri, e := range ap.Params.Edit.Changes {
			if !strings.HasSuffix(uri, "/workspace/main.go") {
				t.Errorf("applyEdit changes %s, want main.go", uri)
			}
			edits = append(edits, e...)
		}
		if len(edits) != 1 || edits[0].Range.Start.Line != 11 || edits[0].Range.Start.Character != 0 ||
			edits[0].Range.End.Line != 12 || edits[0].Range.End.Character != 0 ||
			edits[0].NewText != "\t\treturn \"hello, stranger\"\n" {
			t.Errorf("applyEdit edits = %+v, want line 12 (0-based 11) replaced by the tab-indented return", edits)
		}
		if !ap.Result.Applied {
			t.Errorf("Neovim did not apply the edit: %q", ap.Result.FailureReason)
		}

		// The buffer: exactly the expected text, still unsaved.
		if want := strings.TrimSuffix(editAfter, "\n"); rec.BufferText != want {
			t.Errorf("buffer after the turn:\n%s\nwant:\n%s", visibleTabs(rec.BufferText), visibleTabs(want))
		}
		if !rec.ModifiedAtEnd {
			t.Errorf("buffer not modified after the turn")
		}
		if want := strings.TrimSuffix(editBefore, "\n"); rec.UndoText != want || !rec.ModifiedAfterUndo {
			t.Errorf("after :undo (modified=%v):\n%s\nwant the text before the agent's edit:\n%s",
				rec.ModifiedAfterUndo, visibleTabs(rec.UndoText), visibleTabs(want))
		}
		checkDisk(t, r)

		if len(rec.Shows) != 1 || rec.Shows[0].Type != 3 || rec.Shows[0].Message != "agentls: "+editAnswer {
			t.Errorf("window/showMessage = %+v, want one Info (3) %q", rec.Shows, "agentls: "+editAnswer)
		}
		r.checkExit()
		if t.Failed() {
			t.Logf("steps:\n  %s", strings.Join(rec.Steps, "\n  "))
		}
	})
}

// Deny: nothing reaches the buffer, and the person's deny ends the turn.
func TestNvimEditUnsavedBufferDeny(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r, rec := editRun(t, "Deny", false)

		types, results, perms, end := turnSummary(t, rec)
		if want := "turn_start text tool_call permission tool_result text tool_call permission tool_result turn_end"; types != want {
			t.Errorf("events = %s\nwant     %s", types, want)
		}
		if end != agent.ReasonDenied {
			t.Errorf("turn_end reason = %q, want %q", end, agent.ReasonDenied)
		}
		if p := perms["edit"]; p.Decision != "deny" || p.Source != "user" {
			t.Errorf("edit permission = %s from %q, want deny from user", p.Decision, p.Source)
		}
		if e := results["edit"]; e.IsError == nil || !*e.IsError || e.Diff != "" {
			t.Errorf("denied edit tool_result = %+v, want an error without a diff", e)
		}
		checkAsk(t, rec)
		if len(rec.Applies) != 0 {
			t.Errorf("workspace/applyEdit after a deny: %+v", rec.Applies)
		}
		if want := strings.TrimSuffix(editBefore, "\n"); rec.BufferText != want || !rec.ModifiedAtEnd {
			t.Errorf("buffer after the denied turn (modified=%v):\n%s\nwant it untouched:\n%s",
				rec.ModifiedAtEnd, visibleTabs(rec.BufferText), visibleTabs(want))
		}
		checkDisk(t, r)
		if len(rec.Shows) != 1 || rec.Shows[0].Type != 2 || rec.Shows[0].Message != "agentls: turn ended: permission denied" {
			t.Errorf("window/showMessage = %+v, want one Warning (2) %q", rec.Shows, "agentls: turn ended: permission denied")
		}
		r.checkExit()
		if t.Failed() {
			t.Logf("steps:\n  %s", strings.Join(rec.Steps, "\n  "))
		}
	})
}

// visibleTabs shows tabs as → so indentation differences read in a
// failure message.
func visibleTabs(s string) string { return strings.ReplaceAll(s, "\t", "→") }
