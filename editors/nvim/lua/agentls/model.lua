-- :AgentModel: which model the conversation runs (agentls.model), and
-- switching it to another between turns (agentls.setModel) — the
-- conversation goes on, and the chat says so.
local client = require('agentls.client')
local rpc = require('agentls.rpc')
local util = require('agentls.util')

local M = {}

--- set switches client id's conversation to spec ("provider:model").
function M.set(id, spec)
  rpc.command(id, 'agentls.setModel', { model = spec }, nil, function(err, result)
    if err then
      util.notify('agentls: ' .. util.reword(tostring(err.message)), vim.log.levels.ERROR)
      return
    end
    local now = type(result) == 'table' and util.present(result.model) and tostring(result.model) or spec
    util.notify('agentls: the conversation goes on with ' .. now)
  end)
end

--- label is how a model appears in the list: the model, where agentls
--- found it, and whether the conversation runs it.
function M.label(c, current)
  return c.model .. (c.model == current and '  (now)' or '') .. '  — ' .. c.from
end

--- choose switches to spec, or without one offers the models agentls
--- knows (vim.ui.select) and switches to the one chosen (:AgentModel).
function M.choose(spec)
  client.with_current(function(id)
    if util.present(spec) then
      return M.set(id, vim.trim(spec))
    end
    rpc.command(id, 'agentls.model', vim.empty_dict(), nil, function(err, result)
      if err then
        util.notify('agentls: ' .. tostring(err.message), vim.log.levels.ERROR)
        return
      end
      result = type(result) == 'table' and result or {}
      local current = util.present(result.model) and tostring(result.model) or nil
      local models = util.list(result.models, function(c)
        if type(c) == 'table' and type(c.model) == 'string' then
          return { model = c.model, from = util.present(c.from) and tostring(c.from) or '' }
        end
      end)
      if #models == 0 then
        util.notify('agentls: no model known: ' .. tostring(result.problem or 'name one, :AgentModel provider:model'), vim.log.levels.WARN)
        return
      end
      local prompt = 'agentls: switch the conversation to (now ' .. (current or 'none') .. ')'
      vim.ui.select(models, { prompt = prompt, kind = 'agentls_model', format_item = function(c)
        return M.label(c, current)
      end }, function(c)
        if c and c.model ~= current then
          M.set(id, c.model)
        end
      end)
    end)
  end)
end

return M
