//go:build unix

package nvim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/openai/openaitest"
)

// Resume, must-show: a turn in one Neovim; after a restart (a new Neovim,
// a new server, the same data folder) :AgentResume shows the stored turn
// in the chat — the prompt and the answer — and a follow-up goes on in
// that session: the model sees the first exchange.
func TestNvimPluginResume(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		srv := openaitest.New(func(req openaitest.Request) openaitest.Reply {
			for _, m := range req.Messages {
				if m.Role == "user" && strings.Contains(m.Content, "what is the password") {
					for _, m := range req.Messages {
						if strings.Contains(m.Content, "PELICAN") {
							return openaitest.Reply{Parts: []string{"It is PELICAN, as you said."}}
						}
					}
					return openaitest.Reply{Parts: []string{"I do not know."}}
				}
			}
			return openaitest.Reply{Parts: []string{"Noted: the secret word."}}
		})
		t.Cleanup(srv.Close)
		r.provider(srv.URL)
		r.env["AGENTLS_PLUGIN_STEP"] = "ask"
		r.nvim("plugin_resume.lua")
		r.env["AGENTLS_PLUGIN_STEP"] = "resume"
		rec := r.nvim("plugin_resume.lua")
		defer r.done()

		resumed := rec.str("chat_resumed")
		for _, want := range []string{"resumed session", "## You", "the password is PELICAN", "Noted: the secret word."} {
			if !strings.Contains(resumed, want) {
				r.errorf("the chat after :AgentResume lacks %q:\n%s", want, resumed)
			}
		}
		if after := rec.str("chat_after"); !strings.Contains(after, "It is PELICAN, as you said.") {
			r.errorf("the follow-up after :AgentResume was answered without the first turn:\n%s", after)
		}
	})
}
