-- agentls for Neovim: runs `agentls serve --stdio` through Neovim's
-- built-in LSP client, one client per project root, and adds :AgentAsk,
-- :AgentChat, :AgentCancel, :AgentRevert, :AgentLog, :AgentQuickfix, a
-- statusline, asks that never block and per-hunk review.
--
-- Works on Neovim 0.7.2 and later; newer APIs are feature-detected:
-- vim.lsp.start (0.10+, instead of vim.lsp.start_client), coroutine-based
-- server-request handlers (0.10+), client:request (0.11+). See :help
-- agentls.
local ask_ui = require('agentls.ask')
local binary = require('agentls.binary')
local chat = require('agentls.chat')
local handlers = require('agentls.handlers')
local quickfix = require('agentls.quickfix')
local review = require('agentls.review')
local roots = require('agentls.roots')
local rpc = require('agentls.rpc')
local selection = require('agentls.selection')
local state = require('agentls.state')
local status = require('agentls.status')
local transcript = require('agentls.transcript')
local util = require('agentls.util')

local notify, has = util.notify, util.has

local M = {}

local defaults = {
  -- The server command; nil: { <the agentls found>, 'serve', '--stdio' },
  -- see binary.lua (:AgentInstall's, mason's, then $PATH's).
  cmd = nil,
  -- initializationOptions: model ("provider:model") and permissions
  -- ({mode = "smart"|"auto"}); init_options adds any other key.
  model = nil,
  permissions = nil,
  init_options = nil,
  -- The project root of a file: a directory (string), a function(path)
  -- returning one (nil: do not attach), or nil for the nearest ancestor
  -- holding one of root_markers, else the current directory when the file
  -- is under it, else the file's directory.
  root_dir = nil,
  root_markers = { '.git', '.hg', '.jj', '.svn' },
  -- Attach only to buffers of these filetypes (nil: every file buffer).
  filetypes = nil,
  -- Declare capabilities.experimental.agentls.saveDocument: after an edit
  -- of a buffer without unsaved changes of yours, the server asks the
  -- plugin to write it, so the disk holds the agent's change.
  save = true,
  -- Declare experimental.agentls.review: a change to one file is reviewed
  -- hunk by hunk in a diff split instead of a yes/no ask.
  review = true,
  -- How asks are shown: 'auto' (your vim.ui.select when a plugin replaced
  -- it, else a float of agentls's own), 'float' or 'select'.
  ask_ui = 'auto',
  -- How long (ms) a question the plugin answers in a request handler (a
  -- review; on servers without asyncAsk, any ask) waits before it counts
  -- as a deny.
  ask_timeout = 10 * 60 * 1000,
  on_attach = nil, -- function(client, bufnr)
  capabilities = nil, -- merged into the client capabilities
}

-- Events --------------------------------------------------------------------

local function on_event(_, ev, ctx)
  if type(ev) ~= 'table' then
    return
  end
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
    ask_ui.ended(id, ev.turn_id)
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
  state.step[id], state.plan[id], state.changed[id], state.sessions[id] = nil, nil, nil, nil
  ask_ui.ended(id)
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

local function client_config(root, cmd)
  local h = {
    ['agentls/event'] = on_event,
    ['agentls/saveDocument'] = handlers.save,
    ['agentls/ask'] = ask_ui.on_ask,
    ['agentls/askDone'] = ask_ui.on_done,
    ['agentls/review'] = review.on_review,
    -- Servers without asyncAsk ask this way.
    ['window/showMessageRequest'] = handlers.show_message_request,
    ['agentls/question'] = handlers.question,
    ['window/showMessage'] = handlers.show_message,
  }
  if not vim.lsp.handlers['window/showDocument'] then
    h['window/showDocument'] = handlers.show_document
  end
  return {
    name = 'agentls',
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = init_options(),
    capabilities = capabilities(),
    handlers = h,
    -- The code actions' agentls.ask runs here, to ask for your question.
    commands = { ['agentls.ask'] = require('agentls.actions').ask },
    on_init = function(client)
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
    end,
    on_exit = function(code, signal, id)
      -- Called from a libuv callback on 0.7: no editor calls here.
      vim.schedule(function()
        local running = state.turns[id]
        forget(id)
        status.changed()
        if code ~= 0 or signal ~= 0 or running then
          notify(string.format('agentls: server exited (code %d, signal %d)', code, signal), vim.log.levels.WARN)
        end
      end)
    end,
    on_attach = state.config.on_attach,
  }
end

local function attached_client(buf)
  for id in pairs(state.roots) do
    if vim.lsp.buf_is_attached(buf, id) then
      return id
    end
  end
end

--- attach attaches the agentls client of the buffer's root to buffer buf
--- (0: current), starting the client when the root has none. It returns the
--- client id, or nil for buffers agentls does not manage (not a file:
--- scratch, help, the chat and review buffers).
function M.attach(buf)
  if not state.config then
    M.setup()
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

-- running tells whether a client id is a running agentls client.
local function running(id)
  return id ~= nil and state.roots[id] ~= nil
end

-- current_client finds the client for a command: the current buffer's
-- (a chat buffer's is its session's), else the one used last, else the
-- only one running.
local function current_client()
  local buf = vim.api.nvim_get_current_buf()
  local c = chat.by_buf(buf)
  if c and running(c.client_id) then
    return c.client_id
  end
  local id = M.attach(buf)
  if id then
    return id, buf
  end
  if running(state.last_client) then
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

-- Commands -----------------------------------------------------------------

-- target is where an ask goes: the client, the buffer giving the context,
-- the session (a chat's follow-up).
local function target(opts)
  if opts.chat then
    local id = running(opts.chat.client_id) and opts.chat.client_id or current_client()
    return id, nil, opts.chat.session
  end
  if running(opts.client_id) then
    return opts.client_id, opts.bufnr
  end
  return current_client()
end

--- ask starts a turn with prompt. opts.range = {line1, line2} (1-based)
--- adds the selection; opts.uri with opts.lsp_range give the context as
--- LSP does (code actions); opts.chat sends a follow-up in that chat's
--- session. Without a prompt it asks for one (vim.ui.input).
function M.ask(prompt, opts)
  opts = opts or {}
  if prompt == nil or not prompt:match('%S') then
    vim.ui.input({ prompt = 'Ask agent: ' }, function(input)
      if input and input:match('%S') then
        M.ask(input, opts)
      end
    end)
    return
  end
  local id, buf, session = target(opts)
  if not id then
    notify('agentls: no agentls server for this buffer: open a file of your project first', vim.log.levels.ERROR)
    return
  end
  local args = { prompt = prompt, sessionId = session }
  local where = ''
  if opts.uri then
    args.uri, args.range = opts.uri, opts.lsp_range
  elseif buf then
    args.uri = vim.uri_from_bufnr(buf)
    if opts.range then
      args.range = selection.range(buf, opts.range[1], opts.range[2])
    end
  end
  if args.uri then
    local ok, fname = pcall(vim.uri_to_fname, args.uri)
    where = transcript.relative(ok and fname or args.uri, state.roots[id]) or ''
    if args.range then
      where = string.format('%s:%d-%d', where, args.range.start.line + 1, args.range['end'].line + 1)
    end
  end
  state.last_client = id
  state.turns[id] = state.turns[id] or ''
  status.changed()
  transcript.add({ 'you: ' .. prompt:gsub('\r?\n', ' ') .. (where ~= '' and ('  [' .. where .. ']') or '') })
  rpc.command(id, 'agentls.ask', args, buf, function(err, result)
    if err then
      if state.turns[id] == '' then
        state.turns[id] = nil
      end
      status.changed()
      local msg = util.reword(err.message)
      transcript.add({ 'error: ' .. msg })
      chat.event({ type = 'error', message = msg }, id)
      notify('agentls: ' .. msg, vim.log.levels.ERROR)
      return
    end
    if opts.chat then
      chat.clear_prompt(opts.chat)
    end
    result = result or {}
    chat.session_started(id, result.sessionId)
    chat.you(id, prompt, where)
    local turn = result.turnId
    if turn then
      state.last_turn[id] = turn
      if state.ended[turn] then
        if state.turns[id] == '' or state.turns[id] == turn then
          state.turns[id] = nil
        end
      elseif state.turns[id] == '' or state.turns[id] == nil then
        state.turns[id] = turn
      end
    end
    status.changed()
  end)
end

--- cancel stops the running turn.
function M.cancel()
  local id = current_client()
  if not id then
    notify('agentls: no agentls server is running', vim.log.levels.WARN)
    return
  end
  local args = vim.empty_dict()
  local turn = state.turns[id]
  if turn and turn ~= '' then
    args = { turnId = turn }
  end
  rpc.command(id, 'agentls.cancel', args, nil, function(err, result)
    if err then
      notify('agentls: ' .. tostring(err.message), vim.log.levels.ERROR)
    elseif result and result.cancelled then
      notify('agentls: cancelling turn ' .. tostring(result.turnId))
    else
      notify('agentls: no turn is running')
    end
  end)
end

--- revert restores the files of a turn (the last turn with changes by
--- default); force also restores files changed after the turn.
function M.revert(turn, force)
  local id = current_client()
  if not id then
    notify('agentls: no agentls server is running', vim.log.levels.WARN)
    return
  end
  local args = {}
  if turn and turn ~= '' then
    args.turnId = turn
  end
  if force then
    args.force = true
  end
  if next(args) == nil then
    args = vim.empty_dict()
  end
  local root = state.roots[id]
  rpc.command(id, 'agentls.revertTurn', args, nil, function(err, result)
    if err then
      local msg = util.reword((tostring(err.message):gsub('^revert: ', '')))
      transcript.add({ 'error: revert: ' .. msg })
      notify('agentls: revert: ' .. msg, vim.log.levels.ERROR)
      return
    end
    result = result or {}
    if state.changed[id] then
      state.changed[id] = nil
      status.changed()
    end
    local restored = {}
    for _, p in ipairs(result.restored or {}) do
      table.insert(restored, transcript.relative(p, root))
    end
    local line = string.format('↶ reverted turn %s: %s', tostring(result.turnId),
      #restored > 0 and table.concat(restored, ', ') or 'nothing restored')
    for _, sk in ipairs(result.skipped or {}) do
      line = line .. string.format('; left alone %s (%s)', transcript.relative(tostring(sk.Path or sk.path), root),
        tostring(sk.Reason or sk.reason))
    end
    transcript.add({ line })
  end)
end

--- log opens the transcript buffer.
function M.log(mods)
  return transcript.open(mods)
end

--- chat opens the chat buffer of the current client's session (see
--- :AgentChat) and returns its buffer.
function M.chat(mods)
  local id = current_client()
  if not id then
    notify('agentls: no agentls server for this buffer: open a file of your project first', vim.log.levels.ERROR)
    return nil
  end
  return chat.open(id, mods).buf
end

--- quickfix puts the places a tool result named into the quickfix list
--- (see :AgentQuickfix); it returns how many.
function M.quickfix()
  return quickfix.open()
end

--- review_answer answers the open review: {accept = {1, 3}} applies those
--- hunks (numbered from 1 in file order) and rejects the rest; answer =
--- a grant of the review's choices, or 'deny'; text = the whole file as
--- you edited it. Returns false when no review is open.
function M.review_answer(opts)
  return review.answer(opts)
end

M.status = status.status
M.statusline = status.statusline

--- stop shuts every agentls client down.
function M.stop()
  for id in pairs(state.roots) do
    vim.lsp.stop_client(id)
  end
end

-- attach_file_buffers attaches every file buffer that has no client yet.
local function attach_file_buffers()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if handlers.file_path(buf) then
      M.attach(buf)
    end
  end
end

--- install builds agentls with go (:AgentInstall [version], see :help
--- agentls-binary); when it is done, the file buffers without a client get
--- one. on_done(path) or on_done(nil, err), if given, replaces the message.
function M.install(version, on_done)
  binary.install(version, function(path, err)
    if on_done then
      on_done(path, err)
    elseif not path then
      notify('agentls: ' .. err, vim.log.levels.ERROR)
    else
      local msg = 'agentls: installed ' .. path
      if state.config and state.config.cmd then
        msg = msg .. string.format(' (setup() sets cmd, so %s runs)', state.config.cmd[1])
      elseif next(state.roots) then
        msg = msg .. ' (running clients keep theirs until Neovim restarts)'
      end
      notify(msg)
    end
    if path and state.config then
      state.warned.cmd = nil
      attach_file_buffers()
    end
  end)
end

-- Setup --------------------------------------------------------------------

--- setup configures agentls and attaches it to file buffers; see :help
--- agentls-setup. Calling it again replaces the configuration for clients
--- started later.
function M.setup(opts)
  if not has('0.7') then
    notify('agentls needs Neovim 0.7 or later', vim.log.levels.ERROR)
    return
  end
  opts = opts or {}
  for key, types in pairs({ cmd = 'table', root_dir = 'string function', filetypes = 'table',
    root_markers = 'table', on_attach = 'function', capabilities = 'table', init_options = 'table',
    permissions = 'table', model = 'string', ask_timeout = 'number', ask_ui = 'string' }) do
    local v = opts[key]
    if v ~= nil and not types:find(type(v), 1, true) then
      error(string.format('agentls.setup: %s must be a %s, got %s', key, types:gsub(' ', ' or '), type(v)), 2)
    end
  end
  state.config = vim.tbl_extend('force', vim.deepcopy(defaults), opts)
  require('agentls.commands').define()
  status.define_click()
  local group = vim.api.nvim_create_augroup('agentls', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(args)
      local buf = args.buf
      -- After the filetype is detected, so didOpen carries the language.
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(buf) then
          M.attach(buf)
        end
      end)
    end,
  })
  attach_file_buffers()
end

--- clients lists the running agentls clients as {id, root} tables.
function M.clients()
  local out = {}
  for id, root in pairs(state.roots) do
    table.insert(out, { id = id, root = root, ready = state.ready[id] == true })
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

M._config = function()
  return state.config
end

return M
