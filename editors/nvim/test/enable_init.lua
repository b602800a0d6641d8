-- The init of a person who starts agentls Neovim 0.11+'s way: the plugin on
-- 'runtimepath' and vim.lsp.enable('agentls'), nothing else — no setup();
-- the plugin's lsp/agentls.lua is the configuration, agentls is found on
-- $PATH. Before 0.11 (no vim.lsp.enable) a client named agentls is started
-- the plain way, with a cmd and a root only — none of the plugin's
-- handlers or capabilities — as another plugin might: the plugin must
-- still make it its own.
--
-- Environment: AGENTLS_PLUGIN_RTP, AGENTLS_E2E_ROOT.
vim.opt.runtimepath:prepend(vim.env.AGENTLS_PLUGIN_RTP)
_G.agentls_test = { selects = {}, inputs = {}, never = {} }
function _G.agentls_test.windows()
  return {}
end

if vim.lsp.enable then
  vim.lsp.enable('agentls')
else
  vim.api.nvim_create_autocmd('BufReadPost', { callback = function(args)
    local conf = { name = 'agentls', cmd = { 'agentls', 'serve', '--stdio' }, root_dir = vim.env.AGENTLS_E2E_ROOT }
    if vim.lsp.start then
      vim.lsp.start(conf, { bufnr = args.buf })
    else
      vim.lsp.buf_attach_client(args.buf, vim.lsp.start_client(conf))
    end
  end })
end
