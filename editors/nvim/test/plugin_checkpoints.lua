-- Scenario: checkpoints through the editor, every command typed. The
-- person changes line 2 of a.txt without saving; :AgentAsk runs the
-- agent's edit of line 1 (the ask answered by the stubbed vim.ui.select),
-- which lands in the buffer, unsaved. :AgentCheckpoints lists the
-- session's checkpoints and restores the files to before the edit (the
-- stub picks #1, then files): the buffer changes through applyEdit. u
-- brings back the agent's line, <C-r> the restored one, and
-- :AgentCheckpoints undo undoes the restore. Then the person changes line
-- 1 and restores to the edit's checkpoint again (the stub picks #3): a
-- conflict, their line kept, opened as a diff in a tab page. Last, in the
-- chat, :AgentCheckpoints on the edit's tool call asks what to restore
-- to before it (dismissed), and :AgentCheckpoints 1 conversation takes
-- the conversation back to before the edit's prompt: the chat no longer
-- shows the turn, its prompt back under "## Ask"; :AgentCheckpoints undo
-- shows it again, and the chat's todos go back and forth with it (the
-- reply's conversation.todos); after :AgentResume of the session (a chat from
-- agentls.history) the same restore rebuilds the chat. It records
-- the buffer, its 'modified', the disk and its mtime at each step, the
-- selects, the messages, the transcript, the chat and the diff's windows.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT,
-- AGENTLS_E2E_PROMPT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run_co(function(rec)
  h.record_messages(rec)
  local agentls = require('agentls')
  local transcript = require('agentls.transcript')
  local path = h.env('AGENTLS_E2E_ROOT') .. '/' .. h.env('AGENTLS_E2E_FILE')
  local buf = h.edit_ready(rec)

  local function snapshot(key)
    local st = vim.loop.fs_stat(path)
    rec[key] = { text = h.text(buf), modified = vim.bo[buf].modified, disk = h.disk(path),
      mtime = st and string.format('%d.%09d', st.mtime.sec, st.mtime.nsec) or nil }
  end
  local function lines(pattern)
    local n = 0
    for _, l in ipairs(transcript.lines()) do
      if l:find(pattern) then
        n = n + 1
      end
    end
    return n
  end
  -- typed types keys as a person would and waits until cond().
  local function typed(keys, what, cond)
    vim.api.nvim_input(keys)
    h.wait(rec, 15000, function()
      return lines('^error: restore') > 0 or cond()
    end, what)
    if lines('^error: restore') > 0 then
      error('a restore failed: ' .. table.concat(transcript.lines(), '\n'))
    end
  end

  typed('jA (unsaved)<Esc>', 'the unsaved line 2', function()
    return h.text(buf):find('(unsaved)', 1, true) ~= nil
  end)
  snapshot('before')
  typed(':AgentAsk ' .. h.env('AGENTLS_E2E_PROMPT') .. '<CR>', 'the turn, its edit in the buffer', function()
    return agentls.status() == 'idle' and h.text(buf):find('hello agentls', 1, true) ~= nil
  end)
  snapshot('after')

  typed(':AgentCheckpoints<CR>', 'the restore', function()
    return lines('^↶ restored to checkpoint') >= 1
  end)
  snapshot('restored')
  typed('u', 'u', function()
    return h.text(buf) ~= rec.restored.text
  end)
  snapshot('undone')
  typed('<C-r>', '<C-r>', function()
    return h.text(buf) == rec.restored.text
  end)
  typed(':AgentCheckpoints undo<CR>', 'the undo of the restore', function()
    return lines('^↶ undid the last restore') >= 1
  end)
  snapshot('unrestored')

  typed('ggA, says the person<Esc>', 'the person edits line 1', function()
    return h.text(buf):find('says the person', 1, true) ~= nil
  end)
  snapshot('mine')
  local tabs = #vim.api.nvim_list_tabpages()
  typed(':AgentCheckpoints<CR>', 'the restore with a conflict', function()
    return lines('^↶ restored to checkpoint') >= 2 and #vim.api.nvim_list_tabpages() > tabs
  end)
  snapshot('conflict')
  rec.diff_windows = {}
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    table.insert(rec.diff_windows, { name = vim.api.nvim_buf_get_name(b), diff = vim.wo[w].diff, text = h.text(b),
      modifiable = vim.bo[b].modifiable })
  end

  -- In the chat, on the edit's tool call, :AgentCheckpoints asks at once
  -- what to restore to before that step ("restore to here"; dismissed).
  vim.cmd('AgentChat')
  local chat = vim.api.nvim_get_current_buf()
  rec.chat_turn = h.text(chat)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(chat, 0, -1, false)) do
    if l:find('^▸ edit a%.txt') then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
    end
  end
  local selects = #_G.agentls_test.selects
  typed(':AgentCheckpoints<CR>', 'restore to here', function()
    return #_G.agentls_test.selects > selects
  end)
  -- By id, the conversation only: the files stay as they are.
  typed(':AgentCheckpoints 1 conversation<CR>', 'the conversation restored', function()
    return lines('the conversation is back to') >= 1
  end)
  snapshot('conversation')
  rec.chat = h.text(chat)
  -- Undone: the chat shows the turn again.
  typed(':AgentCheckpoints undo<CR>', 'the undo of the conversation restore', function()
    return lines('^↶ undid the last restore') >= 2
  end)
  rec.chat_undone = h.text(chat)
  -- The chat shown again from the stored session (:AgentResume) knows no
  -- turn ids: a restore of the conversation rebuilds it from
  -- agentls.history.
  local session = vim.api.nvim_buf_get_name(chat):match('^agentls://chat/(.+)$')
  vim.cmd('AgentResume ' .. session)
  h.wait(rec, 10000, function()
    return h.text(chat):find('resumed session', 1, true) ~= nil
  end, 'the resumed chat')
  rec.chat_resumed = h.text(chat)
  typed(':AgentCheckpoints 1 conversation<CR>', 'the resumed chat rebuilt after the restore', function()
    local text = h.text(chat)
    return text:find('the conversation as the agent has it now', 1, true) ~= nil and text:find('back to 0 message', 1, true) ~= nil
  end)
  rec.chat_rebuilt = h.text(chat)
  rec.selects = _G.agentls_test.selects
  rec.log = transcript.lines()
  h.stop_plugin(rec)
end, 50000)
