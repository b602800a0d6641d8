-- The transcript behind :AgentLog: one readable line per agentls/event
-- (continuation lines, indented, for multi-line model text and for diffs),
-- kept in memory (state.log) and shown in a scratch buffer named
-- agentls://log. Paths are shown relative to the client's root.
local state = require('agentls.state')
local util = require('agentls.util')

local M = {}

local BUFNAME = 'agentls://log'

M.max_lines = 10000

local split = util.split

local function shorten(s, max)
  if #s <= max then
    return s
  end
  -- Cut on a character boundary (UTF-8 continuation bytes are 10xxxxxx).
  local cut = max
  while cut > 1 and s:byte(cut + 1) and s:byte(cut + 1) >= 0x80 and s:byte(cut + 1) < 0xC0 do
    cut = cut - 1
  end
  return s:sub(1, cut) .. '…'
end

local function encode(v)
  local ok, s = pcall(vim.fn.json_encode, v)
  return ok and s or tostring(v)
end

-- summary is one line about a tool result's content: its first line, or
-- its size when that line is only a tag such as <file>.
local function summary(s)
  local ls = split(s)
  for i, l in ipairs(ls) do
    if l:match('%S') then
      if l:match('^%s*</?[%w_:-]+>%s*$') then
        return string.format('%d lines', #ls)
      end
      local more = #ls - i
      return shorten(l, 160) .. (more > 0 and string.format(' (+%d lines)', more) or '')
    end
  end
  return ''
end

-- M.relative shows an absolute path below root (else below the current
-- directory) relative to it, as tool titles are.
function M.relative(s, root)
  if type(s) ~= 'string' or s:sub(1, 1) ~= '/' then
    return s
  end
  if root and s:sub(1, #root + 1) == root .. '/' then
    return s:sub(#root + 2)
  end
  return vim.fn.fnamemodify(s, ':.')
end

local present = util.present

-- join joins the present values among the first n of list.
local function join(list, n, sep)
  local out = {}
  for i = 1, n do
    if present(list[i]) then
      table.insert(out, tostring(list[i]))
    end
  end
  return table.concat(out, sep)
end

-- render turns one agentls/event into transcript lines; root is the
-- client's.
function M.render(ev, root)
  local titles = state.log.titles
  local t = ev.type
  if t == 'turn_start' then
    return { string.format('── turn %s started %s%s ──', ev.turn_id or '?', os.date('%H:%M:%S'), present(ev.model) and (' on ' .. ev.model) or '') }
  elseif t == 'text' then
    local ls = split(ev.text)
    if #ls == 0 then
      return {}
    end
    local out = { 'agent: ' .. ls[1] }
    for i = 2, #ls do
      table.insert(out, '       ' .. ls[i])
    end
    return out
  elseif t == 'tool_call' then
    local title = ev.title
    if not present(title) then
      title = (ev.name or '?') .. (present(ev.input) and (' ' .. encode(ev.input)) or '')
    end
    if present(ev.id) then
      titles[ev.id] = title
    end
    return { '→ ' .. shorten(title, 200) }
  elseif t == 'permission' then
    local verb = ev.decision == 'allow' and 'allowed' or (ev.decision == 'deny' and 'denied' or tostring(ev.decision))
    local what = join({ ev.tool, M.relative(ev.scope, root) }, 2, ' ')
    local why = join({ ev.source, ev.reason }, 2, ': ')
    return { string.format('  %s %s%s', verb, what, why ~= '' and (' (' .. why .. ')') or '') }
  elseif t == 'tool_result' then
    local title = (present(ev.id) and titles[ev.id]) or ev.name or '?'
    local status = ev.is_error == true and 'error' or 'ok'
    local text = string.format('← %s: %s', title, status)
    local about = summary(ev.content)
    if about ~= '' then
      text = text .. ' — ' .. about
    end
    local out = { text }
    for _, l in ipairs(split(ev.diff)) do
      table.insert(out, '    ' .. l)
    end
    return out
  elseif t == 'error' then
    local ls = split(ev.message)
    local out = { 'error: ' .. (ls[1] or '') }
    for i = 2, #ls do
      table.insert(out, '       ' .. ls[i])
    end
    return out
  elseif t == 'text_delta' or t == 'thinking_delta' or t == 'thinking' or t == 'usage' then
    return {} -- the step's text event carries the whole answer
  elseif t == 'todos' then
    return { 'plan: ' .. tostring(ev.message or '') }
  elseif t == 'warning' or t == 'compaction' or t == 'model' then
    return { t .. ': ' .. tostring(ev.message or '') }
  elseif t == 'turn_end' then
    state.log.titles = {}
    return { string.format('── turn %s ended: %s ──', ev.turn_id or '?', ev.reason or '?') }
  end
  return { encode(ev) }
end

local function find_buf()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == BUFNAME then
      return b
    end
  end
end

-- write appends new lines to the log buffer, if there is one, and keeps
-- windows that showed its last line following the end.
local function write(new, dropped)
  local buf = find_buf()
  if not buf or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local follow = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf and vim.api.nvim_win_get_cursor(w)[1] >= count then
      table.insert(follow, w)
    end
  end
  vim.bo[buf].modifiable = true
  if dropped > 0 then
    vim.api.nvim_buf_set_lines(buf, 0, dropped, false, {})
  end
  local empty = vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  if empty then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, new)
  else
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, new)
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  local last = vim.api.nvim_buf_line_count(buf)
  for _, w in ipairs(follow) do
    vim.api.nvim_win_set_cursor(w, { last, 0 })
  end
end

-- add appends lines to the transcript.
function M.add(new)
  if #new == 0 then
    return
  end
  local lines = state.log.lines
  for _, l in ipairs(new) do
    table.insert(lines, l)
  end
  local dropped = 0
  if #lines > M.max_lines then
    dropped = #lines - M.max_lines
    for _ = 1, dropped do
      table.remove(lines, 1)
    end
  end
  write(new, dropped)
end

-- event renders one agentls/event into the transcript.
function M.event(ev, root)
  M.add(M.render(ev, root))
end

function M.lines()
  return vim.deepcopy(state.log.lines)
end

local function setup_buffer(buf)
  vim.api.nvim_buf_set_name(buf, BUFNAME)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].buflisted = false
  local lines = state.log.lines
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, #lines > 0 and lines or { '' })
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.bo[buf].filetype = 'agentls'
  vim.api.nvim_buf_call(buf, function()
    vim.cmd([[
      syntax match agentlsTurn /^──.*──$/
      syntax match agentlsAgent /^agent:/
      syntax match agentlsCall /^→ .*/
      syntax match agentlsResult /^← .*/
      syntax match agentlsPermission /^  \(allowed\|denied\) .*/
      syntax match agentlsError /^error: .*/
      syntax match agentlsYou /^you: .*/
      syntax match agentlsDiffAdd /^    +.*/
      syntax match agentlsDiffDelete /^    -.*/
      syntax match agentlsDiffHunk /^    @@.*/
      highlight default link agentlsTurn Title
      highlight default link agentlsAgent Identifier
      highlight default link agentlsCall Function
      highlight default link agentlsResult Comment
      highlight default link agentlsPermission Special
      highlight default link agentlsError ErrorMsg
      highlight default link agentlsYou Statement
      highlight default link agentlsDiffAdd DiffAdd
      highlight default link agentlsDiffDelete DiffDelete
      highlight default link agentlsDiffHunk DiffChange
    ]])
  end)
end

-- open shows the transcript: it focuses a window already showing it, or
-- opens one below (mods such as "vertical" or "tab" come from the command).
function M.open(mods)
  local buf = find_buf()
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    setup_buffer(buf)
  end
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      vim.api.nvim_set_current_win(w)
      return buf
    end
  end
  if mods and mods ~= '' then
    vim.cmd(mods .. ' split')
  else
    vim.cmd('botright 15split')
  end
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  return buf
end

return M
