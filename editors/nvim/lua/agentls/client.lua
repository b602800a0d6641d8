-- The agentls clients: one per project root, started with the plugin's
-- handlers and capabilities, attached to file buffers, forgotten when they
-- exit; and which client a command goes to.
local asks = require('agentls.ask')
local binary = require('agentls.binary')
local chat = require('agentls.chat')
local events = require('agentls.events')
local handlers = require('agentls.handlers')
local question = require('agentls.question')
local quickfix = require('agentls.quickfix')
local review = require('agentls.review')
local roots = require('agentls.roots')
local state = require('agentls.state')
local status = require('agentls.status')
local transcript = require('agentls.transcript')
local util = require('agentls.util')

local notify, has = util.notify, util.has

local M = {}

-- Events --------------------------------------------------------------------

local function on_event(_, ev, ctx)
  if type(ev) ~= 'table' then
    return
  end
  ev = events.checked(ev)
  local id = ctx.client_id
  if ev.type == 'turn_start' and not util.present(ev.parent_id) then
    state.turns[id] = ev.turn_id or ''
    status.changed()
  elseif ev.type == 'turn_end' and not util.present(ev.parent_id) then
    if ev.turn_id then
      state.ended[ev.turn_id] = true
    end
    state.turns[id] = nil
    -- Nobody waits for this turn's questions any more.
    asks.ended(id, ev.turn_id)
    question.ended(id)
    review.turn_ended(id, ev.turn_id)
  end
  status.event(ev, id)
  transcript.event(ev, state.roots[id])
  chat.event(ev, id)
  quickfix.event(ev, id)
  if ev.type == 'turn_end' then
    status.changed()
  end
end

-- Clients -------------------------------------------------------------------

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  if type(caps.experimental) ~= 'table' then
    caps.experimental = {}
  end
  caps.experimental.agentls = {
    saveDocument = state.config.save and true or false,
    question = true,
    asyncAsk = true,
    asyncQuestion = true,
    review = state.config.review and true or false,
  }
  if not vim.lsp.handlers['window/showDocument'] then
    caps.window = caps.window or {}
    caps.window.showDocument = { support = true }
  end
  if state.config.capabilities then
    caps = vim.tbl_deep_extend('force', caps, state.config.capabilities)
  end
  return caps
end

local function init_options()
  local cfg = state.config
  local opts = vim.deepcopy(cfg.init_options or {})
  if cfg.model then
    opts.model = cfg.model
  end
  if cfg.permissions then
    opts.permissions = cfg.permissions
  end
  -- An empty Lua table would be sent as [] rather than an object.
  if next(opts) == nil then
    return nil
  end
  return opts
end

local function forget(id)
  local root = state.roots[id]
  if root and state.clients[root] == id then
    state.clients[root] = nil
  end
  state.roots[id], state.ready[id], state.queue[id] = nil, nil, nil
  state.turns[id], state.last_turn[id] = nil, nil
  state.step[id], state.plan[id], state.changed[id], state.sessions[id], state.usage[id] = nil, nil, nil, nil, nil
  asks.ended(id)
  question.ended(id)
  review.turn_ended(id)
  chat.forget(id)
  if state.last_client == id then
    state.last_client = nil
  end
end

-- server_cmd is the command that starts the server, or nil and why not.
local function server_cmd()
  local cfg = state.config
  if cfg.cmd then
    if vim.fn.executable(cfg.cmd[1]) ~= 1 then
      return nil, string.format('agentls: %q (cmd in setup()) is not executable', cfg.cmd[1])
    end
    return cfg.cmd
  end
  local bin, looked = binary.find()
  if not bin then
    return nil, string.format('agentls: no agentls binary (looked in %s): run :AgentInstall to build it with go, '
      .. 'or see :help agentls-install', table.concat(looked, ', '))
  end
  return { bin, 'serve', '--stdio' }
end

-- plugin_handlers are the handlers of the server's requests and
-- notifications; each gets its params with JSON null as nil (0.10+
-- decode it as vim.NIL).
local function plugin_handlers()
  local h = {
    ['agentls/event'] = on_event,
    ['agentls/saveDocument'] = handlers.save,
    ['agentls/ask'] = asks.on_ask,
    ['agentls/askDone'] = asks.on_done,
    ['agentls/askQuestion'] = question.on_question,
    ['agentls/review'] = review.on_review,
    -- Servers without asyncAsk ask this way.
    ['window/showMessageRequest'] = handlers.show_message_request,
    ['agentls/question'] = handlers.question,
    ['window/showMessage'] = handlers.show_message,
  }
  if not vim.lsp.handlers['window/showDocument'] then
    h['window/showDocument'] = handlers.show_document
  end
  for method, fn in pairs(h) do
    h[method] = util.denulled(fn)
  end
  return h
end

--- adopt makes a client named agentls the plugin's, however it was
--- started (setup(), vim.lsp.enable('agentls') with the plugin's
--- lsp/agentls.lua, vim.lsp.config, another plugin): the plugin knows its
--- root, and it gets the plugin's handlers where it has none, so the chat,
--- the statusline and the asks work with it.
function M.adopt(client)
  if not client or client.name ~= 'agentls' then
    return
  end
  local id = client.id
  if not state.roots[id] then
    local root = client.root_dir or (client.config and client.config.root_dir) or vim.fn.getcwd()
    state.roots[id] = root
    if not (state.clients[root] and vim.lsp.get_client_by_id(state.clients[root])) then
      state.clients[root] = id
    end
  end
  client.handlers = client.handlers or {}
  for method, fn in pairs(plugin_handlers()) do
    if client.handlers[method] == nil then
      client.handlers[method] = fn
    end
  end
  if client.initialized then
    state.ready[id] = true
  end
