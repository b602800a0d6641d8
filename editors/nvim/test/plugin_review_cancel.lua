-- Scenario: :AgentCancel while a review is open. The agent writes a.txt;
-- when its review shows, the scenario types :AgentCancel<CR> (on 0.7-0.9
-- the review's wait reads it: ':' takes a command line). It records the
-- turn's end, the buffer and the windows.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run_co(function(rec)
  local agentls = require('agentls')
  local buf = h.edit_ready(rec)
  rec.reviews = 0
  vim.api.nvim_create_autocmd('User', { pattern = 'AgentlsReview', callback = function()
    rec.reviews = rec.reviews + 1
    vim.defer_fn(function()
      vim.api.nvim_input(':AgentCancel<CR>')
    end, 600)
  end })
  vim.cmd('AgentAsk greet agentls')
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle' and rec.reviews > 0
  end, 'turn over')
  rec.text_after = h.text(buf)
  rec.windows_after = _G.agentls_test.windows()
  rec.log = require('agentls.transcript').lines()
  h.stop_plugin(rec)
end, 40000)
