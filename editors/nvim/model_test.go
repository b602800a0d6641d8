//go:build unix

package nvim_test

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent/openai/openaitest"
)

// :AgentModel, must-show: after a turn on the setup's model, :AgentModel
// offers the models agentls knows (the one running marked) and switches
// to the one picked; the next turn's model is sent the first turn; a model
// that cannot run is refused, naming the one kept; a model named switches
// too. The chat's headings name each turn's model and the switch is a
// line of its own.
func TestNvimPluginModel(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		var mu sync.Mutex
		var seen []string
		srv := openaitest.New(func(req openaitest.Request) openaitest.Reply {
			mu.Lock()
			defer mu.Unlock()
			zebra := strings.Contains(req.Text(), "ZEBRA")
			seen = append(seen, fmt.Sprintf("%s saw %d messages, ZEBRA %v", req.Model, len(req.Messages), zebra))
			if zebra && len(req.Messages) > 2 {
				return openaitest.Reply{Parts: []string{"The word was ZEBRA, says " + req.Model + "."}}
			}
			return openaitest.Reply{Parts: []string{"Noted, says " + req.Model + "."}}
		})
		t.Cleanup(srv.Close)
		cfg := fmt.Sprintf(`{"providers":{"rec":{"base_url":%q,"models":{"first":{},"second":{}}},"nokey":{"base_url":%q,"api_key_env":"AGENTLS_TEST_UNSET_KEY"}}}`, srv.URL, srv.URL)
		if err := os.MkdirAll(r.path("config", "agentls"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.path("config", "agentls", "config.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		r.env["AGENTLS_E2E_MODEL"] = "rec:first"
		picked := "rec:second  — providers.rec.models in the settings"
		r.env["AGENTLS_PLUGIN_ANSWERS"] = picked
		r.env["AGENTLS_PLUGIN_BAD_MODEL"] = "nokey:m"
		r.env["AGENTLS_PLUGIN_LAST_MODEL"] = "rec:third"
		rec := r.nvim("plugin_model.lua")
		defer r.done()

		if len(rec.Selects) != 1 {
			r.fail("%d selects, want the model list once", len(rec.Selects))
		}
		sel := rec.Selects[0]
		if sel.Kind != "agentls_model" || !strings.Contains(sel.Prompt, "now rec:first") ||
			len(sel.Titles) < 2 || sel.Titles[0] != "rec:first  (now)  — this session's model" || sel.Titles[1] != picked {
			r.errorf("the model list: kind %q, prompt %q, titles %q", sel.Kind, sel.Prompt, sel.Titles)
		}
		mu.Lock()
		got := strings.Join(seen, "\n")
		mu.Unlock()
		if want := "first saw 2 messages, ZEBRA true\nsecond saw 4 messages, ZEBRA true"; got != want {
			r.errorf("the model's requests:\n%s\nwant:\n%s", got, want)
		}
		messages := strings.Join(rec.Messages, "\n")
		for _, want := range []string{"the conversation goes on with rec:second", "The word was ZEBRA, says second.",
			"the conversation stays on rec:second", "no API key for nokey", "the conversation goes on with rec:third"} {
			if !strings.Contains(messages, want) {
				r.errorf("messages lack %q:\n%s", want, messages)
			}
		}
		chat := rec.str("chat")
		for _, want := range []string{"## agentls  (rec:first)", "Noted, says first.", "_model: rec:second (was rec:first); the conversation goes on_",
			"## agentls  (rec:second)", "The word was ZEBRA, says second.", "_model: rec:third (was rec:second); the conversation goes on_"} {
			if !strings.Contains(chat, want) {
				r.errorf("the chat lacks %q:\n%s", want, chat)
			}
		}
	})
}
