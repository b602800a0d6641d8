//go:build unix

package nvim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/openai/openaitest"
)

// questionModel is a model that asks question (with options) once, then
// answers "Thanks."; it records the tool results it got.
func questionModel(t *testing.T, r *pluginRun, question map[string]any) *openaitest.Server {
	srv := openaitest.New(func(req openaitest.Request) openaitest.Reply {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return openaitest.Reply{Parts: []string{"Thanks."}}
			}
		}
		return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("q0", "question", question)}}
	})
	t.Cleanup(srv.Close)
	r.provider(srv.URL)
	return srv
}

// toolResults are the tool results the model saw last.
func lastToolResults(srv *openaitest.Server) []string {
	var out []string
	if reqs := srv.Requests(); len(reqs) > 0 {
		for _, m := range reqs[len(reqs)-1].Messages {
			if m.Role == "tool" {
				out = append(out, m.Content)
			}
		}
	}
	return out
}

// Typing during a question never answers it, must-show: you are typing a
// comment in Insert mode when the agent's question (two options) appears;
// the rest of the sentence, an <Enter>, another line, <Esc> and a "1<CR>"
// typed at once all stay your buffer's — the question stays open, the
// agent gets nothing — until you answer it in its float (1<CR> typed
// 600 ms later, once Insert mode ended gave it the focus).
func TestNvimPluginQuestionWhileTyping(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		srv := questionModel(t, r, map[string]any{"question": "Which store?", "options": []string{"sqlite", "postgres"}})
		rec := r.nvim("plugin_question_typing.lua")
		defer r.done()

		if mode := rec.str("mode_asked"); mode != "i" {
			r.errorf("mode when the question appeared = %q, want i (Insert): the scenario did not type as it came", mode)
		}
		want := "hello world // remember to update the docs and the changelog\nand the readme"
		if typed := rec.str("text_typed"); !strings.HasPrefix(typed, want) {
			r.errorf("a.txt after typing through the question = %q, want it to start %q (every key the buffer's)", typed, want)
		}
		var open int
		fmt.Sscan(string(rec.Raw["open_questions"]), &open)
		if open != 1 || rec.str("status_typed") != "waiting for you" {
			r.errorf("after the typing: %d open questions, status %q; want the question still open, waiting for you", open, rec.str("status_typed"))
		}
		if w := rec.str("window_typed"); !strings.HasPrefix(w, "agentls://question/") {
			r.errorf("the focus after <Esc> was in %q, want the question's float", w)
		}
		results := lastToolResults(srv)
		if len(results) != 1 || !strings.HasPrefix(results[0], "The person chose: sqlite") {
			r.errorf("tool results %q, want the one answer typed in the float: The person chose: sqlite", results)
		}
		if len(rec.WindowsAfter) != 1 {
			r.errorf("windows after the turn %+v, want a.txt's only", rec.WindowsAfter)
		}
	})
}
