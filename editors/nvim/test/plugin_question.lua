-- Scenario: the agent asks questions (agentls/askQuestion, out of band)
-- while a turn runs (:AgentAsk). Each shows in the plugin's float; at each
-- User AgentlsQuestion the scenario records the float's text and, 600 ms
-- later (keys typed as a question appears do nothing), types the next
-- entry of $AGENTLS_PLUGIN_KEYS (comma-separated, key notation) as a
-- person would, Neovim's main loop reading them. The Go test's model
-- endpoint reads the answers from the tool results.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT,
-- AGENTLS_PLUGIN_KEYS.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run_co(function(rec)
  local agentls = require('agentls')
  local keys = vim.split(h.env('AGENTLS_PLUGIN_KEYS'), ',', { plain = true })
  rec.questions, rec.floats, rec.focused = 0, {}, {}
  vim.api.nvim_create_autocmd('User', { pattern = 'AgentlsQuestion', callback = function()
    rec.questions = rec.questions + 1
    rec.status_asked = agentls.status()
    local buf = vim.api.nvim_get_current_buf()
    table.insert(rec.floats, table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'))
    table.insert(rec.focused, vim.api.nvim_buf_get_name(buf):match('^agentls://question/') ~= nil)
    local k = table.remove(keys, 1) or 'q'
    vim.defer_fn(function()
      vim.api.nvim_input(k)
    end, 600)
  end })

  h.edit_ready(rec)
  vim.cmd('AgentAsk add storage')
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle' and rec.questions >= 4
  end, 'turn done')
  rec.windows_after = _G.agentls_test.windows()
  h.stop_plugin(rec)
end, 40000)
