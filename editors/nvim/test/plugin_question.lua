-- Scenario: the agent asks questions through agentls/question while a
-- turn runs (:AgentAsk). On Neovim 0.7-0.9 the request is answered
-- synchronously, so the plugin asks with input() for free text and with a
-- float of its own for choices — both read typed keys while the handler
-- waits. At each User AgentlsQuestion (each wait) the scenario types
-- (400 ms later: keys typed as a question appears are dropped) the next
-- entry of $AGENTLS_PLUGIN_KEYS (comma-separated, key notation); it
-- records each float's text. The Go test's model endpoint reads the answers from the
-- tool results.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT,
-- AGENTLS_PLUGIN_KEYS.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local agentls = require('agentls')
  local keys = vim.split(h.env('AGENTLS_PLUGIN_KEYS'), ',', { plain = true })
  rec.questions, rec.floats = 0, {}
  vim.api.nvim_create_autocmd('User', { pattern = 'AgentlsQuestion', callback = function()
    rec.questions = rec.questions + 1
    rec.status_asked = agentls.status()
    local k = table.remove(keys, 1) or '<Esc>'
    vim.defer_fn(function()
      vim.api.nvim_input(k)
    end, 400)
  end })
  local chooser = require('agentls.chooser')
  local select = chooser.select
  chooser.select = function(items, opts, on_choice)
    local shown = select(items, opts, on_choice)
    table.insert(rec.floats, table.concat(vim.api.nvim_buf_get_lines(shown.buf, 0, -1, false), '\n'))
    return shown
  end

  h.edit_ready(rec)
  vim.cmd('AgentAsk add storage')
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle' and rec.questions >= 6
  end, 'turn done')
  rec.windows_after = _G.agentls_test.windows()
  h.stop_plugin(rec)
end)
