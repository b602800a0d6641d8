-- agentls for Neovim: runs `agentls serve --stdio` through Neovim's
-- built-in LSP client, one client per project root, and adds :AgentAsk,
-- :AgentCancel, :AgentRevert, :AgentLog and a statusline function.
--
-- Works on Neovim 0.7.2 and later; newer APIs are feature-detected:
-- vim.lsp.start (0.10+, instead of vim.lsp.start_client), coroutine-based
-- server-request handlers (0.10+: asks wait for vim.ui.select without
-- blocking), client:request (0.11+). See :help agentls.
local binary = require('agentls.binary')
local transcript = require('agentls.transcript')

local uv = vim.uv or vim.loop

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
  -- Neovim before 0.10 answers server requests synchronously: an ask waits
  -- this long (ms) for vim.ui.select's callback, then counts as a deny.
  ask_timeout = 10 * 60 * 1000,
  on_attach = nil, -- function(client, bufnr)
  capabilities = nil, -- merged into the client capabilities
}

local state = {
  config = nil,
  clients = {}, -- root -> client id
  roots = {}, -- client id -> root
  ready = {}, -- client id -> true once initialized
  queue = {}, -- client id -> functions waiting for initialization
  turns = {}, -- client id -> running turn id ('' while an ask is in flight)
  last_turn = {}, -- client id -> the last turn id the plugin started
  ended = {}, -- turn id -> true once turn_end arrived
  asking = 0, -- permission asks waiting for an answer
  last_client = nil,
  warned = {},
}

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'agentls' })
end

local function notify_once(key, msg, level)
  if not state.warned[key] then
    state.warned[key] = true
    notify(msg, level or vim.log.levels.WARN)
  end
end

-- request sends an LSP request (client:request is the 0.11+ form).
local function request(client, method, params, handler, bufnr)
  if has('0.11') then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- Status -------------------------------------------------------------------

local function status_changed()
  pcall(vim.cmd, 'redrawstatus!')
  if vim.fn.exists('#User#AgentlsStatus') == 1 then
    vim.cmd('doautocmd <nomodeline> User AgentlsStatus')
  end
end

--- status returns what the agent is doing, for a statusline:
--- "waiting for you" (a permission ask is open), "working" (a turn runs),
--- or "idle".
function M.status()
  if state.asking > 0 then
    return 'waiting for you'
  end
  for _, turn in pairs(state.turns) do
    if turn then
      return 'working'
    end
  end
  return 'idle'
end

-- Paths and roots ------------------------------------------------------------

local function normalize(path)
  path = vim.fn.fnamemodify(path, ':p')
  if #path > 1 then
    path = path:gsub('/+$', '')
  end
  return path
end

