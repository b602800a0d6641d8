-- Scenario: the plugin's window/showMessageRequest handler called the way
-- Neovim 0.10+ calls server-request handlers — inside a coroutine, the
-- result being what the coroutine returns — with vim.ui.select answering
-- later from a timer (plugin_init.lua's AGENTLS_PLUGIN_ASYNC_SELECT=1).
-- The handler must yield (not block in vim.wait) and return the choice.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local agentls = require('agentls')
  local _, client = h.edit_ready(rec)
  local handler = client.handlers['window/showMessageRequest']
  local params = { type = 2, message = 'agentls wants to run go test', actions = {
    { title = 'Allow' }, { title = 'Deny' }, { title = 'Allow "go test" this session' } } }
  local done, result
  local co = coroutine.create(function()
    result = handler(nil, params, { method = 'window/showMessageRequest', client_id = client.id })
    done = true
  end)
  local ok, err = coroutine.resume(co)
  if not ok then
    error('handler failed in the coroutine: ' .. tostring(err))
  end
  rec.yielded = not done
  rec.status_while_yielded = agentls.status()
  h.wait(rec, 5000, function()
    return done
  end, 'handler resumed and returned')
  rec.result = result
  rec.status_after = agentls.status()
  rec.selects = _G.agentls_test.selects
  h.stop_plugin(rec)
end)
