-- Scenario: agentls's config file does not load (the Go test writes a
-- broken one) and setup() got an option typo. It records every vim.notify
-- message, asks (:AgentAsk, which fails for want of the file's provider)
-- and records :checkhealth agentls.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  h.record_messages(rec)
  h.edit_ready(rec)
  h.wait(rec, 5000, function()
    return #rec.messages > 0
  end, 'the server said something')
  vim.cmd('AgentAsk hello')
  h.wait(rec, 5000, function()
    return #rec.messages > 1
  end, 'the ask failed')
  rec.health = h.health('agentls')
  h.stop_plugin(rec)
end)
