-- What the agent is doing, for statuslines: status() in three words,
-- statusline() with the running step and the turn's tokens and cost, and,
-- after a turn that changed files, the revert next to it; usage() the
-- last turn's tokens and cost. They read state; events() keeps the step.
local state = require('agentls.state')
local usage = require('agentls.usage')

local M = {}

-- changed redraws statuslines and fires User AgentlsStatus.
function M.changed()
  pcall(vim.cmd, 'redrawstatus!')
  require('agentls.util').event('AgentlsStatus')
end

local function waiting()
  return state.asking > 0 or next(state.asks) ~= nil or next(state.questions) ~= nil or state.review ~= nil
end

--- status: "waiting for you" (a question is open), "working" (a turn
--- runs) or "idle".
function M.status()
  if waiting() then
    return 'waiting for you'
  end
  for _, turn in pairs(state.turns) do
    if turn then
      return 'working'
    end
  end
  return 'idle'
end

local function escape(s)
  return (tostring(s):gsub('%%', '%%%%'):gsub('\r?\n', ' '))
end

-- client_of picks whose step to show: the current buffer's client, else
-- one with a running turn, else the one used last.
local function client_of()
  local buf = vim.api.nvim_get_current_buf()
  for id in pairs(state.roots) do
    if vim.lsp.buf_is_attached(buf, id) and state.turns[id] then
      return id
    end
  end
  for id, turn in pairs(state.turns) do
    if turn then
      return id
    end
  end
  return state.last_client
end

--- statusline is status() with detail, as statusline items (use it as
--- %{%v:lua.require'agentls'.statusline()%}): "agentls: 2/5: writing the
--- fix · view main.go · 12.3k tokens · $0.012" while a turn runs (the
--- cost when the model has a price), and after a turn that changed files
--- "agentls: idle · ↶ :AgentRevert" (a click runs it).
function M.statusline()
  local s = M.status()
  local id = client_of()
  if s == 'working' and id then
    local parts = {}
    local u = state.usage[id]
    for _, p in ipairs({ state.plan[id], state.step[id], u and usage.short(u.turn) }) do
      if p and p ~= '' then
        table.insert(parts, escape(p))
      end
    end
    if #parts > 0 then
      s = table.concat(parts, ' · ')
    end
  end
  local out = 'agentls: ' .. s
  if s == 'idle' and id and state.changed[id] then
    out = out .. ' · %@AgentlsRevertClick@↶ :AgentRevert%X'
  end
  return out
end

--- usage is the running or last turn's tokens and cost, for a
--- statusline: "12.3k tokens · $0.012" ("" before any usage was reported).
function M.usage()
  local id = client_of()
  local u = id and state.usage[id]
  return escape(u and usage.short(u.turn) or '')
end

-- events keeps the step and the turn's usage from the client's
-- agentls/event stream.
function M.event(ev, id)
  local t = ev.type
  if ev.parent_id and ev.parent_id ~= '' and t ~= 'tool_call' then
    return
  end
  if t == 'turn_start' then
    state.step[id], state.plan[id], state.usage[id] = 'thinking', nil, nil
  elseif t == 'usage' then
    state.usage[id] = { turn = ev.turn_usage, session = ev.session_usage }
  elseif t == 'tool_call' then
    state.step[id] = (ev.title and ev.title ~= '') and ev.title or ev.name
  elseif t == 'text_delta' then
    state.step[id] = 'writing the answer'
  elseif t == 'thinking_delta' then
    state.step[id] = 'thinking'
  elseif t == 'todos' then
    state.plan[id] = ev.message
  elseif t == 'tool_result' then
    if ev.diff and ev.diff ~= '' and ev.is_error ~= true then
      state.changed[id] = ev.turn_id or true
    end
  elseif t == 'turn_end' then
    state.step[id], state.plan[id] = nil, nil
    if ev.turn_usage then
      state.usage[id] = { turn = ev.turn_usage, session = ev.session_usage }
    end
  else
    return
  end
  pcall(vim.cmd, 'redrawstatus!')
end

-- define_click defines the Vimscript function a statusline click calls.
function M.define_click()
  vim.cmd([[
    function! AgentlsRevertClick(minwid, clicks, button, mods) abort
      lua require('agentls').revert()
    endfunction
  ]])
end

return M
