//go:build unix

package nvim_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/openai/openaitest"
)

// vim.lsp.enable('agentls') alone, must-show: no setup(), the plugin's
// lsp/agentls.lua is the configuration and agentls is found on $PATH
// (0.7 and 0.10, without vim.lsp.enable: a client named agentls started
// the plain way). :AgentAsk gets the streamed answer into the chat, the
// statusline goes back to idle, and one client runs.
func TestNvimPluginEnable(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := binaryRun(t, false)
		r.init = "enable_init.lua"
		r.link("bin", "agentls")
		srv := openaitest.New(func(openaitest.Request) openaitest.Reply {
			return openaitest.Reply{Parts: []string{"Hello ", "from the ", "enabled client."}}
		})
		t.Cleanup(srv.Close)
		r.provider(srv.URL)
		r.env["AGENTLS_MODEL"] = "rec:m"
		rec := r.nvim("plugin_enable.lua")
		defer r.done()

		if rec.boolean("setup_called") != false {
			r.errorf("setup() ran before the ask (setup_called = %v): the test must start agentls without it", rec.boolean("setup_called"))
		}
		chat := rec.str("chat")
		if !strings.HasPrefix(rec.str("chat_name"), "agentls://chat/") || !strings.Contains(chat, "## You") ||
			!strings.Contains(chat, "say hello") || !strings.Contains(chat, "Hello from the enabled client.") {
			r.errorf(":AgentChat %q after the ask:\n%s\nwant the prompt and the streamed answer", rec.str("chat_name"), chat)
		}
		if s := rec.str("statusline"); s != "agentls: idle" {
			r.errorf("statusline after the turn = %q, want agentls: idle", s)
		}
		if n := rec.Raw["clients"]; string(n) != "1" {
			r.errorf("%s clients on a.txt (%s), want the one agentls client", n, rec.Raw["client_names"])
		}
		if _, err := os.Stat(r.path("bin", "agentls")); err != nil {
			t.Fatal(err)
		}
	})
}
