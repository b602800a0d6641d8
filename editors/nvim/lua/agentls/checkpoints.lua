-- :AgentCheckpoints: the session's checkpoints (agentls.checkpoints), one
-- before every step of the agent that may change files, and restoring to
-- one (agentls.restoreCheckpoint): the files, the conversation or both,
-- or undoing the last restore. Open buffers change through
-- workspace/applyEdit, so |u| takes a restore back in the editor; a path
-- someone changed after the agent's step is kept and reported as a
-- conflict, which opens as a diff of your version and the checkpoint's.
local chat = require('agentls.chat')
local client = require('agentls.client')
local rpc = require('agentls.rpc')
local state = require('agentls.state')
local transcript = require('agentls.transcript')
local util = require('agentls.util')

local M = {}

-- max_diffs bounds the diff tabs one restore opens; the rest are named.
M.max_diffs = 5

-- args are the commands' argument object: the client's session when the
-- plugin knows it (a resumed one too), else the server's default.
local function args(id, extra)
  local a = vim.deepcopy(extra or {})
  if util.present(state.sessions[id]) then
    a.sessionId = state.sessions[id]
  end
  return next(a) == nil and vim.empty_dict() or a
end

--- list calls on_list(checkpoints) with client id's session's checkpoints,
--- oldest first ({id, callId, tool, title, kind, convSeq, time, changed,
--- notes}).
function M.list(id, on_list)
  rpc.command(id, 'agentls.checkpoints', args(id), nil, function(err, result)
    if err then
      util.notify('agentls: ' .. util.reword(tostring(err.message)), vim.log.levels.ERROR)
      return
    end
    on_list(util.list(type(result) == 'table' and result.checkpoints, function(c)
      return type(c) == 'table' and type(c.id) == 'number' and c or nil
    end))
  end)
end

--- label is how checkpoint c, the n-th of the session, appears in the
--- list: the step, its time, the tool's title and how many paths it
--- changed.
function M.label(c, n)
  local when = type(c.time) == 'string' and c.time:sub(12, 19) or ''
  local title = util.present(c.title) and tostring(c.title) or tostring(c.tool or '?')
  local changed = tonumber(c.changed) or 0
  local notes = type(c.notes) == 'table' and #c.notes > 0 and '  (' .. #c.notes .. ' note(s))' or ''
  return string.format('%d. %s  %s  · %d file(s) changed%s', n, when, title, changed, notes)
end

-- undo_item is the list's last entry when the session has a restore.
local undo_item = { undo = true }

-- what_items are the answers to "restore what?"; conversation needs a
-- checkpoint that knows where its conversation stood.
local function what_items(c)
  local items = { { what = 'files', label = 'files: put the files back to before this step' } }
  if tonumber(c.convSeq) and c.convSeq >= 0 then
    table.insert(items, { what = 'conversation', label = "conversation: back to before this step's prompt" })
    table.insert(items, { what = 'both', label = 'both: the files and the conversation' })
  end
  return items
end

-- their_text is the checkpoint's version of a conflict: its copy's
-- content, else its text ('' when the checkpoint had no such file).
local function their_text(c)
  local ck = type(c.checkpoint) == 'table' and c.checkpoint or {}
  if util.present(ck.copy) then
    local f = io.open(ck.copy, 'rb')
    if f then
      local data = f:read('*a')
      f:close()
      return data
    end
  end
  return ck.exists and type(ck.text) == 'string' and ck.text or ''
end

