-- Scenario: asks with a selection. A charwise visual selection across
-- multibyte characters (:'<,'>AgentAsk), a linewise one, then a typed
-- range (:1AgentAsk) and no range at all; each turn is waited for (status
-- idle). The Go test's model endpoint records what the agent was told.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local agentls = require('agentls')
  local path = h.env('AGENTLS_E2E_ROOT') .. '/' .. h.env('AGENTLS_E2E_FILE')
  vim.cmd('edit ' .. vim.fn.fnameescape(path))

  local function ask(cmd)
    vim.cmd(cmd)
    h.wait(rec, 15000, function()
      return agentls.status() == 'idle'
    end, cmd)
  end

  -- Line 2 is "héllo wörld 😀 end": select "wörld 😀" (bytes 7..17, the
  -- emoji is 4 bytes and 2 UTF-16 units).
  vim.api.nvim_win_set_cursor(0, { 2, 7 })
  vim.cmd('normal! v')
  vim.api.nvim_win_set_cursor(0, { 2, 14 })
  vim.cmd('normal! \27')
  rec.marks = { vim.api.nvim_buf_get_mark(0, '<'), vim.api.nvim_buf_get_mark(0, '>') }
  ask("'<,'>AgentAsk explain the word")

  -- Lines 1-2, linewise.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('normal! Vj\27')
  ask("'<,'>AgentAsk explain these lines")

  -- A typed range: line 3 only.
  ask('3AgentAsk explain line three')

  -- No range: the file only.
  ask('AgentAsk explain the file')

  rec.log = require('agentls.transcript').lines()
  h.stop_plugin(rec)
end)
