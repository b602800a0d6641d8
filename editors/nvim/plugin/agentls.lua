-- agentls: a coding agent in Neovim through the agentls language server.
-- The commands exist as soon as the plugin is on 'runtimepath'; clients
-- start with require('agentls').setup({...}) (or the first command, with
-- the defaults). See :help agentls.
if vim.g.loaded_agentls then
  return
end
vim.g.loaded_agentls = 1

if vim.fn.has('nvim-0.7') == 0 then
  vim.api.nvim_echo({ { 'agentls needs Neovim 0.7 or later', 'WarningMsg' } }, true, {})
  return
end

require('agentls.commands').define()