local function under(path, dir)
  return path == dir or path:sub(1, #dir + 1) == (dir == '/' and '/' or dir .. '/')
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function find_root(fname)
  local cfg = state.config
  local rd = cfg.root_dir
  if type(rd) == 'function' then
    local r = rd(fname)
    return r and normalize(r) or nil
  elseif type(rd) == 'string' then
    rd = normalize(rd)
    return under(fname, rd) and rd or nil
  end
  local dir = vim.fn.fnamemodify(fname, ':h')
  while true do
    for _, marker in ipairs(cfg.root_markers or {}) do
      if exists(dir .. '/' .. marker) then
        return normalize(dir)
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  local cwd = normalize(uv.cwd())
  local home = uv.os_homedir() and normalize(uv.os_homedir())
  if under(fname, cwd) and cwd ~= '/' and cwd ~= home then
    return cwd
  end
  return normalize(vim.fn.fnamemodify(fname, ':h'))
end

-- file_path returns the absolute path of a file buffer, or nil for other
-- buffers (help, terminals, scratch, URLs such as fugitive://).
local function file_path(buf)
  if not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_buf_is_loaded(buf) then
    return nil
  end
  if vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return normalize(name)
end

-- Server requests ----------------------------------------------------------

-- await calls ui(callback) — vim.ui.select or vim.ui.input — and returns
-- what the callback got, or nil when nobody answered. `what` names the
-- question in messages. The status shows "waiting for you" meanwhile.
local function await(ui, what)
  state.asking = state.asking + 1
  status_changed()
  local answer
  local co, is_main = coroutine.running()
  if co and not is_main then
    -- Neovim 0.10+ runs server-request handlers in a coroutine: wait for the
    -- answer without blocking the editor, so asynchronous pickers
    -- (telescope, fzf-lua, dressing, snacks) work.
    local called, err = pcall(ui, function(item)
      -- The built-in pickers call back before yield: resume later.
      vim.schedule(function()
        coroutine.resume(co, item)
      end)
    end)
    if called then
      answer = coroutine.yield()
    else
      notify('agentls: the prompt failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
  else
    -- Neovim 0.7-0.9: the handler's return value is the answer. The
    -- built-in vim.ui.select (inputlist) calls back at once; for others,
    -- run the event loop until the callback comes or ask_timeout passes.
    local done = false
    pcall(vim.cmd, 'redraw')
    local called, err = pcall(ui, function(item)
      if not done then
        done, answer = true, item
      end
    end)
    if not called then
      done = true
      notify('agentls: the prompt failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
    if not done then
      vim.wait(state.config.ask_timeout, function()
        return done
      end, 20)
      if not done then
        done = true
        notify('agentls: no answer to "' .. what .. '" within ask_timeout', vim.log.levels.WARN)
      end
    end
  end
  state.asking = state.asking - 1
  status_changed()
  return answer
end

-- ask answers window/showMessageRequest with vim.ui.select, showing the
-- server's action titles. The result is the chosen action ({title = …}) or
-- vim.NIL when the prompt was dismissed (the server reads that as a deny).
local function on_ask(_, params, _)
  params = params or {}
  local actions = {}
  for _, a in ipairs(params.actions or {}) do
    if type(a) == 'table' and type(a.title) == 'string' then
      table.insert(actions, a)
    end
  end
  local message = tostring(params.message or '')
  if #actions == 0 then
    notify(message, params.type == 1 and vim.log.levels.ERROR or vim.log.levels.WARN)
    return vim.NIL
  end
  local opts = {
    prompt = message,
    kind = 'agentls_ask',
    format_item = function(a)
      return (a.title:gsub('\r?\n', ' '))
    end,
  }
  local choice = await(function(cb)
    vim.ui.select(actions, opts, cb)
  end, message)
  if type(choice) ~= 'table' or type(choice.title) ~= 'string' then
    return vim.NIL
  end
  return { title = choice.title }
end

-- done_item ends a multiple choice.
local done_item = 'Done'

-- on_question answers agentls/question, the agent's question to you:
-- vim.ui.select over the options (one at a time, then "Done", when several
-- may be chosen), vim.ui.input when there are none. The result is
-- {answer = text} or {chosen = {…}}; {answer = vim.NIL} when dismissed.
local function on_question(_, params, _)
  params = params or {}
  local question = tostring(params.question or '')
  local options = {}
  for _, o in ipairs(type(params.options) == 'table' and params.options or {}) do
    if type(o) == 'string' then
      table.insert(options, o)
    end
  end
  local prompt = 'agentls asks: ' .. question
  if #options == 0 then
    local text = await(function(cb)
      vim.ui.input({ prompt = prompt .. ' ' }, cb)
    end, question)
    if type(text) ~= 'string' or text == '' then
      return { answer = vim.NIL }
    end
    return { answer = text }
  end
  local chosen = {}
  local left = vim.deepcopy(options)
  repeat
    local items = vim.deepcopy(left)
    local p = prompt
    if params.multi then
      if #chosen > 0 then
        p = p .. ' (chosen: ' .. table.concat(chosen, ', ') .. ')'
      end
      table.insert(items, done_item)
    end
    local pick = await(function(cb)
      vim.ui.select(items, { prompt = p, kind = 'agentls_question' }, cb)
    end, question)
    if type(pick) ~= 'string' or pick == done_item then
      break
    end
    table.insert(chosen, pick)
    for i, o in ipairs(left) do
      if o == pick then
        table.remove(left, i)
        break
      end
    end
  until not params.multi or #left == 0
  if #chosen == 0 then
    return { answer = vim.NIL }
  end
  return { chosen = chosen }
end

-- find_buffer returns the loaded buffer showing uri.
local function find_buffer(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  fname = ok and normalize(fname) or nil
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      if vim.uri_from_bufnr(b) == uri or (fname and file_path(b) == fname) then
        return b
      end
    end
  end
end

-- on_save answers agentls/saveDocument: it writes that one buffer (it must
-- be attached to this client) and replies {saved = true} when the buffer
-- then has no unsaved changes.
local function on_save(_, params, ctx)
  local uri = params and params.textDocument and params.textDocument.uri
  local buf = type(uri) == 'string' and find_buffer(uri) or nil
  if not buf or not vim.lsp.buf_is_attached(buf, ctx.client_id) then
    return { saved = false }
  end
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent keepalt update')
  end)
  if not ok then
    notify('agentls: could not save ' .. vim.api.nvim_buf_get_name(buf) .. ': ' .. tostring(err), vim.log.levels.WARN)
    return { saved = false }
  end
  return { saved = not vim.bo[buf].modified }
end

-- on_show_document implements window/showDocument where Neovim lacks it
-- (before 0.8): the server shows an edit's diff this way ("Show diff").
local function on_show_document(_, params, _)
  if not params or type(params.uri) ~= 'string' or params.external then
    return { success = false }
  end
  local ok, fname = pcall(vim.uri_to_fname, params.uri)
  if not ok then
    return { success = false }
  end
  local from = vim.api.nvim_get_current_win()
  local shown
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if normalize(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))) == normalize(fname) then
      shown = w
    end
  end
  local opened = pcall(function()
    if shown then
      vim.api.nvim_set_current_win(shown)
      vim.cmd('silent! edit')
    else
      vim.cmd('botright split ' .. vim.fn.fnameescape(fname))
    end
    local sel = params.selection
    if sel and sel.start then
      pcall(vim.api.nvim_win_set_cursor, 0, { sel.start.line + 1, sel.start.character })
    end
  end)
  if opened and not params.takeFocus and vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
  pcall(vim.cmd, 'redraw')
  return { success = opened }
end

-- on_show_message shows the server's messages (the turn's answer, a deny,
-- what a revert restored) with vim.notify, so notification plugins get them.
local function on_show_message(_, params, _)
  if not params then
    return
  end
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  notify(tostring(params.message), levels[params.type] or vim.log.levels.INFO)
end

local function on_event(_, ev, ctx)
  if type(ev) ~= 'table' then
    return
  end
  local id = ctx.client_id
  if ev.type == 'turn_start' then
    state.turns[id] = ev.turn_id or ''
    status_changed()
  elseif ev.type == 'turn_end' then
    if ev.turn_id then
      state.ended[ev.turn_id] = true
    end
    state.turns[id] = nil
    status_changed()
  end
  transcript.event(ev)
end

-- Clients ------------------------------------------------------------------

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  if type(caps.experimental) ~= 'table' then
    caps.experimental = {}
  end
  caps.experimental.agentls = { saveDocument = state.config.save and true or false, question = true }
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
  local handlers = {
    ['agentls/event'] = on_event,
    ['agentls/saveDocument'] = on_save,
    ['window/showMessageRequest'] = on_ask,
    ['agentls/question'] = on_question,
    ['window/showMessage'] = on_show_message,
  }
  if not vim.lsp.handlers['window/showDocument'] then
    handlers['window/showDocument'] = on_show_document
  end
  return {
    name = 'agentls',
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = init_options(),
    capabilities = capabilities(),
    handlers = handlers,
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
        status_changed()
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
--- client id, or nil for buffers agentls does not manage.
function M.attach(buf)
  if not state.config then
    M.setup()
  end
  if buf == nil or buf == 0 then
    buf = vim.api.nvim_get_current_buf()
  end
  local path = file_path(buf)
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
  local root = find_root(path)
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
    notify_once('cmd', why, vim.log.levels.ERROR)
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

-- with_client runs fn(client) once the client is initialized.
local function with_client(id, fn)
  local client = vim.lsp.get_client_by_id(id)
  if not client then
    notify('agentls: the server is not running', vim.log.levels.ERROR)
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

-- current_client finds the client for a command: the current buffer's,
-- else the one used last, else the only one running.
local function current_client()
  local buf = vim.api.nvim_get_current_buf()
  local id = M.attach(buf)
  if id then
    return id, buf
  end
  if state.last_client and state.roots[state.last_client] then
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

local function command(id, name, args, bufnr, on_result)
  with_client(id, function(client)
    request(client, 'workspace/executeCommand', { command = name, arguments = { args } }, function(err, result)
      on_result(err, result)
    end, bufnr)
  end)
end

-- Selections ----------------------------------------------------------------

-- utf16 counts the UTF-16 code units of the first `bytes` bytes of line.
local function utf16(line, bytes)
  local units, i = 0, 1
  bytes = math.min(bytes, #line)
  while i <= bytes do
    local c = line:byte(i)
    local len = c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
    units = units + (len == 4 and 2 or 1)
    i = i + len
  end
  return units
end

local function char_len(line, col)
  local c = line:byte(col + 1)
  if not c then
    return 0
  end
  return c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
end

-- selection_range turns a command range (line1, line2, 1-based) into an
-- LSP range: the characters of a charwise visual selection when the
-- command was given one ('<,'> of a `v` selection), else whole lines.
local function selection_range(buf, line1, line2)
  local function line(n)
    return vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1] or ''
  end
  local s = vim.api.nvim_buf_get_mark(buf, '<')
  local e = vim.api.nvim_buf_get_mark(buf, '>')
  if vim.fn.visualmode() == 'v' and s[1] == line1 and e[1] == line2 then
    local last = line(line2)
    local end_byte = math.min(e[2] + char_len(last, math.min(e[2], #last)), #last)
    if vim.o.selection == 'exclusive' then
      end_byte = math.min(e[2], #last)
    end
    return {
      start = { line = line1 - 1, character = utf16(line(line1), s[2]) },
      ['end'] = { line = line2 - 1, character = utf16(last, end_byte) },
    }
  end
  local last = line(line2)
  return {
    start = { line = line1 - 1, character = 0 },
    ['end'] = { line = line2 - 1, character = utf16(last, #last) },
  }
end

-- Commands -----------------------------------------------------------------

--- ask starts a turn with prompt. opts.range = {line1, line2} (1-based)
--- adds the selection. Without a prompt it asks for one (vim.ui.input).
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
  local id, buf = current_client()
  if not id then
    notify('agentls: no agentls server for this buffer: open a file of your project first', vim.log.levels.ERROR)
    return
  end
  local args = { prompt = prompt }
  local where = ''
  if buf then
    args.uri = vim.uri_from_bufnr(buf)
    where = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':.')
    if opts.range then
      args.range = selection_range(buf, opts.range[1], opts.range[2])
      where = string.format('%s:%d-%d', where, args.range.start.line + 1, args.range['end'].line + 1)
    end
  end
  state.last_client = id
  state.turns[id] = state.turns[id] or ''
  status_changed()
  transcript.add({ 'you: ' .. prompt:gsub('\r?\n', ' ') .. (where ~= '' and ('  [' .. where .. ']') or '') })
  command(id, 'agentls.ask', args, buf, function(err, result)
    if err then
      if state.turns[id] == '' then
        state.turns[id] = nil
      end
      status_changed()
      transcript.add({ 'error: ' .. tostring(err.message) })
      notify('agentls: ' .. tostring(err.message), vim.log.levels.ERROR)
      return
    end
    local turn = result and result.turnId
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
    status_changed()
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
  command(id, 'agentls.cancel', args, nil, function(err, result)
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
  command(id, 'agentls.revertTurn', args, nil, function(err, result)
    if err then
      transcript.add({ 'error: revert: ' .. tostring(err.message) })
      notify('agentls: ' .. tostring(err.message), vim.log.levels.ERROR)
      return
    end
    result = result or {}
    local restored = {}
    for _, p in ipairs(result.restored or {}) do
      table.insert(restored, vim.fn.fnamemodify(p, ':.'))
    end
    local line = string.format('↶ reverted turn %s: %s', tostring(result.turnId),
      #restored > 0 and table.concat(restored, ', ') or 'nothing restored')
    for _, sk in ipairs(result.skipped or {}) do
      line = line .. string.format('; left alone %s (%s)', vim.fn.fnamemodify(tostring(sk.Path), ':.'), tostring(sk.Reason))
    end
    transcript.add({ line })
  end)
end

--- log opens the transcript buffer.
function M.log(mods)
  return transcript.open(mods)
end

--- stop shuts every agentls client down.
function M.stop()
  for id in pairs(state.roots) do
    vim.lsp.stop_client(id)
  end
end

-- attach_file_buffers attaches every file buffer that has no client yet.
local function attach_file_buffers()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if file_path(buf) then
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
    permissions = 'table', model = 'string', ask_timeout = 'number' }) do
    local v = opts[key]
    if v ~= nil and not types:find(type(v), 1, true) then
      error(string.format('agentls.setup: %s must be a %s, got %s', key, types:gsub(' ', ' or '), type(v)), 2)
    end
  end
  state.config = vim.tbl_extend('force', vim.deepcopy(defaults), opts)
  require('agentls.commands').define()
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
