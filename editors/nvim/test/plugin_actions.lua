-- Scenario: the server's code actions through vim.lsp.buf (the pickers
-- are plugin_init.lua's stubs). On a selection, "Ask agent about
-- selection…" asks for your question (vim.ui.input) and sends it with the
-- selection; on a line with no diagnostics, "Fix with agent: check this
-- line" shows its prompt for confirming. Each turn is waited for.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local agentls = require('agentls')
  h.edit_ready(rec)

  local function turn(start, what)
    h.wait(rec, 15000, function()
      return #_G.agentls_test.inputs >= start
    end, what .. ': asked for the prompt')
    h.wait(rec, 15000, function()
      return agentls.status() == 'idle' and #require('agentls.transcript').lines() > 0
        and require('agentls.transcript').lines()[#require('agentls.transcript').lines()]:match('ended')
    end, what .. ': turn over')
  end

  if vim.lsp.buf.range_code_action then
    vim.lsp.buf.range_code_action(nil, { 1, 0 }, { 1, 4 })
  else -- 0.10+
    vim.lsp.buf.code_action({ range = { start = { 1, 0 }, ['end'] = { 1, 4 } } })
  end
  turn(1, 'selection')
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.lsp.buf.code_action()
  turn(2, 'line')
  rec.selects = _G.agentls_test.selects
  rec.inputs = _G.agentls_test.inputs
  rec.log = require('agentls.transcript').lines()
  h.stop_plugin(rec)
end)
