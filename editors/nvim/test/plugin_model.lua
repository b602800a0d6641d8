-- Scenario: a turn on the setup's model, :AgentModel without a model (the
-- stubbed vim.ui.select picks the one in $AGENTLS_PLUGIN_ANSWERS), a
-- follow-up on the new model, then :AgentModel with a model that cannot
-- run (refused, the conversation keeps its model) and :AgentModel with a
-- model named. It records the chat, the selects and the messages.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT,
-- AGENTLS_PLUGIN_ANSWERS, AGENTLS_PLUGIN_BAD_MODEL, AGENTLS_PLUGIN_LAST_MODEL.
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
  local ends = #vim.tbl_filter(function(m)
    return m:find('^agentls: ') == nil
  end, rec.messages)
  vim.cmd('AgentAsk ' .. prompt)
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle' and #rec.messages > ends
  end, 'turn done: ' .. prompt)
end

local function message(rec, pattern, what)
  h.wait(rec, 10000, function()
    for _, m in ipairs(rec.messages) do
      if m:find(pattern) then
        return true
      end
    end
    return false
  end, what)
end

h.run(function(rec)
  h.record_messages(rec)
  h.edit_ready(rec)
  ask(rec, 'the word is ZEBRA')
  vim.cmd('AgentModel')
  message(rec, 'goes on with rec:second', 'the switch from the list')
  rec.selects = _G.agentls_test.selects
  vim.cmd('AgentChat')
  vim.cmd('wincmd p')
  ask(rec, 'which word?')
  vim.cmd('AgentModel ' .. h.env('AGENTLS_PLUGIN_BAD_MODEL'))
  message(rec, 'stays on rec:second', 'the refused switch')
  vim.cmd('AgentModel ' .. h.env('AGENTLS_PLUGIN_LAST_MODEL'))
  message(rec, 'goes on with ' .. vim.pesc(h.env('AGENTLS_PLUGIN_LAST_MODEL')), 'the switch by name')
  rec.chat = chat_text()
  h.stop_plugin(rec)
end)
