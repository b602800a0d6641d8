-- Requests to the agentls server of a client: once it is initialized, in
-- the form the running Neovim has (client:request is 0.11+).
local state = require('agentls.state')
local util = require('agentls.util')

local M = {}

-- request sends an LSP request.
function M.request(client, method, params, handler, bufnr)
  if util.has('0.11') then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- with_client runs fn(client) once the client is initialized.
function M.with_client(id, fn)
  local client = vim.lsp.get_client_by_id(id)
  if not client then
    util.notify('agentls: the server is not running', vim.log.levels.ERROR)
    return
  end
  if state.ready[id] or client.initialized then
    state.ready[id] = true
    fn(client)
  else
    state.queue[id] = state.queue[id] or {}
    table.insert(state.queue[id], fn)
  end
end

-- command runs workspace/executeCommand name with one argument object;
-- on_result(err, result) gets the reply.
function M.command(id, name, args, bufnr, on_result)
  M.with_client(id, function(client)
    M.request(client, 'workspace/executeCommand', { command = name, arguments = { args } }, function(err, result)
      if on_result then
        on_result(util.denull(err), util.denull(result))
      end
    end, bufnr)
  end)
end

-- send runs command name like command, for an answer nothing waits on:
-- an error is shown as a warning.
function M.send(id, name, args)
  M.command(id, name, args, nil, function(err)
    if err then
      util.notify('agentls: ' .. tostring(err.message), vim.log.levels.WARN)
    end
  end)
end

return M
