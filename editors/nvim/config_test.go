//go:build unix

package nvim_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// A broken config file is named as such, must-show: agentls's
// config.json has a trailing comma, so the provider the model names is not
// there; the server says the file did not load (not "unknown provider"),
// the failed ask says it again, and :checkhealth agentls reports it as an
// error — with the setup() typo modle= (did you mean model=?).
func TestNvimPluginBrokenConfig(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.provider("http://127.0.0.1:9/v1")
		file := r.path("config", "agentls", "config.json")
		if err := os.WriteFile(file, []byte(`{"providers":{"rec":{"base_url":"http://127.0.0.1:9/v1"},}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		r.env["AGENTLS_PLUGIN_TYPO"] = "modle"
		rec := r.nvim("plugin_config.lua")
		defer r.done()

		named := "your config file " + file + " did not load"
		var shown, asked bool
		for _, m := range rec.Messages {
			shown = shown || strings.HasPrefix(m, "agentls: "+named)
			asked = asked || (strings.Contains(m, named) && !strings.HasPrefix(m, "agentls: your config"))
			if strings.Contains(m, "unknown provider") && !strings.Contains(m, named) {
				r.errorf("a message blames the provider without naming the file: %q", m)
			}
		}
		if !shown || !asked {
			r.errorf("messages %q: want the server's (%q) and the failed ask's naming the file", rec.Messages, named)
		}
		health := strings.Join(rec.Health, "\n")
		if !strings.Contains(health, "ERROR: "+named) && !strings.Contains(health, "ERROR: "+file+" is not valid JSON") {
			r.errorf(":checkhealth agentls does not report the broken file as an error:\n%s", health)
		}
		if !strings.Contains(health, "ERROR: setup{modle=…}: no such option (did you mean model=?)") {
			r.errorf(":checkhealth agentls does not report the typo modle=:\n%s", health)
		}
		if !strings.Contains(r.output.String(), "setup{modle=…}: no such option") {
			r.errorf("setup() did not report the typo modle= when it ran:\n%s", r.output.String())
		}
	})
}

// ask_timeout counts on every version: a review nobody answers closes
// after setup{ask_timeout = 600} ms as a deny — with a message saying so —
// and the turn goes on to its end, the file untouched (0.10+ wait in a
// coroutine, where a vim.wait's timeout does not apply).
func TestNvimPluginAskTimeout(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.replay(pluginScript)
		r.env["AGENTLS_PLUGIN_ASK_TIMEOUT"] = "600"
		rec := r.nvim("plugin_timeout.lua")
		defer r.done()

		timedOut := false
		for _, m := range rec.Messages {
			timedOut = timedOut || strings.Contains(m, "within ask_timeout")
		}
		if !timedOut {
			r.errorf("messages %q, want one saying the review got no answer within ask_timeout", rec.Messages)
		}
		var ms int
		json.Unmarshal(rec.Raw["turn_ms"], &ms)
		if ms < 600 || ms > 15000 {
			r.errorf("the turn took %d ms, want it to end soon after the 600 ms ask_timeout", ms)
		}
		if rec.TextAfter != strings.TrimSuffix(pluginFile, "\n") || len(rec.WindowsAfter) != 1 {
			r.errorf("after the timeout: buffer %q, windows %+v; want the file untouched, the review closed", rec.TextAfter, rec.WindowsAfter)
		}
	})
}
