-- agentls for Neovim: runs `agentls serve --stdio` through Neovim's
-- built-in LSP client, one client per project root, and adds :AgentAsk,
-- :AgentChat, :AgentCancel, :AgentRevert, :AgentLog, :AgentQuickfix, a
-- statusline, asks that never block and per-hunk review.
--
-- Works on Neovim 0.7.2 and later; newer APIs are feature-detected:
-- vim.lsp.start (0.10+, instead of vim.lsp.start_client), coroutine-based
-- server-request handlers (0.10+), client:request (0.11+). See :help
-- agentls.
local binary = require('agentls.binary')
local chat = require('agentls.chat')
local client = require('agentls.client')
local handlers = require('agentls.handlers')
local quickfix = require('agentls.quickfix')
local review = require('agentls.review')
local rpc = require('agentls.rpc')
local selection = require('agentls.selection')
local state = require('agentls.state')
local status = require('agentls.status')
local transcript = require('agentls.transcript')
local util = require('agentls.util')

local notify, has = util.notify, util.has
local options = require('agentls.options')

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

--- attach attaches the agentls client of the buffer's root to buffer buf
--- (0: current), starting the client when the root has none. It returns
--- the client id, or nil for buffers agentls does not manage.
M.attach = client.attach

-- Commands -----------------------------------------------------------------

-- target is where an ask goes: the client, the buffer giving the context,
-- the session (a chat's follow-up).
local function target(opts)
  if opts.chat then
    local id = client.running(opts.chat.client_id) and opts.chat.client_id or client.current()
    return id, nil, opts.chat.session
  end
  if client.running(opts.client_id) then
    return opts.client_id, opts.bufnr, state.sessions[opts.client_id]
  end
  -- The client's session: a resumed one (:AgentResume) goes on.
  local id, buf = client.current()
  return id, buf, id and state.sessions[id]
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
    chat.you(id, prompt, where, result.turnId)
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
  local id = client.current()
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
  local id = client.current()
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
  local id = client.current()
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
M.usage = status.usage

--- stop shuts every agentls client down.
function M.stop()
  for id in pairs(state.roots) do
    local c = vim.lsp.get_client_by_id(id)
    if c and has('0.11') then
      c:stop() -- vim.lsp.stop_client is deprecated there
    elseif c then
      vim.lsp.stop_client(id)
    end
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
  state.option_errors = options.check(opts)
  for _, e in ipairs(state.option_errors) do
    notify('agentls: ' .. e, vim.log.levels.ERROR)
  end
  state.config = vim.tbl_extend('force', vim.deepcopy(defaults), options.valid(opts))
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
  client.prune()
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

--- config returns the configuration: setup()'s, else the defaults (for
--- clients started by vim.lsp.enable('agentls') without setup()).
function M.config()
  if not state.config then
    state.config = vim.deepcopy(defaults)
  end
  return state.config
end

return M
