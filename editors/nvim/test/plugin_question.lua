-- Scenario: the agent asks questions through agentls/question while a
-- turn runs (:AgentAsk): free text through vim.ui.input, choices through
-- vim.ui.select (both stubbed by plugin_init.lua). The Go test's model
-- endpoint reads the answers from the tool results.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local agentls = require('agentls')
  vim.cmd('edit ' .. vim.fn.fnameescape(h.env('AGENTLS_E2E_ROOT') .. '/' .. h.env('AGENTLS_E2E_FILE')))
  h.wait(rec, 10000, function()
    local c = agentls.clients()
    return #c == 1 and c[1].ready
  end, 'client initialized')
  rec.server_pid = vim.lsp.get_client_by_id(agentls.clients()[1].id).rpc.pid
  vim.cmd('AgentAsk add storage')
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle' and #_G.agentls_test.inputs >= 2 and #_G.agentls_test.selects >= 4
  end, 'turn done')
  rec.selects = _G.agentls_test.selects
  rec.inputs = _G.agentls_test.inputs
  rec.log = require('agentls.transcript').lines()
  agentls.stop()
  h.wait(rec, 5000, function()
    return #agentls.clients() == 0
  end, 'server exit')
end)
