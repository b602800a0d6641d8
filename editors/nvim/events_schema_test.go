//go:build unix

package nvim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNvimEventContract: the plugin's event fields (lua/agentls/events.lua)
// match docs/events.schema.json and the plugin reads no other field, as
// checked in Lua by test/events_schema.lua on every Neovim. The server's
// (cmd/agentls) and the VS Code extension's tests check the same file.
func TestNvimEventContract(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		result := filepath.Join(t.TempDir(), "result")
		schema, _ := filepath.Abs(filepath.Join("..", "..", "docs", "events.schema.json"))
		lua, _ := filepath.Abs("lua")
		script, _ := filepath.Abs(filepath.Join("test", "events_schema.lua"))
		cmd := exec.Command(nvimOf(t).path, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
		cmd.Env = append(os.Environ(), "AGENTLS_SCHEMA="+schema, "AGENTLS_PLUGIN_LUA="+lua, "AGENTLS_RESULT="+result, "XDG_STATE_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		data, rerr := os.ReadFile(result)
		if rerr != nil {
			t.Fatalf("the Lua check wrote no result (%v, %v):\n%s", rerr, err, out)
		}
		if got := strings.TrimSpace(string(data)); got != "ok" {
			t.Errorf("the plugin's event contract drifted from docs/events.schema.json:\n%s", got)
		}
	})
}
