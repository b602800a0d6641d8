//go:build unix

package nvim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// checkpointState is one snapshot plugin_checkpoints.lua records: the
// buffer's text and 'modified', the file's bytes and mtime.
type checkpointState struct {
	Text     string  `json:"text"`
	Modified bool    `json:"modified"`
	Disk     *string `json:"disk"`
	MTime    string  `json:"mtime"`
}

// :AgentCheckpoints, must-show: an open, unsaved buffer restored through
// applyEdit, undoable in the editor. The agent's edit of a.txt lands in
// a buffer holding the person's unsaved line; restoring the files to
// before the edit changes the buffer (their line kept), never the disk;
// u brings back the agent's line; :AgentCheckpoints undo undoes the
// restore. After the person's own edit of the agent's line, a restore
// keeps it, reports a conflict and opens the two versions as a diff.
// Restoring the conversation alone leaves the files as they are.
func TestNvimPluginCheckpoints(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		// The plugin's turn, with a todo list set on the way.
		r.replay(strings.Replace(pluginScript, `"new_string":"hello agentls"}}`,
			`"new_string":"hello agentls"}},{"name":"todos","input":{"todos":[{"content":"say hello","status":"in_progress","active_form":"Saying hello"}]}}`, 1))
		const files = "files: put the files back to before this step"
		r.env["AGENTLS_PLUGIN_ANSWERS"] = "Allow,#1," + files + ",#3," + files
		r.env["AGENTLS_PLUGIN_REVIEW"] = "0"
		r.env["AGENTLS_E2E_PROMPT"] = pluginPrompt
		rec := r.nvim("plugin_checkpoints.lua")
		defer r.done()

		var snap struct {
			Before, After, Restored, Undone, Unrestored, Mine, Conflict, Conversation checkpointState
			DiffWindows                                                               []struct {
				Name       string `json:"name"`
				Diff       bool   `json:"diff"`
				Text       string `json:"text"`
				Modifiable bool   `json:"modifiable"`
			} `json:"diff_windows"`
			Chat        string `json:"chat"`
			ChatUndone  string `json:"chat_undone"`
			ChatResumed string `json:"chat_resumed"`
			ChatTurn    string `json:"chat_turn"`
			ChatRebuilt string `json:"chat_rebuilt"`
		}
		raw, _ := json.Marshal(rec.Raw)
		if err := json.Unmarshal(raw, &snap); err != nil {
			r.fail("the record's snapshots: %v", err)
		}

		const (
			theirs   = "hello world\nsecond line (unsaved)"
			agents   = "hello agentls\nsecond line (unsaved)"
			persons  = "hello agentls, says the person\nsecond line (unsaved)"
			restored = "restored to checkpoint 1: a.txt"
		)
		for _, c := range []struct {
			name string
			got  checkpointState
			want string
		}{
			{"before the ask", snap.Before, theirs},
			{"after the agent's edit", snap.After, agents},
			{"after the restore", snap.Restored, theirs},
			{"after u", snap.Undone, agents},
			{"after :AgentCheckpoints undo", snap.Unrestored, agents},
			{"after the person's edit", snap.Mine, persons},
			{"after the restore with a conflict", snap.Conflict, persons},
			{"after the conversation's restore", snap.Conversation, persons},
		} {
			if c.got.Text != c.want || !c.got.Modified {
				r.errorf("%s: buffer (modified %v)\n%s\nwant, unsaved:\n%s", c.name, c.got.Modified, c.got.Text, c.want)
			}
			// The disk is never written behind the editor's back.
			if c.got.Disk == nil || *c.got.Disk != pluginFile || c.got.MTime != snap.Before.MTime {
				r.errorf("%s: disk %s (mtime %s, was %s), want a.txt untouched", c.name, quoteOrNil(c.got.Disk), c.got.MTime, snap.Before.MTime)
			}
		}

		// The selects: the ask, the timeline, what to restore, the timeline
		// again (the two restores on top, then the undo of the last), what.
		if len(rec.Selects) != 6 {
			r.fail("%d selects, want 6 (the ask, list, what, list, what, what from the chat): %+v", len(rec.Selects), rec.Selects)
		}
		step := `^\d\. \d\d:\d\d:\d\d  `
		edit := regexp.MustCompile(step + `edit a\.txt  · 1 file\(s\) changed$`)
		first, what, second := rec.Selects[1], rec.Selects[2], rec.Selects[3]
		if first.Kind != "agentls_checkpoint" || len(first.Titles) != 1 || !edit.MatchString(first.Titles[0]) || !strings.HasPrefix(first.Titles[0], "1. ") {
			r.errorf("the first list: kind %q, titles %q; want the edit's checkpoint only", first.Kind, first.Titles)
		}
		if what.Kind != "agentls_restore" || strings.Join(what.Titles, "|") != files+"|conversation: back to before this step's prompt|both: the files and the conversation" ||
			!strings.Contains(what.Prompt, "edit a.txt") {
			r.errorf("what to restore: kind %q, prompt %q, titles %q", what.Kind, what.Prompt, what.Titles)
		}
		if second.Kind != "agentls_checkpoint" || len(second.Titles) != 4 ||
			!regexp.MustCompile(step+`restore to checkpoint 2  · 1 file\(s\) changed$`).MatchString(second.Titles[0]) ||
			!regexp.MustCompile(step+`restore to checkpoint 1  · 1 file\(s\) changed$`).MatchString(second.Titles[1]) ||
			!edit.MatchString(second.Titles[2]) || second.Titles[3] != "↶ undo the last restore" {
			r.errorf("the second list, newest first: %q", second.Titles)
		}

		if here := rec.Selects[5]; here.Kind != "agentls_restore" || !edit.MatchString(strings.TrimSuffix(strings.TrimPrefix(here.Prompt, "agentls: restore to before "), ":")) {
			r.errorf("restore to here, in the chat on the edit's tool call: kind %q, prompt %q; want what to restore to before the edit", here.Kind, here.Prompt)
		}

		// The conflict: the person's line kept, said so, shown as a diff of
		// their buffer and the checkpoint's version.
		messages := strings.Join(rec.Messages, "\n")
		if !strings.Contains(messages, "1 conflict(s), your version kept") {
			r.errorf("messages lack the conflict:\n%s", messages)
		}
		checkTranscript(r, rec.Log, []string{"= ↶ " + restored, "= ↶ undid the last restore (checkpoint 2): a.txt",
			"^↶ restored to checkpoint 1: no file changed; kept your a.txt (",
			// The conversation back to before the edit's prompt: the model sees none of it.
			"= ↶ restored to checkpoint 1: no file changed; the conversation is back to 0 message(s)",
			// Undone: the turn back in the conversation.
			"^↶ undid the last restore (checkpoint "})
		if len(snap.DiffWindows) != 2 {
			r.errorf("the diff's tab page has %d windows, want 2: %+v", len(snap.DiffWindows), snap.DiffWindows)
		} else {
			byName := map[string]int{}
			for i, w := range snap.DiffWindows {
				byName[w.Name] = i
				if !w.Diff {
					r.errorf("window of %s is not in diff mode", w.Name)
				}
			}
			yours, ok1 := byName[filepath.Join(r.root, "a.txt")]
			cp, ok2 := byName["agentls://checkpoint/1/a.txt"]
			if !ok1 || !ok2 || snap.DiffWindows[yours].Text != persons || snap.DiffWindows[cp].Text != theirs || snap.DiffWindows[cp].Modifiable {
				r.errorf("the diff: %+v\nwant a.txt (the person's text) and agentls://checkpoint/1/a.txt (the checkpoint's, read-only)", snap.DiffWindows)
			}
		}
		// The checkpoint's version is a scratch buffer: no second server
		// started on a copy outside the workspace.
		if log, _ := os.ReadFile(r.path("state", "agentls", "agentls.log")); strings.Count(string(log), "msg=initialized") != 1 {
			r.errorf("agentls started %d times, want once:\n%s", strings.Count(string(log), "msg=initialized"), log)
		}
		if !strings.Contains(snap.Chat, "_"+restored+"_") {
			r.errorf("the chat lacks the restore:\n%s", snap.Chat)
		}

		// The chat shows the conversation as the model has it: after the
		// conversation's restore, none of the turn (its prompt back under
		// "## Ask", to send again), the restores' reports kept; after the
		// undo of that restore, the turn again.
		shown, ask, _ := strings.Cut(snap.Chat, "\n## Ask")
		for _, gone := range []string{"## You", pluginPrompt, "▸ edit a.txt", "## agentls"} {
			if strings.Contains(shown, gone) {
				r.errorf("after the conversation's restore the chat still shows %q:\n%s", gone, snap.Chat)
			}
		}
		if !strings.Contains(shown, "the conversation is back to 0 message(s); the chat no longer shows the 1 turn(s) the agent forgot") {
			r.errorf("the chat does not say it hides the turn:\n%s", snap.Chat)
		}
		if _, typed, _ := strings.Cut(ask, "\n"); strings.TrimSpace(typed) != pluginPrompt {
			r.errorf("the prompt area holds %q, want the forgotten prompt %q", typed, pluginPrompt)
		}
		shown, _, _ = strings.Cut(snap.ChatUndone, "\n## Ask")
		for _, back := range []string{"## You", pluginPrompt, "▸ edit a.txt", "_" + restored + "_",
			"the chat shows again the 1 turn(s) the agent remembers again"} {
			if !strings.Contains(shown, back) {
				r.errorf("after the undo the chat lacks %q:\n%s", back, snap.ChatUndone)
			}
		}
		if strings.Index(shown, "## You") > strings.Index(shown, "_"+restored+"_") {
			r.errorf("after the undo the turn is not back in its place, above the restores:\n%s", snap.ChatUndone)
		}
		// The chat's todos follow the conversation: the turn's list, none
		// once the conversation went back to before the turn, the turn's
		// again once that restore was undone.
		todos := func(chat string) string {
			_, t, ok := strings.Cut(chat, "## Todos")
			if !ok {
				return ""
			}
			t, _, _ = strings.Cut(t, "\n## Ask")
			return "## Todos" + strings.TrimRight(t, "\n")
		}
		const turnTodos = "## Todos  (0/1: Saying hello)\n- [-] say hello  ← Saying hello"
		for _, c := range []struct{ name, chat, want string }{
			{"after the turn", snap.ChatTurn, turnTodos},
			{"after the conversation's restore", snap.Chat, "## Todos\n(none)"},
			{"after its undo", snap.ChatUndone, turnTodos},
		} {
			if got := todos(c.chat); got != c.want {
				r.errorf("%s, the chat's todos:\n%s\nwant:\n%s\n(the chat:\n%s)", c.name, got, c.want, c.chat)
			}
		}
		// A chat shown again by :AgentResume (from agentls.history, no turn
		// ids) is rebuilt from the restored conversation: empty.
		if !strings.Contains(snap.ChatResumed, "## You") {
			r.errorf("the resumed chat lacks the turn:\n%s", snap.ChatResumed)
		}
		shown, _, _ = strings.Cut(snap.ChatRebuilt, "\n## Ask")
		if strings.Contains(shown, "## You") || !strings.Contains(shown, "the conversation as the agent has it now") {
			r.errorf("the resumed chat after the conversation's restore:\n%s", snap.ChatRebuilt)
		}
	})
}
