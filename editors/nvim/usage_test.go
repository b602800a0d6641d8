//go:build unix

package nvim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNvimUsageWords: the plugin's tokens and cost (lua/agentls/usage.lua,
// run by test/usage_format.lua on every Neovim) read as the server's
// sessions show writes them, and a usage without cost_usd (a model
// without a price) shows tokens only, never $0.
func TestNvimUsageWords(t *testing.T) {
	want := []string{
		"short priced=13k tokens · $0.012",
		"short unpriced=13k tokens",
		"short free=990 tokens · $0",
		"short big=1.2M tokens · $42.13",
		"short none=nil",
		"line priced=12,345 tokens in (10,000 cached), 678 out · $0.012 (session $0.050)",
		"line priced, session unknown=12,345 tokens in (10,000 cached), 678 out · $0.012",
		"line unpriced=12,345 tokens in, 678 out",
		"line none=nil",
		"cost tiny=<$0.0001",
		"cost text=nil",
		"tokens round=12k",
		"tokens junk=0",
	}
	eachNvim(t, func(t *testing.T) {
		result := filepath.Join(t.TempDir(), "result")
		lua, _ := filepath.Abs("lua")
		script, _ := filepath.Abs(filepath.Join("test", "usage_format.lua"))
		cmd := exec.Command(nvimOf(t).path, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
		cmd.Env = append(os.Environ(), "AGENTLS_PLUGIN_LUA="+lua, "AGENTLS_RESULT="+result, "XDG_STATE_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		data, rerr := os.ReadFile(result)
		if rerr != nil {
			t.Fatalf("the Lua scenario wrote no result (%v, %v):\n%s", rerr, err, out)
		}
		got := strings.Split(strings.TrimSpace(string(data)), "\n")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("usage words:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
