-- Scenario (with enable_init.lua): a.txt is opened, the agentls client
-- started without setup() attaches; :AgentAsk, then :AgentChat. It
-- records the clients, the chat's text and the statusline after the turn.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local function lsp_clients(buf)
  local out = {}
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
  for _, c in pairs(list) do
    table.insert(out, c)
  end
  return out
end

h.run(function(rec)
  local agentls = require('agentls')
  vim.cmd('edit ' .. vim.fn.fnameescape(h.env('AGENTLS_E2E_ROOT') .. '/' .. h.env('AGENTLS_E2E_FILE')))
  local buf = vim.api.nvim_get_current_buf()
  h.wait(rec, 10000, function()
    local c = lsp_clients(buf)[1]
    return c ~= nil and c.initialized == true
  end, 'an agentls client attached')
  -- setup() makes the augroup agentls (its BufReadPost attach).
  rec.setup_called = vim.fn.exists('#agentls#BufReadPost') == 1
  vim.cmd('AgentAsk say hello')
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle'
  end, 'turn done')
  vim.cmd('AgentChat')
  local chat = vim.api.nvim_get_current_buf()
  rec.chat_name = vim.api.nvim_buf_get_name(chat)
  rec.chat = h.text(chat)
  rec.statusline = agentls.statusline()
  rec.clients = #lsp_clients(buf)
  rec.client_names = vim.tbl_map(function(c)
    return c.name
  end, lsp_clients(buf))
  rec.server_pid = h.server_pid(lsp_clients(buf)[1])
  h.stop_plugin(rec)
end)
