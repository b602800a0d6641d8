-- :AgentChat, one markdown buffer per session: what you asked, the answer
-- as it streams (text_delta), tool calls as folded lines that open to
-- their output, the session's todos, each turn's tokens and cost, and a
-- prompt area at the bottom whose text goes out as a follow-up
-- (agentls.ask with the same sessionId).
--
-- Each block of the buffer starts at an extmark, so a block can be
-- replaced in place (a streamed answer growing, a tool call getting its
-- result) while you type in the prompt area below.
local render = require('agentls.chat_render')
local usage = require('agentls.usage')
local state = require('agentls.state')
local util = require('agentls.util')

local M = {}

local ns = vim.api.nvim_create_namespace('agentls_chat')

local function row(chat, mark)
  return vim.api.nvim_buf_get_extmark_by_id(chat.buf, ns, mark, {})[1]
end

-- footer is the first mark after the transcript: the todos, else the
-- prompt line.
local function footer(chat)
  return chat.todos and chat.todos.mark or chat.prompt_mark
end

-- following lists the windows whose cursor is in the prompt area: they
-- keep the end of the buffer in view as blocks grow.
local function following(chat)
  local out = {}
  local prompt = row(chat, chat.prompt_mark)
  for _, w in ipairs(vim.fn.win_findbuf(chat.buf)) do
    if vim.api.nvim_win_get_cursor(w)[1] - 1 >= prompt then
      table.insert(out, w)
    end
  end
  return out
end

local function follow(wins)
  for _, w in ipairs(wins) do
    if vim.api.nvim_win_is_valid(w) then
      vim.api.nvim_win_call(w, function()
        local top = vim.api.nvim_buf_line_count(0) - vim.api.nvim_win_get_height(0) + 1
        if top > vim.fn.line('w0') then
          vim.fn.winrestview({ topline = top })
        end
      end)
    end
  end
end

-- fold folds a block's lines (rows from..to, 1-based) in a window showing
-- the chat, closed. Folds are manual: they move with the lines around
-- them, and replacing a block's lines removes its old fold.
local function fold(win, from, to)
  if to > from and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_call(win, function()
      vim.cmd(string.format('silent! %d,%dfold', from, to))
    end)
  end
end

