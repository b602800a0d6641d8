-- Scenario: which agentls the plugin runs, and :AgentInstall. It records
-- what require('agentls.binary').find() says, opens $AGENTLS_E2E_FILE (a
-- client starts, or a message says why not), then, with
-- $AGENTLS_PLUGIN_INSTALL set ("-": no version, else the version), runs
-- :AgentInstall [version] and waits for its message and the client it
-- starts. It records find() again, the command of the client (nil: none)
-- and :checkhealth agentls. Every vim.notify message is recorded.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT;
-- plugin_init.lua leaves cmd out of setup() when AGENTLS_PLUGIN_FIND=1.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local agentls = require('agentls')
  local binary = require('agentls.binary')
  rec.messages = {}
  -- Recorded, not shown: an ERROR shown by 0.7's vim.notify during
  -- vim.cmd('AgentInstall') would make vim.cmd raise.
  vim.notify = function(msg)
    table.insert(rec.messages, msg)
  end
  local function find()
    local path, from = binary.find()
    return { path = path or '', from = type(from) == 'string' and from or '', looked = type(from) == 'table' and from or nil }
  end
  rec.found_before = find()
  rec.checkout = binary.checkout() or ''

  -- Open the file: it gets a client, or a message says why not.
  vim.cmd('edit ' .. vim.fn.fnameescape(h.env('AGENTLS_E2E_ROOT') .. '/' .. h.env('AGENTLS_E2E_FILE')))
  h.wait(rec, 5000, function()
    return #agentls.clients() > 0 or #rec.messages > 0
  end, 'a client or a message')

  local version = vim.env.AGENTLS_PLUGIN_INSTALL
  if version and version ~= '' then
    local before = #rec.messages
    vim.cmd('AgentInstall' .. (version ~= '-' and ' ' .. version or ''))
    h.wait(rec, 240000, function()
      for i = before + 1, #rec.messages do
        if not rec.messages[i]:find(' …$') then
          return true
        end
      end
    end, ':AgentInstall')
    -- After an install, the open buffer gets its client.
    vim.wait(2000, function()
      return #agentls.clients() > 0
    end, 10)
  end
  rec.found_after = find()

  local clients = agentls.clients()
  if #clients > 0 then
    h.wait(rec, 20000, function()
      return agentls.clients()[1].ready
    end, 'the client initialized')
    rec.client_cmd = vim.lsp.get_client_by_id(clients[1].id).config.cmd
  end

  rec.health = h.health('agentls')
  agentls.stop()
  h.wait(rec, 5000, function()
    return #agentls.clients() == 0
  end, 'server exit')
end)