end

local function on_init(client)
  M.adopt(client)
  state.ready[client.id] = true
  -- on_init runs before Neovim sends didOpen for the buffers attached
  -- so far: run the waiting requests after that.
  vim.schedule(function()
    local queue = state.queue[client.id] or {}
    state.queue[client.id] = nil
    for _, fn in ipairs(queue) do
      fn(client)
    end
  end)
end

local function on_exit(code, signal, id)
  -- Called from a libuv callback on 0.7: no editor calls here.
  vim.schedule(function()
    local running = state.turns[id]
    forget(id)
    status.changed()
    if code ~= 0 or signal ~= 0 or running then
      notify(string.format('agentls: server exited (code %d, signal %d)', code, signal), vim.log.levels.WARN)
    end
  end)
end

local function client_config(root, cmd)
  return {
    name = 'agentls',
    cmd = cmd,
    root_dir = root,
    workspace_folders = root and { { uri = vim.uri_from_fname(root), name = root } } or nil,
    init_options = init_options(),
    capabilities = capabilities(),
    handlers = plugin_handlers(),
    -- The code actions' agentls.ask runs here, to ask for your question.
    commands = { ['agentls.ask'] = require('agentls.actions').ask },
    on_init = on_init,
    on_exit = on_exit,
    on_attach = state.config.on_attach,
  }
end

--- lsp_config is the plugin's lsp/agentls.lua: the configuration
--- vim.lsp.enable('agentls') starts (Neovim 0.11+), with setup()'s options
--- when it was called, else the defaults.
function M.lsp_config()
  require('agentls').config()
  local cmd, why = server_cmd()
  if not cmd then
    util.notify_once('cmd', why, vim.log.levels.ERROR)
    cmd = { 'agentls', 'serve', '--stdio' }
  end
  local conf = client_config(nil, cmd)
  conf.filetypes = state.config.filetypes
  -- The same root as setup()'s clients: see roots.lua.
  conf.root_dir = function(buf, on_dir)
    local path = handlers.file_path(buf)
    local root = path and roots.find(path)
    if root then
      on_dir(root)
    end
  end
  return conf
end

local function attached_client(buf)
  for id in pairs(state.roots) do
    if vim.lsp.buf_is_attached(buf, id) then
      return id
    end
  end
  -- A client named agentls that someone else started (0.7 has no
  -- LspAttach to adopt it as it attaches).
  local attached = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
  for _, c in pairs(attached) do
    if c.name == 'agentls' then
      M.adopt(c)
      return c.id
    end
  end
end

--- attach attaches the agentls client of the buffer's root to buffer buf
--- (0: current), starting the client when the root has none. It returns the
--- client id, or nil for buffers agentls does not manage (not a file:
--- scratch, help, the chat and review buffers).
function M.attach(buf)
  if not state.config then
    require('agentls').setup()
  end
  if buf == nil or buf == 0 then
    buf = vim.api.nvim_get_current_buf()
  end
  local path = handlers.file_path(buf)
  if not path then
    return nil
  end
  local existing = attached_client(buf)
  if existing then
    return existing
  end
  local cfg = state.config
  if cfg.filetypes and not vim.tbl_contains(cfg.filetypes, vim.bo[buf].filetype) then
    return nil
  end
  local root = roots.find(path)
  if not root then
    return nil
  end
  local id = state.clients[root]
  if id and vim.lsp.get_client_by_id(id) then
    vim.lsp.buf_attach_client(buf, id)
    return id
  end
  local cmd, why = server_cmd()
  if not cmd then
    util.notify_once('cmd', why, vim.log.levels.ERROR)
    return nil
  end
  local conf = client_config(root, cmd)
  if vim.lsp.start and has('0.10') then
    id = vim.lsp.start(conf, {
      bufnr = buf,
      reuse_client = function(client, c)
        return client.name == c.name and client.config.root_dir == c.root_dir
      end,
    })
  else
    id = vim.lsp.start_client(conf)
    if id then
      vim.lsp.buf_attach_client(buf, id)
    end
  end
  if not id then
    notify('agentls: could not start ' .. table.concat(cmd, ' '), vim.log.levels.ERROR)
    return nil
  end
  state.clients[root], state.roots[id] = id, root
  return id
end

--- prune forgets the clients that are gone: one the plugin adopted
--- (see adopt) exits without the plugin's on_exit.
function M.prune()
  for id in pairs(vim.tbl_extend('force', {}, state.roots)) do
    local c = vim.lsp.get_client_by_id(id)
    if not c or (c.is_stopped and c:is_stopped()) then
      forget(id)
    end
  end
end

-- running tells whether a client id is a running agentls client.
function M.running(id)
  return id ~= nil and state.roots[id] ~= nil and vim.lsp.get_client_by_id(id) ~= nil
end

-- current finds the client for a command: the current buffer's
-- (a chat buffer's is its session's), else the one used last, else the
-- only one running.
function M.current()
  local buf = vim.api.nvim_get_current_buf()
  local c = chat.by_buf(buf)
  if c and M.running(c.client_id) then
    return c.client_id
  end
  local id = M.attach(buf)
  if id then
    return id, buf
  end
  if M.running(state.last_client) then
    return state.last_client
  end
  local only
  for cid in pairs(state.roots) do
    if only then
      return nil
    end
    only = cid
  end
  return only
end

--- with_current runs fn(id) with the client a command goes to (M.current),
--- or says there is none: the commands' common start.
function M.with_current(fn)
  local id = M.current()
  if not id then
    notify('agentls: no agentls server for this buffer: open a file of your project first', vim.log.levels.ERROR)
    return
  end
  return fn(id)
end

return M
