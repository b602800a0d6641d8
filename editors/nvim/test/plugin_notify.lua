-- Scenario: the notification at a turn's end. :AgentAsk runs a turn whose
-- answer begins with a Markdown heading; the scenario waits for the turn
-- to end (status idle, the transcript's end line) and for the server's
-- closing message, and records every vim.notify message.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local agentls = require('agentls')
  h.record_messages(rec)
  h.edit_ready(rec)
  vim.cmd('AgentAsk what changed?')
  h.wait(rec, 15000, function()
    local lines = require('agentls.transcript').lines()
    return agentls.status() == 'idle' and #lines > 0 and lines[#lines]:match('ended') ~= nil
  end, 'turn over')
  -- The closing message comes as window/showMessage after the turn's end.
  h.wait(rec, 10000, function()
    for _, m in ipairs(rec.messages) do
      if m:match('^agentls: ') then
        return true
      end
    end
    return false
  end, 'the closing notification')
  rec.log = require('agentls.transcript').lines()
  h.stop_plugin(rec)
end)
