-- Scenario, in two Neovim runs on the same data folder: with
-- AGENTLS_PLUGIN_STEP=ask it asks "the password is PELICAN" and quits;
-- with AGENTLS_PLUGIN_STEP=resume (a new Neovim, a new server) it runs
-- :AgentResume, records the chat it opens, asks a follow-up with :AgentAsk
-- and records the chat again.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT,
-- AGENTLS_PLUGIN_STEP.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local function chat_text()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):match('^agentls://chat/') then
      return h.text(b)
    end
  end
  return ''
end

local function ask(rec, prompt)
  local agentls = require('agentls')
  vim.cmd('AgentAsk ' .. prompt)
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle'
  end, 'turn done: ' .. prompt)
end

h.run(function(rec)
  h.edit_ready(rec)
  if h.env('AGENTLS_PLUGIN_STEP') == 'ask' then
    ask(rec, 'the password is PELICAN')
  else
    vim.cmd('AgentResume')
    h.wait(rec, 10000, function()
      return chat_text():find('PELICAN', 1, true) ~= nil
    end, 'the resumed chat')
    rec.chat_resumed = chat_text()
    vim.cmd('wincmd p')
    ask(rec, 'what is the password?')
    rec.chat_after = chat_text()
  end
  h.stop_plugin(rec)
end)
