-- Scenario: a picker that never answers (plugin_init.lua's vim.ui.select
-- with the answer <never>, like a broken telescope or dressing). :AgentAsk;
-- the agent's command is asked; the scenario writes "asked" to
-- $AGENTLS_PLUGIN_MARK and returns to Neovim's main loop, where the Go
-- test types :AgentCancel<CR> (nvim --remote-send) and asks Neovim for
-- status() (--remote-expr). When the turn has ended it answers the stale
-- picker (a late answer must be dropped) and records.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT,
-- AGENTLS_PLUGIN_MARK.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local function now(rec)
  return (vim.loop.hrtime() - rec.t0) / 1e6
end

h.run_async(function(rec, done)
  local agentls = require('agentls')
  rec.messages = {}
  local notify = vim.notify
  vim.notify = function(msg, level, opts)
    table.insert(rec.messages, string.format('%s %s', tostring(level), tostring(msg)))
    return notify(msg, level, opts)
  end
  h.edit_ready(rec)

  vim.api.nvim_create_autocmd('User', { pattern = 'AgentlsStatus', callback = function()
    if rec.asked_ms and not rec.ended_ms and agentls.status() == 'idle' then
      rec.ended_ms = now(rec)
      h.step(rec, 'turn over')
      rec.selects = _G.agentls_test.selects
      rec.status_after = agentls.status()
      -- The picker answers at last: the question is over, nothing is sent.
      for _, answer in ipairs(_G.agentls_test.never) do
        answer(1)
      end
      vim.defer_fn(function()
        rec.status_late = agentls.status()
        rec.log = require('agentls.transcript').lines()
        h.stop_plugin(rec)
        done()
      end, 300)
    end
  end })

  vim.cmd('AgentAsk make a build folder')
  h.wait(rec, 20000, function()
    return #_G.agentls_test.selects > 0
  end, 'asked through the picker')
  rec.asked_ms = now(rec)
  rec.status_asked = agentls.status()
  local f = assert(io.open(h.env('AGENTLS_PLUGIN_MARK'), 'w'))
  f:write('asked')
  f:close()
  -- Back to the main loop: typed keys are read from here on.
end, 40000)
