-- Scenario: messages in Neovim's words. With no model configured,
-- :AgentAsk fails with a message naming setup{model = …}; :AgentRevert
-- with no turn to revert says so once ("revert:" not doubled). It records
-- every vim.notify message and the transcript.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  h.record_messages(rec)
  h.edit_ready(rec)
  local function answered(what)
    local before = #rec.messages
    return function()
      h.wait(rec, 10000, function()
        return #rec.messages > before
      end, what)
    end
  end
  local wait = answered(':AgentAsk answered')
  vim.cmd('AgentAsk hello')
  wait()
  wait = answered(':AgentRevert answered')
  vim.cmd('AgentRevert')
  wait()
  rec.log = require('agentls.transcript').lines()
  h.stop_plugin(rec)
end)
