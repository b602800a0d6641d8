//go:build unix

package nvim_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

// The rename scenario, with the real gopls behind lsp_rename: a Go
// package whose Hello is declared in a.go and called in b.go (twice, after
// non-ASCII text) and c.go. a.go and b.go are open in Neovim; the person
// inserts a comment paragraph in a.go without saving, which moves Hello's
// declaration two lines down from where the disk has it. The replay model
// renames Hello to Greet; the ask is answered Allow. The same scenario in
// the in-process fake editor is lsp.TestLSPRenameThroughEditor.
const (
	renameGoMod = "module example.com/greet\n\ngo 1.21\n"
	renameA     = "// Package greet says hello.\n" +
		"package greet\n" +
		"\n" +
		"// Hello returns the greeting.\n" +
		"func Hello() string {\n" +
		"\treturn \"hello\"\n" +
		"}\n"
	renameB = "package greet\n" +
		"\n" +
		"// Twice says hello twice, after non-ASCII text.\n" +
		"func Twice() string {\n" +
		"\treturn \"é😀 \" + Hello() + \" \" + Hello()\n" +
		"}\n"
	renameC = "package greet\n" +
		"\n" +
		"// Loud says hello loudly.\n" +
		"func Loud() string { return Hello() + \"!\" }\n"

	// The person's unsaved change: inserted before line 3 of a.go.
	renameNoteLine = 3
	renameNote     = "\n// Greetings are lower case (unsaved note)."

	renameAnswer = "Hello is now Greet."
	// a.go: the doc comment and the declaration; b.go: two calls; c.go: one.
	renameAsk = "agentls wants to rename Hello → Greet: 5 edits in 3 files"
	// The ask's choices: the gate's, then the "Show diff" the server adds
	// for changes.
	renameActions = "Allow, Allow edits in the workspace root this session, Always allow, Deny, Show diff"
	renameLabel   = "agentls: rename Hello → Greet"
)

// goplsDir finds gopls on PATH or in $(go env GOPATH)/bin, or fails the
// test with how to install it: the test is the real-editor check of
// lsp_rename and must not pass silently without the language server.
func goplsDir(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return filepath.Dir(p)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			bin := filepath.Join(dir, "bin")
			if fi, err := os.Stat(filepath.Join(bin, "gopls")); err == nil && !fi.IsDir() {
				return bin
			}
		}
	}
	t.Fatal("gopls is not on PATH nor in $(go env GOPATH)/bin: install it with `go install golang.org/x/tools/gopls@v0.23.0`")
	return ""
}

// renameRecord is what ask_open_files.lua adds to the shared record.
type renameRecord struct {
	Buffers []struct {
		File              string `json:"file"`
		ModifiedBeforeAsk bool   `json:"modified_before_ask"`
		TextBeforeAsk     string `json:"text_before_ask"`
		ModifiedAtEnd     bool   `json:"modified_at_end"`
		Text              string `json:"text"`
	} `json:"buffers"`
	Children []struct {
		PID  int    `json:"pid"`
		Comm string `json:"comm"`
	} `json:"children"`
	Answers []string `json:"answers"`
}

