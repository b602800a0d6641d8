-- Scenario: a question comes while you type. In Insert mode in a.txt the
-- scenario types "A // remember to up", runs :AgentAsk from a timer, and
-- when the agent's question (options sqlite, postgres) appears it types on
-- at once: "date the docs and the changelog<CR>and the readme<Esc>1<CR>".
-- Those keys are the buffer's: the question stays open. 600 ms later it
-- records the buffer and the question, types 1<CR> in the question's
-- float (which took the focus when Insert mode ended) and waits for the
-- turn's end.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run_co(function(rec)
  local agentls = require('agentls')
  local buf = h.edit_ready(rec)
  vim.api.nvim_create_autocmd('User', { pattern = 'AgentlsQuestion', once = true, callback = function()
    rec.mode_asked = vim.api.nvim_get_mode().mode
    vim.api.nvim_input('date the docs and the changelog<CR>and the readme<Esc>1<CR>')
    rec.asked = true
  end })
  vim.api.nvim_input('A // remember to up')
  h.wait(rec, 5000, function()
    return h.text(buf):find('remember to up', 1, true) ~= nil
  end, 'typing')
  vim.cmd('AgentAsk add storage')
  h.wait(rec, 20000, function()
    return rec.asked == true
  end, 'the question')
  local t = vim.loop.hrtime()
  h.wait(rec, 5000, function()
    return vim.loop.hrtime() - t > 600e6
  end, '600 ms of typing')
  rec.text_typed = h.text(buf)
  rec.open_questions = #require('agentls.question').open()
  rec.status_typed = agentls.status()
  rec.window_typed = vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
  vim.api.nvim_input('1<CR>')
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle'
  end, 'turn done')
  rec.text_after = h.text(buf)
  rec.windows_after = _G.agentls_test.windows()
  h.stop_plugin(rec)
end, 40000)
