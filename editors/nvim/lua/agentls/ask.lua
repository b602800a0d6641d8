-- Permission questions that never block (the plugin declares
-- experimental.agentls.asyncAsk): the server sends agentls/ask as a
-- notification, the plugin shows the choices and returns at once, and the
-- answer goes back as the command agentls.approve {id, answer}. When the
-- question ends some other way (the turn was cancelled, ask_timeout,
-- another client answered), agentls/askDone closes what is still open, and
-- a late answer from a picker is dropped.
local chooser = require('agentls.chooser')
local diffwin = require('agentls.diffwin')
local rpc = require('agentls.rpc')
local state = require('agentls.state')
local status = require('agentls.status')
local util = require('agentls.util')

local M = {}

-- finish forgets an ask and closes its windows.
local function finish(ask)
  if ask.done then
    return
  end
  ask.done = true
  if state.asks[ask.id] == ask then
    state.asks[ask.id] = nil
  end
  if ask.ui and ask.ui.close then
    ask.ui.close()
  end
  diffwin.close(ask)
  status.changed()
end

--- answer sends agentls.approve for an open ask; false when there is none
--- with that id.
function M.answer(id, answer)
  local ask = state.asks[id]
  if not ask then
    return false
  end
  finish(ask)
  rpc.send(ask.client_id, 'agentls.approve', { id = ask.id, answer = answer })
  return true
end

local show_diff = { title = 'Show diff', show_diff = true }

-- show offers the ask's choices, plus Show diff for a change.
local function show(ask)
  local items = {}
  for _, c in ipairs(ask.choices) do
    table.insert(items, c)
  end
  if util.present(ask.diff) then
    table.insert(items, show_diff)
  end
  local prompt = ask.message
  for _, w in ipairs(ask.warnings) do
    prompt = prompt .. '\n⚠ ' .. w
  end
  ask.ui = chooser.pick(state.config.ask_ui, items, {
    prompt = prompt,
    kind = 'agentls_ask',
    format_item = function(item)
      return (item.title:gsub('\r?\n', ' '))
    end,
  }, function(item)
    if ask.done then
      return -- answered or ended meanwhile: a picker's late answer
    end
    if item == show_diff then
      diffwin.show(ask, ask.id, ask.diff)
      vim.schedule(function()
        if not ask.done then
          show(ask)
        end
      end)
      return
    end
    -- Dismissed: a deny, as with every ask.
    M.answer(ask.id, item and item.answer or 'deny')
  end)
end

--- on_ask handles the agentls/ask notification.
function M.on_ask(_, params, ctx)
  if type(params) ~= 'table' or type(params.id) ~= 'string' then
    return
  end
  local choices, warnings = util.choices(params.choices), util.strings(params.warnings)
  local ask = {
    id = params.id,
    client_id = ctx.client_id,
    turn = params.turnId,
    message = tostring(params.message or 'agentls asks'),
    diff = type(params.diff) == 'string' and params.diff or nil,
    choices = choices,
    warnings = warnings,
  }
  if state.asks[ask.id] then
    finish(state.asks[ask.id])
  end
  state.asks[ask.id] = ask
  status.changed()
  show(ask)
  util.event('AgentlsAsk')
end

--- on_done handles agentls/askDone: the question ended.
function M.on_done(_, params, _)
  if type(params) ~= 'table' or type(params.id) ~= 'string' then
    return
  end
  local ask = state.asks[params.id]
  if ask then
    finish(ask)
  end
  require('agentls.question').done(params.id)
  require('agentls.review').ended(params.id)
end

--- ended closes the asks of a client (all, or those of one turn): the turn
--- ended or the client exited, so nobody waits for them any more.
function M.ended(client_id, turn)
  for _, ask in pairs(vim.tbl_values(state.asks)) do
    if ask.client_id == client_id and (turn == nil or ask.turn == nil or ask.turn == turn) then
      finish(ask)
    end
  end
end

return M