// Allow: lsp_rename renames Hello to Greet in both open buffers through
// workspace/applyEdit — the person's unsaved note stays, and both buffers
// are left modified, not saved — and in c.go, which is not open, on disk.
func TestNvimRenameOpenBuffersAllow(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		gopls := goplsDir(t)
		type call struct {
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		}
		type turn struct {
			Text      string `json:"text"`
			ToolCalls []call `json:"tool_calls,omitempty"`
		}
		script, err := json.Marshal(map[string][]turn{"turns": {
			{Text: "Renaming Hello to Greet.", ToolCalls: []call{{Name: "lsp_rename", Input: map[string]any{
				"file_path": "a.go", "symbol": "Hello", "new_name": "Greet"}}}},
			{Text: renameAnswer},
		}})
		if err != nil {
			t.Fatal(err)
		}
		r := newRun(t, map[string]string{"go.mod": renameGoMod, "a.go": renameA, "b.go": renameB, "c.go": renameC})
		path := r.path("replay.json")
		if err := os.WriteFile(path, script, 0o644); err != nil {
			t.Fatal(err)
		}
		// gopls runs `go list`: the same go environment as go test in the
		// permission scenario, with gopls's folder on PATH after go's.
		for k, v := range goEnv(t, r) {
			r.env[k] = v
		}
		r.env["PATH"] = r.env["PATH"] + string(os.PathListSeparator) + gopls
		r.env["AGENTLS_E2E_MODEL"] = "replay:" + path
		r.env["AGENTLS_E2E_FILES"] = "a.go,b.go"
		r.env["AGENTLS_E2E_LINE"] = "3"
		r.env["AGENTLS_E2E_TEXT"] = renameNote
		r.env["AGENTLS_E2E_PROMPT"] = "rename Hello to Greet"
		r.env["AGENTLS_E2E_ANSWER"] = "Allow"
		rec := r.nvim("ask_open_files.lua")
		var rr renameRecord
		if data, err := os.ReadFile(r.path("result.json")); err != nil || json.Unmarshal(data, &rr) != nil {
			r.fail("the record lacks the buffers: %v\n%s", err, data)
		}

		// The buffers as the person left them before asking.
		lines := strings.Split(strings.TrimSuffix(renameA, "\n"), "\n")
		aBefore := strings.Join(slices.Insert(lines, renameNoteLine-1, strings.Split(renameNote, "\n")...), "\n")
		bBefore := strings.TrimSuffix(renameB, "\n")
		if len(rr.Buffers) != 2 || rr.Buffers[0].File != "a.go" || rr.Buffers[1].File != "b.go" {
			r.fail("buffers recorded: %+v, want a.go and b.go", rr.Buffers)
		}
		a, b := rr.Buffers[0], rr.Buffers[1]
		if a.TextBeforeAsk != aBefore || !a.ModifiedBeforeAsk || b.TextBeforeAsk != bBefore || b.ModifiedBeforeAsk {
			r.fail("buffers before the ask not as set up: a.go modified=%v:\n%s\nb.go modified=%v:\n%s",
				a.ModifiedBeforeAsk, a.TextBeforeAsk, b.ModifiedBeforeAsk, b.TextBeforeAsk)
		}

		// The turn: one tool call, allowed by the person, completed.
		types, results, perms, end := turnSummary(t, rec)
		if want := "turn_start text tool_call permission tool_result text turn_end"; types != want {
			t.Errorf("events = %s\nwant     %s", types, want)
		}
		if end != agent.ReasonCompleted {
			t.Errorf("turn_end reason = %q, want %q", end, agent.ReasonCompleted)
		}
		if p := perms["lsp_rename"]; p.Decision != "allow" || p.Source != "user" || p.Capability != "lsp.rename" || p.Channel != "editor" {
			t.Errorf("lsp_rename permission = %s from %q (%s, channel %q), want allow from user (lsp.rename, editor)",
				p.Decision, p.Source, p.Capability, p.Channel)
		}

		// The one ask names the rename and its size.
		if len(rec.Asks) != 1 {
			t.Errorf("window/showMessageRequest sent %d times, want once: %+v", len(rec.Asks), rec.Asks)
		} else {
			ask := rec.Asks[0]
			var titles []string
			for _, x := range ask.Actions {
				titles = append(titles, x.Title)
			}
			if ask.Type != 2 || ask.Message != renameAsk || strings.Join(titles, ", ") != renameActions {
				t.Errorf("ask = type %d %q actions %q\nwant type 2 %q actions [%s]", ask.Type, ask.Message, titles, renameAsk, renameActions)
			}
			if len(rr.Answers) != 1 || rr.Answers[0] != "Allow" {
				t.Errorf("the harness answered %q, want Allow", rr.Answers)
			}
		}

		// The tool result: not an error; the open files changed in their
		// buffers (not saved: Neovim has no agentls plugin), c.go on disk; the
		// new diagnostics are computed on the renamed text of all three.
		res := results["lsp_rename"]
		content := ""
		if res.Content != nil {
			content = *res.Content
		}
		if res.IsError == nil || *res.IsError {
			t.Errorf("lsp_rename tool_result is an error (or has no is_error):\n%s", content)
		}
		resLines := strings.Split(content, "\n")
		lineOf := func(prefix string) string {
			for _, l := range resLines {
				if strings.HasPrefix(strings.TrimSpace(l), prefix) {
					return l
				}
			}
			return ""
		}
		const unsaved = "in the editor's buffer, not saved (this editor has no agentls plugin to save it)"
		if !strings.HasPrefix(content, "Renamed Hello → Greet: 5 edits in 3 files:\n") ||
			!strings.Contains(lineOf("a.go:"), "a.go: 2 edits") || !strings.Contains(lineOf("a.go:"), unsaved) ||
			!strings.Contains(lineOf("b.go:"), "b.go: 2 edits") || !strings.Contains(lineOf("b.go:"), unsaved) ||
			!strings.Contains(lineOf("c.go:"), "c.go: 1 edit") || strings.Contains(lineOf("c.go:"), "editor") ||
			!strings.Contains(content, "Language server: no errors or warnings in a.go, b.go, c.go.") {
			t.Errorf("lsp_rename tool_result:\n%s\nwant: Renamed Hello → Greet: 5 edits in 3 files; a.go: 2 edits and b.go: 2 edits %s; "+
				"c.go: 1 edit (on disk); no errors or warnings in a.go, b.go, c.go", content, unsaved)
		}
		for _, want := range []string{"-// Hello returns the greeting.", "+func Greet() string {", "+\treturn \"é😀 \" + Greet() + \" \" + Greet()", "+func Loud() string { return Greet() + \"!\" }"} {
			if !strings.Contains(res.Diff, want) {
				t.Errorf("lsp_rename tool_result diff lacks %q:\n%s", want, res.Diff)
			}
		}

		// Every buffer shows Greet where Hello was; a.go keeps the person's
		// note; both are modified, unsaved.
		if want := strings.ReplaceAll(aBefore, "Hello", "Greet"); a.Text != want || !a.ModifiedAtEnd {
			t.Errorf("a.go buffer after the turn (modified=%v):\n%s\nwant (renamed, the unsaved note kept):\n%s", a.ModifiedAtEnd, a.Text, want)
		}
		if want := strings.ReplaceAll(bBefore, "Hello", "Greet"); b.Text != want || !b.ModifiedAtEnd {
			t.Errorf("b.go buffer after the turn (modified=%v):\n%s\nwant (renamed):\n%s", b.ModifiedAtEnd, b.Text, want)
		}

		// One workspace/applyEdit per open file, applied by Neovim: plain
		// changes (Neovim 0.7.2 does not declare documentChanges) of whole
		// lines, each one a line that named Hello in the buffer.
		before := map[string][]string{"a.go": strings.Split(aBefore, "\n"), "b.go": strings.Split(bBefore, "\n")}
		var applied []string
		for i, ap := range rec.Applies {
			if ap.Params.Label != renameLabel || !ap.Result.Applied || len(ap.Params.Edit.DocumentChanges) != 0 || len(ap.Params.Edit.Changes) != 1 {
				t.Errorf("applyEdit %d: label %q applied=%v (%q), %d documentChanges, %d files; want %q applied, one file in changes",
					i+1, ap.Params.Label, ap.Result.Applied, ap.Result.FailureReason, len(ap.Params.Edit.DocumentChanges), len(ap.Params.Edit.Changes), renameLabel)
			}
			for uri, edits := range ap.Params.Edit.Changes {
				file := filepath.Base(uri)
				applied = append(applied, file)
				old, ok := before[file]
				if !ok || !strings.HasSuffix(uri, "/workspace/"+file) {
					t.Errorf("applyEdit %d changes %s, want a.go or b.go", i+1, uri)
					continue
				}
				for _, e := range edits {
					s, en := e.Range.Start, e.Range.End
					if s.Character != 0 || en.Character != 0 || en.Line <= s.Line || en.Line > len(old) ||
						strings.Contains(e.NewText, "Hello") || !strings.Contains(e.NewText, "Greet") {
						t.Errorf("applyEdit %d on %s: edit %+v is not a whole-line rename", i+1, file, e)
						continue
					}
					for l := s.Line; l < en.Line; l++ {
						if !strings.Contains(old[l], "Hello") {
							t.Errorf("applyEdit %d on %s replaces line %d %q, which does not name Hello", i+1, file, l+1, old[l])
						}
					}
				}
			}
		}
		if got := strings.Join(applied, " "); got != "a.go b.go" {
			t.Errorf("workspace/applyEdit for %q, want a.go then b.go (one each)", got)
		}

		// The disk: Neovim has no agentls plugin, so the open buffers are not
		// saved — a.go and b.go still say Hello (the person's note is not
		// saved either) until the person writes them; c.go, not open, was
		// written by agentls.
		for file, want := range map[string]string{"a.go": renameA, "b.go": renameB, "c.go": strings.ReplaceAll(renameC, "Hello", "Greet")} {
			if got, err := os.ReadFile(filepath.Join(r.root, file)); err != nil || string(got) != want {
				t.Errorf("%s on disk (%v):\n%s\nwant:\n%s", file, err, got, want)
			}
		}

		if len(rec.Shows) != 1 || rec.Shows[0].Type != 3 || rec.Shows[0].Message != "agentls: "+renameAnswer {
			t.Errorf("window/showMessage = %+v, want one Info (3) %q", rec.Shows, "agentls: "+renameAnswer)
		}

		// gopls ran as the server's child, and went with it.
		var goplsPIDs []int
		for _, c := range rr.Children {
			if c.Comm == "gopls" {
				goplsPIDs = append(goplsPIDs, c.PID)
			}
		}
		if len(goplsPIDs) != 1 {
			t.Errorf("server children before the stop = %+v, want one gopls", rr.Children)
		}
		r.checkExit()
		for _, pid := range goplsPIDs {
			if d, alive := waitGone(pid, 5*time.Second); alive {
				t.Errorf("orphan: gopls pid %d still running %v after nvim quit", pid, d)
			}
		}
		// The steps time the ask against gopls's start and the rename.
		t.Logf("steps:\n  %s", strings.Join(rec.Steps, "\n  "))
	})
}
