-- Review before apply (the plugin declares experimental.agentls.review):
-- the server's agentls/review request shows a change to one file as a
-- scratch diff split — no file, no language server, one at a time, closed
-- when answered — where each hunk is accepted or rejected. The answer is
-- the request's result: {accept = {ids}} (the rest rejected), with
-- `answer` for a grant, or {answer = 'deny'}.
local await = require('agentls.await')
local state = require('agentls.state')
local util = require('agentls.util')

local M = {}

local ns = vim.api.nvim_create_namespace('agentls_review')

local help = 'a/r: accept/reject the hunk under the cursor · A/R: accept/reject all · '
  .. '<Tab>/<S-Tab>: next/previous hunk · q: deny'

-- finish ends the open review r with result (nil: no answer) and closes
-- its window.
local function finish(r, result)
  if r.done then
    return
  end
  r.done = true
  if state.review == r then
    state.review = nil
  end
  local win = r.win
  r.win = nil
  if win and vim.api.nvim_win_is_valid(win) then
    util.close_win(win)
  end
  if r.buf and vim.api.nvim_buf_is_valid(r.buf) then
    pcall(vim.api.nvim_buf_delete, r.buf, { force = true })
  end
  if r.from and vim.api.nvim_win_is_valid(r.from) then
    pcall(vim.api.nvim_set_current_win, r.from)
  end
  r.callback(result)
end

-- result turns the decisions into the request's result.
local function result(r, grant)
  local accept = {}
  for _, h in ipairs(r.hunks) do
    if r.decisions[h.id] == true then
      table.insert(accept, h.id)
    end
  end
  if #accept == 0 then
    return { answer = 'deny' }
  end
  return { accept = accept, answer = grant }
end

