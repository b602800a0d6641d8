-- The user commands; plugin/agentls.lua and setup() define them.
local M = {}

function M.define()
  if M.defined then
    return
  end
  M.defined = true
  local create = vim.api.nvim_create_user_command
  create('AgentAsk', function(o)
    local range = o.range > 0 and { o.line1, o.line2 } or nil
    require('agentls').ask(o.args, { range = range })
  end, { nargs = '*', range = true, desc = 'agentls: ask the agent (a range adds the selection)' })
  create('AgentCancel', function()
    require('agentls').cancel()
  end, { nargs = 0, desc = 'agentls: stop the running turn' })
  create('AgentRevert', function(o)
    require('agentls').revert(o.args, o.bang)
  end, { nargs = '?', bang = true, desc = "agentls: restore the files of the last turn (! also files changed since)" })
  create('AgentChat', function(o)
    require('agentls').chat(o.mods)
  end, { nargs = 0, desc = "agentls: the chat of this project's session (follow-ups, the streamed answer)" })
  create('AgentQuickfix', function()
    require('agentls').quickfix()
  end, { nargs = 0, desc = 'agentls: the places a tool result named (the one under the cursor in the chat) into the quickfix list' })
  create('AgentLog', function(o)
    require('agentls').log(o.mods)
  end, { nargs = 0, desc = 'agentls: show the transcript' })
  create('AgentSessions', function(o)
    require('agentls.sessions').pick(o.mods)
  end, { nargs = 0, desc = "agentls: the project's stored sessions; the one chosen is resumed" })
  create('AgentResume', function(o)
    require('agentls.sessions').resume_latest(o.args, o.mods)
  end, { nargs = '?', desc = 'agentls: continue a stored session (the last one, or the id given) with its turns in the chat' })
  create('AgentModel', function(o)
    require('agentls.model').choose(o.args)
  end, { nargs = '?', desc = 'agentls: switch the conversation to another model (none given: pick one); it goes on' })
  create('AgentCheckpoints', function(o)
    require('agentls.checkpoints').command(o.args)
  end, { nargs = '*', complete = function(lead)
    return require('agentls.checkpoints').complete(lead)
  end, desc = "agentls: the session's checkpoints; restore files, conversation or both to before a step (undo: the last restore)" })
  create('AgentInstall', function(o)
    require('agentls').install(o.args)
  end, { nargs = '?', desc = 'agentls: build agentls with go (from this checkout, or go install …@version)' })
end

return M
