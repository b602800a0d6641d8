-- The agent's questions out of band (the plugin declares
-- experimental.agentls.asyncQuestion): agentls/askQuestion is a
-- notification, the question shows in a float that never holds the
-- editor, and the answer goes back as the command agentls.answer.
-- agentls/askDone closes a question that ended some other way.
--
-- The same guard as an ask's float keeps keys you were typing anyway from
-- answering it: it takes the focus only in Normal mode (else when you leave
-- Insert mode or the command line), and its keys do nothing for a moment
-- once it has the focus. Its last line takes a typed answer, also to a
-- question with options: <CR> sends it (or takes the option under the
-- cursor; with several to choose, marks it), <C-s> sends from Insert mode,
-- q dismisses, <Esc> goes back to your window and leaves it open.
local rpc = require('agentls.rpc')
local state = require('agentls.state')
local status = require('agentls.status')
local util = require('agentls.util')

local M = {}

local help = '<CR>: choose (or send the answer typed on the last line) · q: dismiss · <Esc>: back to your window'

-- lines renders q: the question, its options (marked when chosen), the
-- help, and the answer line last.
local function lines(q)
  local out = util.split('agentls asks: ' .. q.question)
  table.insert(out, '')
  q.first = #out + 1
  for i, o in ipairs(q.options) do
    local mark = q.multi and (q.chosen[o] and '[x] ' or '[ ] ') or ''
    table.insert(out, string.format('%s %s%s', i <= 9 and tostring(i) or ' ', mark, o))
  end
  if #q.options > 0 then
    table.insert(out, '')
  end
  table.insert(out, #q.options > 0 and help or '<CR>: send the answer typed below · q: dismiss · <Esc>: back to your window')
  table.insert(out, q.typed or '')
  return out
end

-- typed is the answer line's text.
local function typed(q)
  local last = vim.api.nvim_buf_get_lines(q.buf, -2, -1, false)[1] or ''
  return vim.trim(last)
end

local function close(q)
  if q.win and vim.api.nvim_win_is_valid(q.win) then
    pcall(vim.api.nvim_win_close, q.win, true)
  end
  if q.buf and vim.api.nvim_buf_is_valid(q.buf) then
    pcall(vim.api.nvim_buf_delete, q.buf, { force = true })
  end
  if q.from and vim.api.nvim_win_is_valid(q.from) and vim.api.nvim_get_current_win() ~= q.from then
    pcall(vim.api.nvim_set_current_win, q.from)
  end
end

-- finish forgets a question and closes its float.
local function finish(q)
  if q.done then
    return
  end
  q.done = true
  if state.questions[q.id] == q then
    state.questions[q.id] = nil
  end
  close(q)
  status.changed()
end

--- answer sends agentls.answer for open question id: {answer = text} or
--- {chosen = {…}}; neither dismisses it. False when it is not open.
function M.answer(id, reply)
  local q = state.questions[id]
  if not q then
    return false
  end
  finish(q)
  reply = reply or {}
  local args = { id = id }
  if type(reply.answer) == 'string' and reply.answer ~= '' then
    args.answer = reply.answer
  elseif type(reply.chosen) == 'table' and #reply.chosen > 0 then
    args.chosen = reply.chosen
  end
  rpc.send(q.client_id, 'agentls.answer', args)
  return true
end

-- chosen lists a multiple choice's marked options in their order.
local function chosen(q)
  local out = {}
  for _, o in ipairs(q.options) do
    if q.chosen[o] then
      table.insert(out, o)
    end
  end
  return out
end

-- enter is <CR>: the option under the cursor, else the typed answer.
local function enter(q)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local o = q.options[row - q.first + 1]
  if o and row >= q.first then
    if not q.multi then
      return M.answer(q.id, { chosen = { o } })
    end
    q.chosen[o] = not q.chosen[o] or nil
    q.typed = typed(q)
    vim.bo[q.buf].modifiable = true
    vim.api.nvim_buf_set_lines(q.buf, 0, -1, false, lines(q))
    pcall(vim.api.nvim_win_set_cursor, q.win, { row, 0 })
    return
  end
  M.answer(q.id, { answer = typed(q), chosen = chosen(q) })
end

-- settle starts q's settling time: its keys do nothing (util.map's
-- guard) and its text cannot change (an unmapped key such as o would edit
-- it) until it is over.
local function settle(q)
  util.settle(q)
  vim.bo[q.buf].modifiable = false
  local function unlock()
    if not (q.buf and vim.api.nvim_buf_is_valid(q.buf)) then
      return
    end
    if util.settled(q) then
      vim.bo[q.buf].modifiable = true
    else -- a timer may fire a little early by the clock settled() reads
      vim.defer_fn(unlock, 10)
    end
  end
  vim.defer_fn(unlock, util.settle_ms)
