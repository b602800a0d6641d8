-- Scenario: Neovim's own vim.ui.select (plugin_init.lua leaves it with
-- AGENTLS_PLUGIN_NO_STUB=1) is inputlist(), which would hold every key, so
-- the plugin asks in a float of its own. :AgentAsk; the agent's command is
-- asked; the scenario records the float, types q at once (dropped: keys
-- typed as a question appears never answer it), 1 (Allow) 600 ms later and returns to
-- the main loop, which reads the key as typed; when the turn is over it
-- records the windows.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local function floats()
  local out = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      table.insert(out, w)
    end
  end
  return out
end

h.run_async(function(rec, done)
  local agentls = require('agentls')
  h.edit_ready(rec)
  vim.cmd('AgentAsk make a build folder')
  h.wait(rec, 20000, function()
    return #floats() == 1
  end, 'the ask float')
  local float = floats()[1]
  local buf = vim.api.nvim_win_get_buf(float)
  rec.float = { focused = vim.api.nvim_get_current_win() == float, buftype = vim.bo[buf].buftype,
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) }
  rec.status_asked = agentls.status()
  vim.api.nvim_create_autocmd('User', { pattern = 'AgentlsStatus', callback = function()
    if agentls.status() == 'idle' and not rec.floats_after then
      rec.floats_after = #floats()
      rec.log = require('agentls.transcript').lines()
      h.stop_plugin(rec)
      done()
    end
  end })
  -- Typed as the float appears (meant for something else): dropped, or it
  -- would dismiss the ask. 600 ms later the person answers.
  vim.api.nvim_input('q')
  vim.defer_fn(function()
    vim.api.nvim_input('1<CR>')
  end, 600)
end, 40000)