--- diff opens conflict c in a tab page of its own: your version (the
--- file, or its buffer) beside the checkpoint's, a read-only scratch
--- buffer (agentls://checkpoint/<to>/<path>: no file, so no language
--- server starts on it), as a diff. Returns the tab page, or nil for a
--- path that is not a file on either side.
function M.diff(c, root)
  local path = tostring(c.path or '')
  local yours = type(c.yours) == 'table' and c.yours or {}
  local ck = type(c.checkpoint) == 'table' and c.checkpoint or {}
  if path == '' or (yours.kind ~= 'file' and ck.kind ~= 'file') then
    return nil
  end
  vim.cmd('tabedit ' .. vim.fn.fnameescape(path))
  local tab = vim.api.nvim_get_current_tabpage()
  local filetype = vim.bo.filetype
  vim.cmd('diffthis')
  local buf = util.scratch('agentls://checkpoint/' .. tostring(c.to or '') .. '/' .. transcript.relative(path, root), nil, false)
  util.set_lines(buf, util.split(their_text(c)))
  vim.cmd('vertical sbuffer ' .. buf)
  pcall(function()
    vim.bo[buf].filetype = filetype
  end)
  vim.cmd('diffthis')
  return tab
end

-- report puts a restore's result in the transcript and the chat, and
-- opens its conflicts as diffs (the server's message names it all).
local function report(id, result, undo)
  result = type(result) == 'table' and result or {}
  local root = state.roots[id]
  local restored = util.list(result.restored, function(p)
    return type(p) == 'string' and transcript.relative(p, root) or nil
  end)
  local conflicts = util.list(result.conflicts, function(c)
    return type(c) == 'table' and c or nil
  end)
  local head = undo and string.format('↶ undid the last restore (checkpoint %s)', tostring(result.to))
    or string.format('↶ restored to checkpoint %s', tostring(result.to))
  local line = head .. ': ' .. (#restored > 0 and table.concat(restored, ', ') or 'no file changed')
  for _, c in ipairs(conflicts) do
    line = line .. string.format('; kept your %s (%s)', transcript.relative(tostring(c.path), root), tostring(c.reason))
  end
  for _, sk in ipairs(util.list(result.skipped, function(s)
    return type(s) == 'table' and s or nil
  end)) do
    line = line .. string.format('; left alone %s (%s)', transcript.relative(tostring(sk.path), root), tostring(sk.reason))
  end
  if type(result.conversation) == 'table' then
    line = line .. string.format('; the conversation is back to %s message(s)', tostring(result.conversation.messages))
  end
  transcript.add({ line })
  local conv = type(result.conversation) == 'table' and result.conversation or nil
  M.show_conversation(id, conv and conv.turns, (line:gsub('^↶ ', '')), conv and conv.todos)
  local opened = 0
  for _, c in ipairs(conflicts) do
    if opened < M.max_diffs and M.diff(vim.tbl_extend('keep', { to = result.to }, c), root) then
      opened = opened + 1
    end
  end
end

--- show_conversation makes client id's chat show the conversation as
--- the model has it after a restore: turns, the turns it holds (nil: the
--- restore left the conversation alone), are shown and the others
--- hidden; said, the restore's report, goes last, with what the chat
--- hides or shows again. A chat shown again on resume (whose prompts do
--- not name their turns) is rebuilt from agentls.history instead. todos,
--- the todo list the conversation holds now, replaces the chat's.
function M.show_conversation(id, turns, said, todos)
  if type(todos) == 'table' then
    chat.show_todos(id, todos)
  end
  if type(turns) ~= 'table' then
    return chat.notice(id, said)
  end
  if not chat.knows_turns(id) and util.present(state.sessions[id]) then
    local session = state.sessions[id]
    return rpc.command(id, 'agentls.history', { sessionId = session }, nil, function(err, result)
      if not err then
        chat.history(id, session, (result or {}).entries, 'the conversation as the agent has it now')
      end
      chat.notice(id, said)
    end)
  end
  local dropped, back, prompt = chat.show_turns(id, turns)
  if dropped > 0 then
    said = said .. string.format('; the chat no longer shows the %d turn(s) the agent forgot (%s:AgentCheckpoints undo brings them back)',
      dropped, prompt and 'the prompt is back under "## Ask"; ' or '')
  end
  if back > 0 then
    said = said .. string.format('; the chat shows again the %d turn(s) the agent remembers again', back)
  end
  chat.notice(id, said)
end

--- restore sends agentls.restoreCheckpoint: {checkpoint = N, what = …} or
--- {undo = true}; on_done(result), when given, runs after the report.
function M.restore(id, a, on_done)
  rpc.command(id, 'agentls.restoreCheckpoint', args(id, a), nil, function(err, result)
    if err then
      local msg = util.reword(tostring(err.message))
      transcript.add({ 'error: restore: ' .. msg })
      util.notify('agentls: ' .. msg, vim.log.levels.ERROR)
      return
    end
    report(id, result, a.undo)
    if on_done then
      on_done(result)
    end
  end)
end

--- choose asks what to restore to before checkpoint c (files,
--- conversation or both) and restores it; what, when given, is the answer.
function M.choose(id, c, n, what)
  if util.present(what) then
    return M.restore(id, { checkpoint = c.id, what = what })
  end
  vim.ui.select(what_items(c), {
    prompt = 'agentls: restore to before ' .. M.label(c, n) .. ':',
    kind = 'agentls_restore',
    format_item = function(i)
      return i.label
    end,
  }, function(i)
    if i then
      M.restore(id, { checkpoint = c.id, what = i.what })
    end
  end)
end

-- here is the checkpoint of the tool call under the cursor in a chat.
local function here(list)
  local ok, b = pcall(chat.block_at, vim.api.nvim_get_current_buf(), vim.fn.line('.'))
  if not ok or type(b) ~= 'table' or not util.present(b.id) then
    return nil
  end
  for n, c in ipairs(list) do
    if c.callId == b.id then
      return c, n
    end
  end
end

--- pick offers the session's checkpoints (vim.ui.select), newest first,
--- and "undo the last restore" when there is one; the one chosen is
--- restored after asking what (:AgentCheckpoints). In the chat, on a tool
--- call that has a checkpoint, it asks what at once ("restore to here").
function M.pick()
  client.with_current(function(id)
    M.list(id, function(list)
      if #list == 0 then
        util.notify('agentls: no checkpoints yet: one is taken before every step of the agent that may change files')
        return
      end
      local c, n = here(list)
      if c then
        return M.choose(id, c, n)
      end
      local items = {}
      for i = #list, 1, -1 do
        table.insert(items, { c = list[i], n = i })
      end
      for i = #list, 1, -1 do
        if list[i].kind == 'restore' then
          table.insert(items, undo_item)
          break
        end
      end
      vim.ui.select(items, {
        prompt = "agentls: restore to before a step (this session's checkpoints, newest first)",
        kind = 'agentls_checkpoint',
        format_item = function(i)
          return i.undo and '↶ undo the last restore' or M.label(i.c, i.n)
        end,
      }, function(i)
        if i == undo_item then
          M.restore(id, { undo = true })
        elseif i then
          M.choose(id, i.c, i.n)
        end
      end)
    end)
  end)
end

--- command runs :AgentCheckpoints [undo | {id} [files|conversation|both]].
function M.command(arg)
  local words = vim.split(vim.trim(arg or ''), '%s+', { trimempty = true })
  if #words == 0 then
    return M.pick()
  end
  if words[1] == 'undo' then
    return client.with_current(function(id)
      M.restore(id, { undo = true })
    end)
  end
  local want = tonumber(words[1])
  local what = words[2]
  if not want or (what and what ~= 'files' and what ~= 'conversation' and what ~= 'both') then
    util.notify('agentls: :AgentCheckpoints [undo | {id} [files|conversation|both]]', vim.log.levels.ERROR)
    return
  end
  client.with_current(function(id)
    M.list(id, function(list)
      for n, c in ipairs(list) do
        if c.id == want then
          return M.choose(id, c, n, what)
        end
      end
      util.notify('agentls: no checkpoint ' .. want .. ' in this session (:AgentCheckpoints lists them)', vim.log.levels.ERROR)
    end)
  end)
end

--- complete completes :AgentCheckpoints's first word.
function M.complete(lead)
  return vim.tbl_filter(function(w)
    return w:sub(1, #lead) == lead
  end, { 'undo' })
end

return M