end

-- show opens q's float: focused only when you are in Normal mode.
local function show(q)
  local text = lines(q)
  q.buf = util.scratch('agentls://question/' .. q.id, nil, false)
  vim.api.nvim_buf_set_lines(q.buf, 0, -1, false, text)
  vim.bo[q.buf].modified = false
  q.from = vim.api.nvim_get_current_win()
  q.win = util.question_float(q.buf, text, 40, function()
    settle(q)
  end, function()
    return not q.done
  end)
  pcall(vim.api.nvim_win_set_cursor, q.win, { #q.options > 0 and q.first or #text, 0 })
  local keys = {
    q = { function() M.answer(q.id, {}) end, 'dismiss the question' },
    ['<Esc>'] = { function()
      if vim.api.nvim_win_is_valid(q.from) then
        vim.api.nvim_set_current_win(q.from)
      end
    end, 'back to your window (the question stays open)' },
    ['<CR>'] = { function() enter(q) end, 'choose the option under the cursor, or send the typed answer' },
  }
  for i = 1, math.min(#q.options, 9) do
    keys[tostring(i)] = { function()
      vim.api.nvim_win_set_cursor(0, { q.first + i - 1, 0 })
    end, 'go to option ' .. i }
  end
  util.map(q.buf, keys, q)
  vim.keymap.set('i', '<C-s>', function()
    if util.settled(q) then
      vim.cmd('stopinsert')
      M.answer(q.id, { answer = typed(q), chosen = chosen(q) })
    end
  end, { buffer = q.buf, desc = 'agentls: send the typed answer' })
  -- Wiped some other way (:bwipe, :q): a dismissal.
  vim.api.nvim_create_autocmd('BufWipeout', { buffer = q.buf, once = true, callback = function()
    q.buf = nil
    vim.schedule(function()
      M.answer(q.id, {})
    end)
  end })
end

--- on_question handles the agentls/askQuestion notification.
function M.on_question(_, params, ctx)
  if type(params) ~= 'table' or type(params.id) ~= 'string' then
    return
  end
  local q = {
    id = params.id,
    client_id = ctx.client_id,
    question = tostring(params.question or ''),
    options = util.list(params.options, function(o)
      return type(o) == 'string' and o or nil
    end),
    multi = params.multi == true,
    chosen = {},
  }
  if state.questions[q.id] then
    finish(state.questions[q.id])
  end
  state.questions[q.id] = q
  show(q)
  status.changed()
  util.event('AgentlsQuestion')
end

--- done closes question id (agentls/askDone); false when it is not ours.
function M.done(id)
  local q = state.questions[id]
  if not q then
    return false
  end
  finish(q)
  return true
end

--- ended closes a client's questions: its turn ended or it exited.
function M.ended(client_id)
  for _, q in pairs(vim.tbl_values(state.questions)) do
    if q.client_id == client_id then
      finish(q)
    end
  end
end

--- open lists the open questions' ids, oldest first.
function M.open()
  local ids = vim.tbl_keys(state.questions)
  table.sort(ids)
  return ids
end

return M
