-- Scenario: setup{ask_timeout = $AGENTLS_PLUGIN_ASK_TIMEOUT}; the agent's
-- edit comes as a review nobody answers. It records every vim.notify
-- message, how long the turn took, the buffer and the windows after it.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run_co(function(rec)
  local agentls = require('agentls')
  h.record_messages(rec)
  local buf = h.edit_ready(rec)
  local t = vim.loop.hrtime()
  vim.cmd('AgentAsk greet agentls')
  h.wait(rec, 30000, function()
    return agentls.status() == 'idle'
  end, 'turn done')
  rec.turn_ms = math.floor((vim.loop.hrtime() - t) / 1e6)
  rec.text_after = h.text(buf)
  rec.windows_after = _G.agentls_test.windows()
  h.stop_plugin(rec)
end, 40000)
