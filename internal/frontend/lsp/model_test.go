package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// TestModelCommand: agentls.model says which model the next prompt goes to
// — the editor's setting over the config file — or, with none anywhere,
// that there is none, naming the editor's own setting, before any prompt.
func TestModelCommand(t *testing.T) {
	cases := []struct {
		name       string
		client     string
		init       any
		want       string
		wantReason string
	}{
		{"the editor's setting", "Visual Studio Code", map[string]string{"model": "local:qwen3"}, "local:qwen3", ""},
		{"none anywhere, VS Code", "Visual Studio Code", nil, "", "the agentls.model setting"},
		{"none anywhere, Neovim", "Neovim", nil, "", "require('agentls').setup"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := ctxT(t)
			ed, _ := setup(t, nil, nil, func(o *fake.Options) {
				o.ClientName = c.client
				o.InitOptions = c.init
			})
			raw, err := ed.ExecuteCommand(ctx, lsp.CommandModel, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got lsp.ModelStatus
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got.Model != c.want || (c.wantReason == "") != (got.Problem == "") || !strings.Contains(got.Problem, c.wantReason) {
				t.Errorf("agentls.model = %s, want model %q and a problem naming %q", raw, c.want, c.wantReason)
			}
		})
	}
}
