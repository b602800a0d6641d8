-- :AgentSessions and :AgentResume: the project's stored sessions
-- (agentls.sessions), and continuing one after a restart of Neovim or the
-- server — its earlier turns shown in the chat (agentls.history), the next
-- prompt going on in it.
local chat = require('agentls.chat')
local client = require('agentls.client')
local rpc = require('agentls.rpc')
local state = require('agentls.state')
local transcript = require('agentls.transcript')
local util = require('agentls.util')

local M = {}

--- list calls on_list(id, sessions) with the stored sessions, most recent
--- first ({id, title, updated, current}).
function M.list(on_list)
  client.with_current(function(id)
    rpc.command(id, 'agentls.sessions', vim.empty_dict(), nil, function(err, result)
      if err then
        util.notify('agentls: ' .. tostring(err.message), vim.log.levels.ERROR)
        return
      end
      on_list(id, util.list(result, function(s)
        return type(s) == 'table' and type(s.id) == 'string' and s or nil
      end))
    end)
  end)
end

--- resume continues stored session `session` on client id: the chat shows
--- its turns and the next prompt goes on in it.
function M.resume(id, session, mods)
  rpc.command(id, 'agentls.history', { sessionId = session }, nil, function(err, result)
    if err then
      util.notify('agentls: ' .. util.reword(err.message), vim.log.levels.ERROR)
      return
    end
    chat.history(id, session, (result or {}).entries)
    transcript.add({ '⟳ resumed session ' .. session .. ((result or {}).title and (': ' .. result.title) or '') })
    chat.open(id, mods)
  end)
end

local function label(s)
  local title = util.present(s.title) and tostring(s.title) or '(no prompt)'
  local when = type(s.updated) == 'string' and s.updated:sub(1, 16):gsub('T', ' ') or ''
  return string.format('%s  %s%s', when, title, s.current and '  (this one)' or '')
end

--- pick offers the stored sessions (vim.ui.select) and resumes the one
--- chosen (:AgentSessions).
function M.pick(mods)
  M.list(function(id, list)
    if #list == 0 then
      util.notify('agentls: no stored sessions in ' .. tostring(state.roots[id]))
      return
    end
    vim.ui.select(list, { prompt = 'agentls: resume a session', format_item = label, kind = 'agentls_session' }, function(s)
      if s then
        M.resume(id, s.id, mods)
      end
    end)
  end)
end

--- resume_latest resumes session `session`, or without one the most
--- recent that is not the current one (:AgentResume [id]).
function M.resume_latest(session, mods)
  if util.present(session) then
    client.with_current(function(id)
      M.resume(id, session, mods)
    end)
    return
  end
  M.list(function(id, list)
    for _, s in ipairs(list) do
      if not s.current then
        return M.resume(id, s.id, mods)
      end
    end
    util.notify('agentls: no earlier session to resume (:AgentSessions lists them)', vim.log.levels.WARN)
  end)
end

return M
