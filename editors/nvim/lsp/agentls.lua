-- agentls for Neovim 0.11+'s own LSP configuration: vim.lsp.enable('agentls')
-- starts it with this configuration (merged with any vim.lsp.config('agentls',
-- {...}) of yours): the binary the plugin finds, the plugin's handlers and
-- capabilities, setup()'s options when you called it. See :help agentls-enable.
return require('agentls.client').lsp_config()