-- put replaces the lines of block b (from its mark to the next block's)
-- with its rendering; a new block (no mark) goes before the footer.
local function put(chat, b, next_mark)
  local lines = render[b.kind](b)
  local wins = following(chat)
  local from
  if not b.mark then
    from = row(chat, footer(chat))
    vim.api.nvim_buf_set_lines(chat.buf, from, from, false, lines)
    b.mark = vim.api.nvim_buf_set_extmark(chat.buf, ns, from, 0, {})
    chat.by_mark[b.mark] = b
  else
    from = row(chat, b.mark)
    vim.api.nvim_buf_set_lines(chat.buf, from, row(chat, next_mark), false, lines)
    vim.api.nvim_buf_set_extmark(chat.buf, ns, from, 0, { id = b.mark })
  end
  if b.fold then
    for _, w in ipairs(vim.fn.win_findbuf(chat.buf)) do
      fold(w, from + 1, from + #lines)
    end
  end
  follow(wins)
end

-- next_of is the mark after block b's lines: the next block shown, else
-- the footer.
local function next_of(chat, b)
  for i, x in ipairs(chat.blocks) do
    if x == b then
      for j = i + 1, #chat.blocks do
        if chat.blocks[j].mark then
          return chat.blocks[j].mark
        end
      end
      return footer(chat)
    end
  end
  return footer(chat)
end

local function add(chat, b)
  table.insert(chat.blocks, b)
  put(chat, b)
  return b
end
local add_block = add

local function update(chat, b)
  if not b.hidden then
    put(chat, b, next_of(chat, b))
  end
end

local function name_of(key)
  return 'agentls://chat/' .. key
end

-- setup_window folds every tool call and thinking of the chat in a
-- window that shows it (again).
local function setup_window(chat, win)
  local wo = vim.wo[win]
  wo.foldmethod = 'manual'
  wo.foldtext = "v:lua.require'agentls.chat'.foldtext()"
  wo.foldenable = true
  wo.wrap = true
  wo.linebreak = true
  vim.api.nvim_win_call(win, function()
    vim.cmd('silent! normal! zE')
  end)
  for _, b in ipairs(chat.blocks) do
    if b.fold and b.mark then
      fold(win, row(chat, b.mark) + 1, row(chat, next_of(chat, b)))
    end
  end
end

-- new makes the chat (and its buffer) for key.
local function new(key, client_id, session)
  local chat = { key = key, client_id = client_id, session = session, blocks = {}, by_mark = {}, by_tool = {} }
  chat.buf = util.scratch(name_of(key), 'markdown', true)
  vim.bo[chat.buf].undolevels = -1
  vim.api.nvim_buf_set_lines(chat.buf, 0, -1, false, { render.prompt_line, '' })
  chat.prompt_mark = vim.api.nvim_buf_set_extmark(chat.buf, ns, 0, 0, {})
  vim.api.nvim_create_autocmd('BufWinEnter', { buffer = chat.buf, callback = function()
    setup_window(chat, vim.api.nvim_get_current_win())
  end })
  util.map(chat.buf, { ['<CR>'] = { function()
    local r = vim.api.nvim_win_get_cursor(0)[1] - 1
    if r >= row(chat, chat.prompt_mark) then
      M.send(chat)
    elseif vim.fn.foldlevel(r + 1) > 0 then
      vim.cmd('normal! za')
    end
  end, 'send the prompt, or open/close the fold under the cursor' } })
  vim.keymap.set('i', '<C-s>', function()
    vim.cmd('stopinsert')
    M.send(chat)
  end, { buffer = chat.buf, desc = 'agentls: send the prompt' })
  state.chats[key] = chat
  return chat
end

-- bind gives the client's unbound chat its session, or finds or makes the
-- session's chat.
local function bind(client_id, session)
  local chat = state.chats[session]
  if chat then
    chat.client_id = client_id
  else
    local pending = state.chats['client:' .. client_id]
    if pending then
      state.chats[pending.key] = nil
      pending.key, pending.session = session, session
      pcall(vim.api.nvim_buf_set_name, pending.buf, name_of(session))
      state.chats[session] = pending
      chat = pending
    else
      chat = new(session, client_id, session)
    end
  end
  state.sessions[client_id] = session
  return chat
end

--- session_started records the session of a client's ask reply.
function M.session_started(client_id, session)
  if type(session) == 'string' and session ~= '' then
    bind(client_id, session)
  end
end

--- of returns the chat of a client's session, made when missing.
function M.of(client_id)
  local session = state.sessions[client_id]
  if session and state.chats[session] then
    return state.chats[session]
  end
  local key = 'client:' .. client_id
  return state.chats[key] or new(key, client_id, nil)
end

--- by_buf returns the chat shown in buf, or nil.
function M.by_buf(buf)
  for _, chat in pairs(state.chats) do
    if chat.buf == buf then
      return chat
    end
  end
end

--- you adds what was asked to the client's chat; turn is the turn it
--- started (agentls.ask's reply).
function M.you(client_id, prompt, where, turn)
  local chat = M.of(client_id)
  chat.stream, chat.thinking = nil, nil
  add(chat, { kind = 'you', prompt = prompt, where = where, turn = turn })
end

-- tool_block finds a tool call's block.
local function pending_tool(chat, name)
  for i = #chat.blocks, 1, -1 do
    local b = chat.blocks[i]
    if b.kind == 'tool' and b.content == nil and (name == nil or b.name == name) then
      return b
    end
  end
end

local function stream(chat, field, kind, text, whole, turn)
  local b = chat[field]
  if b then
    b.text = whole and text or (b.text .. text)
    update(chat, b)
  elseif util.present(text) then
    b = add(chat, { kind = kind, text = text, fold = kind == 'thinking', turn = turn })
  end
  chat[field] = (not whole) and b or nil
end

--- event shows one agentls/event in its session's chat.
-- set_todos shows the todo list todos (the agent's list, as a todos
-- event carries it) with message (its progress) in chat's todos block,
-- made the first time between the transcript and the prompt.
local function set_todos(chat, todos, message)
  todos = util.list(todos, function(td)
    return type(td) == 'table' and td or nil
  end)
  local b = chat.todos or { kind = 'todos' }
  b.todos, b.message = todos, message
  if chat.todos then
    put(chat, b, chat.prompt_mark)
  else
    -- The todos sit between the transcript and the prompt.
    local at = row(chat, chat.prompt_mark)
    vim.api.nvim_buf_set_lines(chat.buf, at, at, false, render.todos(b))
    b.mark = vim.api.nvim_buf_set_extmark(chat.buf, ns, at, 0, {})
    chat.todos = b
  end
end

--- progress is a todo list's progress as the server words it: done/all,
--- and the one in progress.
local function progress(todos)
  local done, current = 0, nil
  for _, td in ipairs(todos) do
    if td.status == 'completed' then
      done = done + 1
    elseif td.status == 'in_progress' then
      current = util.present(td.active_form) and td.active_form or tostring(td.content or '')
    end
  end
  return string.format('%d/%d', done, #todos) .. (current and (': ' .. current) or '')
end

--- show_todos makes client id's chat show the todo list the conversation
--- holds after a restore (its reply's conversation.todos): the todos block
--- gets that list ("(none)" when it is empty); a chat that never showed
--- one shows none for an empty list.
function M.show_todos(client_id, todos)
  local chat = M.of(client_id)
  todos = util.list(todos, function(td)
    return type(td) == 'table' and td or nil
  end)
  if not chat.todos and #todos == 0 then
    return
  end
  set_todos(chat, todos, #todos > 0 and progress(todos) or nil)
end

function M.event(ev, client_id)
  if type(ev.session_id) == 'string' and ev.session_id ~= '' then
    bind(client_id, ev.session_id)
  end
  if util.present(ev.parent_id) then
    return -- a subagent's steps: its answer is the agent tool's result
  end
  local chat = M.of(client_id)
  local t = ev.type
  local turn = util.present(ev.turn_id) and ev.turn_id or nil
  -- The turn's blocks name it: a restore of the conversation hides them.
  local function add(c, b)
    b.turn = turn
    return add_block(c, b)
  end
  if t == 'turn_start' then
    chat.stream, chat.thinking = nil, nil
    add(chat, { kind = 'heading', model = ev.model })
  elseif t == 'model' then
    add(chat, { kind = 'notice', text = tostring(ev.message or ('model: ' .. tostring(ev.model))) })
  elseif t == 'text_delta' then
    stream(chat, 'stream', 'text', tostring(ev.text or ''), false, turn)
  elseif t == 'text' then
    stream(chat, 'stream', 'text', tostring(ev.text or ''), true, turn)
  elseif t == 'thinking_delta' then
    stream(chat, 'thinking', 'thinking', tostring(ev.text or ''), false, turn)
  elseif t == 'thinking' then
    stream(chat, 'thinking', 'thinking', tostring(ev.text or ''), true, turn)
  elseif t == 'tool_call' then
    chat.stream, chat.thinking = nil, nil
    local b = add(chat, { kind = 'tool', fold = true, id = ev.id, name = ev.name, title = ev.title })
    if util.present(ev.id) then
      chat.by_tool[ev.id] = b
    end
  elseif t == 'permission' then
    -- The permission event names its call by id.
    local b = (util.present(ev.id) and chat.by_tool[ev.id]) or pending_tool(chat, ev.tool)
    if b and ev.decision == 'deny' then
      b.permission = 'deny'
      update(chat, b)
    end
  elseif t == 'tool_result' then
    local b = (util.present(ev.id) and chat.by_tool[ev.id]) or pending_tool(chat, ev.name)
    if not b then
      b = add(chat, { kind = 'tool', fold = true, id = ev.id, name = ev.name })
    end
    b.content = type(ev.content) == 'string' and ev.content or ''
    b.diff = util.present(ev.diff) and ev.diff or nil
    b.is_error = ev.is_error == true
    update(chat, b)
  elseif t == 'todos' then
    set_todos(chat, ev.todos, ev.message)
  elseif t == 'instructions' then
    -- Which AGENTS.md files the model reads, when that changes.
    local files = util.list(ev.files, function(f)
      return type(f) == 'string' and f or nil
    end)
    local text = #files > 0 and ('project instructions: ' .. table.concat(files, ', '))
      or 'project instructions: none any more'
    add(chat, { kind = 'notice', text = text })
  elseif t == 'error' then
    add(chat, { kind = 'error', message = ev.message })
  elseif t == 'turn_end' then
    chat.stream, chat.thinking = nil, nil
    if ev.reason ~= 'completed' then
      add(chat, { kind = 'ended', reason = ev.reason })
    end
    local line = usage.line(ev.turn_usage, ev.session_usage)
    if line then
      add(chat, { kind = 'usage', text = line })
    end
  end
end

--- notice adds a line of its own (in italics) to the chat of client
--- id's session: a restore, say.
function M.notice(client_id, text)
  add(M.of(client_id), { kind = 'notice', text = text })
end

--- history shows a stored session's turns (agentls.history's entries) in
--- its chat, which becomes the client's: the next prompt continues it;
--- head is the line above them.
function M.history(client_id, session, entries, head)
  local chat = bind(client_id, session)
  for _, b in ipairs(vim.tbl_values(chat.blocks)) do
    if b.mark then
      pcall(vim.api.nvim_buf_del_extmark, chat.buf, ns, b.mark)
    end
  end
  chat.blocks, chat.by_mark, chat.by_tool, chat.stream, chat.thinking = {}, {}, {}, nil, nil
  local at = row(chat, footer(chat))
  vim.api.nvim_buf_set_lines(chat.buf, 0, at, false, {})
  add(chat, { kind = 'notice', text = head or ('resumed session ' .. session .. ': its earlier turns') })
  local tool
  for _, e in ipairs(util.list(entries, function(e)
    return type(e) == 'table' and e or nil
  end)) do
    local text = tostring(e.text or '')
    if e.kind == 'you' then
      add(chat, { kind = 'you', prompt = text })
      add(chat, { kind = 'heading' })
    elseif e.kind == 'agent' then
      add(chat, { kind = 'text', text = text })
    elseif e.kind == 'tool' then
      tool = add(chat, { kind = 'tool', fold = true, name = e.tool, title = tostring(e.tool or '?') .. ' ' .. text })
    elseif e.kind == 'result' and tool then
      tool.content, tool.is_error = text, e.isError == true
      update(chat, tool)
      tool = nil
    end
  end
  return chat
end

-- redraw puts the chat's blocks that are not hidden in its buffer again,
-- in order, with their folds (after a restore hid or showed some).
local function redraw(chat)
  for _, b in ipairs(chat.blocks) do
    if b.mark then
      pcall(vim.api.nvim_buf_del_extmark, chat.buf, ns, b.mark)
      b.mark = nil
    end
  end
  chat.by_mark = {}
  vim.api.nvim_buf_set_lines(chat.buf, 0, row(chat, footer(chat)), false, {})
  for _, b in ipairs(chat.blocks) do
    if not b.hidden then
      put(chat, b)
    end
  end
end

--- knows_turns tells whether every prompt of client id's chat names its
--- turn (a chat shown again from agentls.history on resume does not).
function M.knows_turns(client_id)
  for _, b in ipairs(M.of(client_id).blocks) do
    if b.kind == 'you' and not b.turn then
      return false
    end
  end
  return true
end

--- show_turns shows the turns of client id's chat that the conversation
--- holds (a restore's conversation.turns) and hides the others, so the
--- chat shows what the model sees; blocks of no turn (a restore's
--- report) stay. The first prompt hidden goes back in an empty prompt
--- area. Returns the number of turns hidden and shown again, and that
--- prompt.
function M.show_turns(client_id, turns)
  local chat = M.of(client_id)
  local held = {}
  for _, t in ipairs(turns) do
    held[t] = true
  end
  local dropped, back, seen, prompt = 0, 0, {}, nil
  for _, b in ipairs(chat.blocks) do
    if b.turn then
      local hide = not held[b.turn]
      if (b.hidden == true) ~= hide then
        b.hidden = hide or nil
        if not seen[b.turn] then
          seen[b.turn] = true
          dropped, back = dropped + (hide and 1 or 0), back + (hide and 0 or 1)
        end
        if hide and b.kind == 'you' and not prompt then
          prompt = b.prompt
        end
      end
    end
  end
  if dropped + back > 0 then
    chat.stream, chat.thinking = nil, nil
    redraw(chat)
  end
  if prompt and M.prompt(chat) == '' then
    vim.api.nvim_buf_set_lines(chat.buf, row(chat, chat.prompt_mark) + 1, -1, false, util.split(prompt))
  end
  return dropped, back, prompt
end

--- prompt returns the text typed in the prompt area.
function M.prompt(chat)
  local lines = vim.api.nvim_buf_get_lines(chat.buf, row(chat, chat.prompt_mark) + 1, -1, false)
  return (table.concat(lines, '\n'):gsub('^%s+', ''):gsub('%s+$', ''))
end

--- clear_prompt empties the prompt area.
function M.clear_prompt(chat)
  vim.api.nvim_buf_set_lines(chat.buf, row(chat, chat.prompt_mark) + 1, -1, false, { '' })
end

--- send sends the prompt area's text as a follow-up in the chat's session.
function M.send(chat)
  local prompt = M.prompt(chat)
  if prompt == '' then
    util.notify('agentls: type your question below the "## Ask" line, then <CR>', vim.log.levels.WARN)
    return
  end
  require('agentls').ask(prompt, { chat = chat })
end

--- open shows the chat of client_id (a window already showing it gets the
--- focus) and puts the cursor in the prompt area; mods as for :split.
function M.open(client_id, mods)
  local chat = M.of(client_id)
  local wins = vim.fn.win_findbuf(chat.buf)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    util.leave_float()
    vim.cmd((mods and mods ~= '' and mods or 'botright vertical') .. ' split')
    vim.api.nvim_win_set_buf(0, chat.buf) -- BufWinEnter sets its folds
    if not mods or mods == '' then
      vim.api.nvim_win_set_width(0, math.min(90, math.max(50, math.floor(vim.o.columns * 0.4))))
    end
  end
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(chat.buf), 0 })
  follow({ vim.api.nvim_get_current_win() })
  return chat
end

--- block_at returns the block holding line lnum of a chat buffer.
function M.block_at(buf, lnum)
  local chat = M.by_buf(buf)
  if not chat then
    return nil
  end
  local m = vim.api.nvim_buf_get_extmarks(buf, ns, { lnum - 1, -1 }, 0, { limit = 1 })[1]
  return m and chat.by_mark[m[1]], chat
end

--- foldtext shows a folded tool call as its header line.
function M.foldtext()
  local n = vim.v.foldend - vim.v.foldstart
  return vim.fn.getline(vim.v.foldstart) .. (n > 0 and string.format('  (%d lines)', n) or '')
end

--- forget drops a client from its chats (they stay, and a follow-up goes
--- to a running client with the same session).
function M.forget(client_id)
  for _, chat in pairs(state.chats) do
    if chat.client_id == client_id then
      chat.client_id = nil
    end
  end
end

return M
