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

-- :help agentls without :helptags: a plugin manager's local folder (lazy.nvim's
-- `dir`) runs none, so make the tags once when the doc folder has none.
local doc = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h') .. '/doc'
if vim.fn.filereadable(doc .. '/tags') == 0 and vim.fn.filewritable(doc) == 2 then
  pcall(vim.cmd, 'silent! helptags ' .. vim.fn.fnameescape(doc))
end

-- A client named agentls gets the plugin's handlers however it was started
-- (vim.lsp.enable('agentls'), vim.lsp.config, another plugin): LspAttach is
-- 0.8+; on 0.7 only setup()'s clients exist.
if vim.fn.has('nvim-0.8') == 1 then
  vim.api.nvim_create_autocmd('LspAttach', {
    group = vim.api.nvim_create_augroup('agentls_adopt', { clear = true }),
    callback = function(args)
      local c = args.data and vim.lsp.get_client_by_id(args.data.client_id)
      if c and c.name == 'agentls' then
        require('agentls.client').adopt(c)
      end
    end,
  })
end
