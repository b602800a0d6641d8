package lsp

import "strings"

// Messages name settings the way the person's editor does: where a model
// is set in Neovim is not where it is set in VS Code. The client is known
// by initialize's clientInfo.name.

// modelSetting is where the person sets the model in their editor.
func modelSetting(client string) string {
	c := strings.ToLower(client)
	switch {
	case strings.Contains(c, "neovim"), c == "nvim":
		return `model = "provider:model" in require('agentls').setup{…} (or init_options.model of your vim.lsp config)`
	case strings.Contains(c, "code"), strings.Contains(c, "codium"), strings.Contains(c, "cursor"):
		return "the agentls.model setting (Settings → Extensions → agentls)"
	case strings.Contains(c, "eglot"), strings.Contains(c, "emacs"):
		return `(:model "provider:model") in agentls's :initializationOptions in eglot-server-programs`
	case strings.Contains(c, "helix"):
		return `config = { model = "provider:model" } for agentls in Helix's languages.toml`
	case strings.Contains(c, "zed"):
		return `"initialization_options": {"model": "provider:model"} for agentls in Zed's lsp settings`
	}
	return "the editor's initializationOptions.model"
}