-- mark shows each hunk's decision at the end of its @@ line.
local function mark(r)
  vim.api.nvim_buf_clear_namespace(r.buf, ns, 0, -1)
  for i, h in ipairs(r.hunks) do
    local d = r.decisions[h.id]
    local text, hl = 'undecided', 'Comment'
    if d == true then
      text, hl = '✓ accept', 'DiffAdd'
    elseif d == false then
      text, hl = '✗ reject', 'DiffDelete'
    end
    vim.api.nvim_buf_set_extmark(r.buf, ns, h.row - 1, 0, {
      virt_text = { { string.format('  hunk %d/%d: %s', i, #r.hunks, text), hl } },
      virt_text_pos = 'eol',
    })
  end
end

-- hunk_at is the index of the hunk holding line row (the first above it).
local function hunk_at(r, row)
  local at = 1
  for i, h in ipairs(r.hunks) do
    if h.row <= row then
      at = i
    end
  end
  return at
end

local function goto_hunk(r, i)
  if r.win and vim.api.nvim_win_is_valid(r.win) and r.hunks[i] then
    vim.api.nvim_win_set_cursor(r.win, { r.hunks[i].row, 0 })
  end
end

-- decide records a decision for hunk i and moves on to the next one left
-- undecided; when none is left, the review is answered.
local function decide(r, i, accept)
  r.decisions[r.hunks[i].id] = accept
  mark(r)
  for step = 1, #r.hunks do
    local j = (i + step - 1) % #r.hunks + 1
    if r.decisions[r.hunks[j].id] == nil then
      goto_hunk(r, j)
      return
    end
  end
  finish(r, result(r))
end

local function decide_all(r, accept, grant)
  for _, h in ipairs(r.hunks) do
    r.decisions[h.id] = accept
  end
  finish(r, result(r, grant))
end

-- lines renders the review: what is asked, the keys, the grants, then the
-- diff hunk by hunk (each hunk's row is kept for the cursor).
local function render(r, p)
  local lines = util.split(p.message)
  for _, w in ipairs(r.warnings) do
    table.insert(lines, '⚠ ' .. w)
  end
  table.insert(lines, help)
  for i, c in ipairs(r.choices) do
    table.insert(lines, string.format('%d: %s (accepts every hunk)', i, c.title))
  end
  table.insert(lines, '')
  local path = tostring(p.path or p.uri or '')
  table.insert(lines, (p.exists == false and '--- /dev/null' or ('--- a/' .. path)))
  table.insert(lines, '+++ b/' .. path)
  for _, h in ipairs(r.hunks) do
    h.row = #lines + 1
    for _, l in ipairs(util.split(h.diff)) do
      table.insert(lines, l)
    end
  end
  return lines
end

-- focus_later gives the focus back to your window when the review came
-- while you were typing (Insert mode, the command line), so no key meant
-- for your text decides a hunk; the review gets it when you stop.
local function focus_later(r)
  if vim.api.nvim_get_mode().mode == 'n' or not vim.api.nvim_win_is_valid(r.from) then
    return
  end
  vim.api.nvim_set_current_win(r.from)
  vim.api.nvim_create_autocmd({ 'InsertLeave', 'CmdlineLeave' }, { once = true, callback = function()
    vim.schedule(function()
      if not r.done and r.win and vim.api.nvim_win_is_valid(r.win) then
        vim.api.nvim_set_current_win(r.win)
        util.settle(r)
      end
    end)
  end })
end

-- open shows review p and calls callback(result) once.
local function open(p, client_id, callback)
  local r = {
    id = p.id,
    turn = p.turnId,
    client_id = client_id,
    hunks = util.list(p.hunks, function(h)
      if type(h) == 'table' and type(h.id) == 'number' then
        return { id = h.id, diff = tostring(h.diff or '') }
      end
    end),
    choices = util.choices(p.choices),
    warnings = util.strings(p.warnings),
    decisions = {},
    callback = callback,
    from = vim.api.nvim_get_current_win(),
  }
  if #r.hunks == 0 then
    callback(nil)
    return
  end
  state.review = r
  local lines = render(r, p)
  r.buf = util.scratch('agentls://review/' .. tostring(p.path or p.id), 'diff', false)
  util.set_lines(r.buf, lines)
  util.leave_float()
  vim.cmd('botright ' .. math.min(#lines + 1, math.max(8, math.floor(vim.o.lines * 0.6))) .. 'split')
  r.win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(r.win, r.buf)
  vim.wo[r.win].foldenable = false
  mark(r)
  goto_hunk(r, 1)
  util.settle(r)
  focus_later(r)

  local function here()
    return hunk_at(r, vim.api.nvim_win_get_cursor(0)[1])
  end
  local function move(step)
    return function()
      goto_hunk(r, (here() - 1 + step) % #r.hunks + 1)
    end
  end
  local keys = {
    a = { function() decide(r, here(), true) end, 'accept the hunk under the cursor' },
    r = { function() decide(r, here(), false) end, 'reject the hunk under the cursor' },
    A = { function() decide_all(r, true) end, 'accept every hunk' },
    R = { function() decide_all(r, false) end, 'reject every hunk (deny)' },
    q = { function() finish(r, { answer = 'deny' }) end, 'deny the change' },
    ['<Tab>'] = { move(1), 'next hunk' },
    ['<S-Tab>'] = { move(-1), 'previous hunk' },
    [']c'] = { move(1), 'next hunk' },
    ['[c'] = { move(-1), 'previous hunk' },
  }
  for i, c in ipairs(r.choices) do
    if i <= 9 then
      keys[tostring(i)] = { function() decide_all(r, true, c.answer) end, c.title }
    end
  end
  util.map(r.buf, keys, r)
  util.event('AgentlsReview')
  -- Closed some other way (:q, :bwipe): no answer, a deny.
  vim.api.nvim_create_autocmd('BufWipeout', { buffer = r.buf, once = true, callback = function()
    r.buf = nil
    vim.schedule(function()
      finish(r, nil)
    end)
  end })
  pcall(vim.cmd, 'redraw')
end

--- on_review answers the agentls/review request: the result, or null (a
--- deny) when the review was closed, ended or not answered in ask_timeout.
function M.on_review(_, params, ctx)
  if type(params) ~= 'table' then
    return vim.NIL
  end
  if state.review then
    util.notify('agentls: a review is already open; this change is denied', vim.log.levels.WARN)
    return vim.NIL
  end
  local answer = await.await(function(cb)
    open(params, ctx.client_id, cb)
  end, tostring(params.message or 'review'), { keys = function()
    return state.review and state.review.win
  end })
  if state.review and state.review.id == params.id then
    finish(state.review, nil) -- ask_timeout passed
  end
  if type(answer) ~= 'table' then
    return vim.NIL
  end
  return answer
end

--- answer answers the open review (see agentls.review_answer()); false
--- when none is open.
function M.answer(opts)
  local r = state.review
  if not r then
    return false
  end
  opts = opts or {}
  if type(opts.text) == 'string' then
    finish(r, { text = opts.text })
    return true
  end
  -- Hunks are numbered from 1 in file order, as the server sends them.
  local want = {}
  for _, n in ipairs(opts.accept or {}) do
    want[n] = true
  end
  for i, h in ipairs(r.hunks) do
    r.decisions[h.id] = want[i] == true
  end
  if opts.answer == 'deny' then
    finish(r, { answer = 'deny' })
  else
    finish(r, result(r, opts.answer))
  end
  return true
end

--- ended closes the review of a question that ended (agentls/askDone).
function M.ended(id)
  if state.review and state.review.id == id then
    finish(state.review, nil)
  end
end

--- turn_ended closes a client's review (of one turn, or all).
function M.turn_ended(client_id, turn)
  local r = state.review
  if r and r.client_id == client_id and (turn == nil or r.turn == nil or r.turn == turn) then
    finish(r, nil)
  end
end

return M
