package config_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

// FuzzParse loads arbitrary config files. Parse must never panic; a
// config it accepts must save and load again as the same config (nothing
// it accepted is lost or refused the second time), and merging nothing
// over it must leave it as it is.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"model":"openai:gpt-4.1","providers":{"lm":{"base_url":"http://localhost:1234/v1","api_key_env":"LM_KEY","context_window":8192,"models":{"m":{"context_window":4096}}}},"max_steps":7}`,
		`{"permissions":{"mode":"smart","rules":{"fs.edit":"allow","shell.exec:go test":"allow","fs.write:docs/**":"allow","mcp.github.*":"ask","net.fetch:docs.python.org":"deny"},"ask_always":["shell.exec:git push"],"allowed_tools":["view","edit:write"],"inspectors":{"security":true,"egress":true,"repetition":5,"adversary":false},"ask_timeout":"5m"},"trusted_workspaces":["/abs/path","/home/me/src/**"]}`,
		`{"lsp":{"gopls":{"command":["gopls","serve"],"filetypes":["go"],"root_markers":["go.mod"],"init_options":{"x":1}},"zz":{"command":["zz-ls"],"filetypes":["zz"]}},"auto_lsp":false}`,
		`{"hooks":{"PreToolUse":[{"matcher":"bash","hooks":[{"type":"command","command":"./check.sh","timeout":5}]}]},"max_stop_continuations":3}`,
		`{"subagent_tools":["bash"],"permissions":{"mode":"yolo"}}`,
		`{"model":"x"} {"model":"y"}`,
		`{"lsp":{"gopls":"gopls"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := config.Parse("fuzz.json", data)
		if err != nil {
			return
		}
		saved, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("an accepted config does not marshal: %v", err)
		}
		again, err := config.Parse("saved.json", saved)
		if err != nil {
			t.Fatalf("config %s was accepted, but saved as %s it is refused: %v", data, saved, err)
		}
		if resaved, _ := json.Marshal(again); !bytes.Equal(resaved, saved) {
			t.Fatalf("config %s saved and loaded again changed:\n%s\n%s", data, saved, resaved)
		}
		if merged, _ := json.Marshal(config.Merge(c, config.Config{})); !bytes.Equal(merged, saved) {
			t.Fatalf("merging nothing over %s changed it:\n%s\n%s", data, saved, merged)
		}
	})
}
