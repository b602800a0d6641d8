-- A small harness for driving agentls from headless Neovim (0.7.2, 0.10,
-- 0.12: every scenario runs on each).
--
-- A scenario script loads it with
--
--   local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
--   h.run(function(rec) ... end)
--
-- and is run as `nvim --headless -u NONE -i NONE -n -c 'luafile scenario.lua'`.
-- Parameters come from environment variables (AGENTLS_E2E_*). Everything
-- the server sends is recorded into `rec`, which h.run writes as JSON to
-- $AGENTLS_E2E_RESULT before it quits Neovim: `qall!` on success, `cquit`
-- with rec.error set when the scenario raised an error.
--
-- It uses 0.7.2's APIs (vim.lsp.start_client + vim.lsp.buf_attach_client,
-- handlers looked up by method name in the client's `handlers` table,
-- vim.wait for polling the event loop), and newer ones where 0.7's are gone
-- (server_pid, health, clients_of).

local M = {}

-- env returns the environment variable `name` or raises an error naming it.
function M.env(name)
  local v = vim.env[name]
  if v == nil or v == '' then
    error('environment variable ' .. name .. ' is not set', 2)
  end
  return v
end

-- step records a milestone, so a failure shows how far the scenario got.
function M.step(rec, what)
  table.insert(rec.steps, string.format('%.0fms %s', (vim.loop.hrtime() - rec.t0) / 1e6, what))
end

-- wait polls the event loop until cond() is true; it raises an error
-- naming `what` after timeout_ms.
function M.wait(rec, timeout_ms, cond, what)
  local ok
  if rec.co and coroutine.running() == rec.co then
    -- A run_co scenario: poll from a timer, so Neovim's main loop runs
    -- meanwhile and reads typed keys as in a person's session.
    local deadline = vim.loop.hrtime() + timeout_ms * 1e6
    local function poll()
      if cond() then
        rec.resume(true)
      elseif vim.loop.hrtime() > deadline then
        rec.resume(false)
      else
        vim.defer_fn(poll, 10)
      end
    end
    vim.defer_fn(poll, 0)
    ok = coroutine.yield()
  else
    ok = vim.wait(timeout_ms, cond, 10)
  end
  if not ok then
    error(string.format('timed out after %d ms waiting for %s', timeout_ms, what), 2)
  end
  M.step(rec, what)
end

-- new_record is the table every handler writes into.
local function new_record()
  return {
    t0 = vim.loop.hrtime(),
    steps = {},
    events = {},   -- agentls/event params, in arrival order
    progress = {}, -- $/progress params
    created = {},  -- window/workDoneProgress/create tokens
    shows = {},    -- window/showMessage params
    logs = {},     -- window/logMessage params
    asks = {},     -- window/showMessageRequest params
    answers = {},  -- the action title the harness answered each ask with
    applies = {},  -- workspace/applyEdit: {params=…, result=…} (Neovim's answer)
  }
end

-- wrap returns a handler that records params with `record` and then
-- calls Neovim's default handler for the method (if any), returning its
-- result so requests are still answered by the default.
local function wrap(method, record)
  return function(err, result, ctx, config)
    record(result, ctx)
    local default = vim.lsp.handlers[method]
    if default then
      return default(err, result, ctx, config)
    end
  end
end

-- start starts agentls with `opts.cmd` on `opts.root_dir` and records what
-- it sends into rec. It returns the client id.
--
-- opts: cmd (list), root_dir (string), init_options (table or nil).
function M.start(rec, opts)
  local handlers = {
    ['agentls/event'] = function(_, params)
      table.insert(rec.events, params)
      if params.type == 'turn_end' then
        rec.turn_ends = (rec.turn_ends or 0) + 1
      end
    end,
    ['$/progress'] = wrap('$/progress', function(params)
      table.insert(rec.progress, params)
    end),
    ['window/workDoneProgress/create'] = wrap('window/workDoneProgress/create', function(params)
      table.insert(rec.created, params.token)
    end),
    ['window/showMessage'] = wrap('window/showMessage', function(params)
      table.insert(rec.shows, params)
    end),
    ['window/logMessage'] = wrap('window/logMessage', function(params)
      table.insert(rec.logs, params)
    end),
    -- Neovim's default handler applies the edit to the buffers; the
    -- answer it gives the server is recorded with the request.
    ['workspace/applyEdit'] = function(err, params, ctx, config)
      local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
      table.insert(rec.applies, { params = params, result = result })
      return result
    end,
    -- The default handler calls inputlist(), which blocks a headless
    -- Neovim. $AGENTLS_E2E_ANSWER is a comma-separated list of action
    -- titles: the n-th ask is answered with the n-th title, and the last
    -- title answers every later ask (so a single title answers them all).
    -- Unset: dismiss (null). rec.answers[n] is the title given ('' for
    -- dismissed).
    ['window/showMessageRequest'] = function(_, params)
      table.insert(rec.asks, params)
      local answers = vim.split(vim.env.AGENTLS_E2E_ANSWER or '', ',', { plain = true })
      local answer = answers[math.min(#rec.asks, #answers)]
      table.insert(rec.answers, answer)
      if answer ~= '' then
        return { title = answer }
      end
      return vim.NIL
    end,
  }
  local client_id = vim.lsp.start_client({
    name = 'agentls',
    cmd = opts.cmd,
    root_dir = opts.root_dir,
    init_options = opts.init_options,
    handlers = handlers,
    on_init = function(client, result)
      rec.initialized = true
      rec.server_pid = M.server_pid(client)
      local caps = result.capabilities or {}
      rec.commands = (caps.executeCommandProvider or {}).commands
      rec.server_info = result.serverInfo
    end,
    on_exit = function(code, signal)
      rec.exit = { code = code, signal = signal }
    end,
  })
  if not client_id then
    error('vim.lsp.start_client failed for ' .. table.concat(opts.cmd, ' '))
  end
  rec.client_id = client_id
  M.step(rec, 'client started')
  return client_id
end

-- wait_initialized waits for the initialize response; it fails at once
-- if the server exits first.
function M.wait_initialized(rec, timeout_ms)
  M.wait(rec, timeout_ms, function() return rec.initialized or rec.exit ~= nil end, 'initialize')
  if not rec.initialized then
    error(string.format('server exited before initialize (code %s, signal %s)',
      tostring(rec.exit.code), tostring(rec.exit.signal)), 2)
  end
end

-- open edits `path` and attaches the client to its buffer; it returns the
-- buffer number.
function M.open(rec, client_id, path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.lsp.buf_attach_client(buf, client_id) then
    error('buf_attach_client failed for ' .. path)
  end
  M.step(rec, 'opened ' .. path .. ' (filetype ' .. vim.bo[buf].filetype .. ')')
  return buf
end

-- execute runs workspace/executeCommand through the buffer's client and
-- returns {result=…} or {error={code=…, message=…}}.
function M.execute(rec, buf, client_id, command, args, timeout_ms)
  local results, err = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand',
    { command = command, arguments = { args } }, timeout_ms)
  if err then
    error(string.format('%s: %s', command, tostring(err)), 2)
  end
  local r = (results or {})[client_id]
  if r == nil then
    error(command .. ': no response from client ' .. client_id, 2)
  end
  local out = { result = r.result }
  if r.error then
    out.error = { code = r.error.code, message = r.error.message }
  end
  M.step(rec, command .. (out.error and (' -> error: ' .. tostring(out.error.message)) or ' -> ok'))
  return out
end

-- stop shuts the client down properly (shutdown request, exit
-- notification) and waits up to timeout_ms for its process to exit. A
-- server still running then is recorded (rec.exit_timeout_ms) and sent
-- SIGTERM, as a second :LspStop would, and waited for 3 s more; the
-- scenario goes on either way, so the test reports it with everything else.
function M.stop(rec, client_id, timeout_ms)
  vim.lsp.stop_client(client_id)
  if vim.wait(timeout_ms, function() return rec.exit ~= nil end, 10) then
    M.step(rec, 'server exit')
    return
  end
  rec.exit_timeout_ms = timeout_ms
  M.step(rec, string.format('server still running %d ms after shutdown and exit; sending SIGTERM', timeout_ms))
  vim.lsp.stop_client(client_id, true)
  if vim.wait(3000, function() return rec.exit ~= nil end, 10) then
    M.step(rec, 'server exit after SIGTERM')
  else
    M.step(rec, 'server still running 3000 ms after SIGTERM')
  end
end

-- The plugin scenarios' shared steps (require('agentls') is loaded by
-- plugin_init.lua).

-- edit_ready edits path (default: $AGENTLS_E2E_ROOT/$AGENTLS_E2E_FILE) and
-- waits until the plugin's one client is initialized; it records the
-- server's pid and returns the buffer and the client.
function M.edit_ready(rec, path)
  local agentls = require('agentls')
  vim.cmd('edit ' .. vim.fn.fnameescape(path or (M.env('AGENTLS_E2E_ROOT') .. '/' .. M.env('AGENTLS_E2E_FILE'))))
  M.wait(rec, 10000, function()
    local c = agentls.clients()
    return #c == 1 and c[1].ready
  end, 'client initialized')
  local client = vim.lsp.get_client_by_id(agentls.clients()[1].id)
  rec.server_pid = M.server_pid(client)
  return vim.api.nvim_get_current_buf(), client
end

-- stop_plugin stops the plugin's clients and waits for them to exit.
function M.stop_plugin(rec)
  local agentls = require('agentls')
  agentls.stop()
  M.wait(rec, 5000, function()
    return #agentls.clients() == 0
  end, 'server exit')
end

-- record_messages records every vim.notify message in rec.messages.
function M.record_messages(rec)
  rec.messages = {}
  local notify = vim.notify
  vim.notify = function(msg, level, opts)
    table.insert(rec.messages, tostring(msg))
    return notify(msg, level, opts)
  end
end

-- server_pid is the pid of a client's server: client.rpc.pid up to 0.9,
-- else the agentls process among Neovim's children (0.10+ keep the
-- process handle private).
function M.server_pid(client)
  if client.rpc and type(client.rpc.pid) == 'number' then
    return client.rpc.pid
  end
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local p = vim.api.nvim_get_proc(pid)
    if p and tostring(p.name):match('agentls') then
      return pid
    end
  end
end

-- clients_of counts the clients attached to buf (buf_get_clients is
-- gone in 0.12).
function M.clients_of(buf)
  if vim.lsp.get_clients then
    return #vim.lsp.get_clients({ bufnr = buf })
  end
  return #vim.tbl_keys(vim.lsp.buf_get_clients(buf))
end

-- health runs :checkhealth NAME and returns its lines in 0.7's form
-- ("OK: …", "WARNING: …", "ERROR: …"; 0.10+ write "- OK …").
function M.health(name)
  vim.cmd('checkhealth ' .. name)
  local out = {}
  for _, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    l = l:gsub('^%s*%- (OK) ', '%1: '):gsub('^%s*%- (WARNING) ', '%1: '):gsub('^%s*%- (ERROR) ', '%1: ')
    l = l:gsub('^%s*%- ⚠️ (WARNING) ', '%1: '):gsub('^%s*%- ❌ (ERROR) ', '%1: '):gsub('^%s*%- ✅ (OK) ', '%1: ')
    table.insert(out, l)
  end
  return out
end

-- text is a buffer's lines joined by "\n"; disk a file's bytes (nil: no
-- file).
function M.text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

function M.disk(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

-- write stores rec as JSON at path.
local function write(path, rec)
  local f = assert(io.open(path, 'w'))
  f:write(vim.fn.json_encode(rec))
  f:close()
end

-- finish writes rec to $AGENTLS_E2E_RESULT and quits Neovim: exit 0
-- when err is nil, 1 with rec.error = err otherwise.
local function finish(rec, err)
  rec.t0, rec.co, rec.resume = nil, nil, nil
  rec.error = err and tostring(err) or nil
  local wok, werr = pcall(write, M.env('AGENTLS_E2E_RESULT'), rec)
  if not wok then
    io.stderr:write('harness: cannot write result: ' .. tostring(werr) .. '\n')
    vim.cmd('cquit 2')
  end
  if err then
    io.stderr:write('harness: scenario failed: ' .. tostring(err) .. '\n')
    vim.cmd('cquit 1')
  end
  vim.cmd('qall!')
end

-- run_async runs scenario(rec, done) and returns to Neovim's main loop,
-- where typed keys are read as in a person's session; the scenario ends by
-- calling done() (or done(err)) from a callback, or fails after
-- timeout_ms.
function M.run_async(scenario, timeout_ms)
  local rec = new_record()
  vim.cmd('filetype on')
  local over = false
  local function done(err)
    if not over then
      over = true
      finish(rec, err)
    end
  end
  vim.defer_fn(function()
    done(string.format('timed out after %d ms; last step: %s', timeout_ms, tostring(rec.steps[#rec.steps])))
  end, timeout_ms)
  local ok, err = xpcall(scenario, debug.traceback, rec, done)
  if not ok then
    done(err)
  end
end

-- run_co runs scenario(rec) in a coroutine whose waits (M.wait) return
-- to Neovim's main loop, so keys typed meanwhile (nvim_input, nvim
-- --remote-send) are read as in a person's session, on every version:
-- 0.10+ answer the server's requests in a coroutine and read no keys
-- inside a vim.wait.
function M.run_co(scenario, timeout_ms)
  M.run_async(function(rec, done)
    rec.co = coroutine.create(function()
      scenario(rec)
    end)
    function rec.resume(...)
      local ok, err = coroutine.resume(rec.co, ...)
      if not ok then
        done(debug.traceback(rec.co, err))
      elseif coroutine.status(rec.co) == 'dead' then
        rec.co, rec.resume = nil, nil
        done()
      end
    end
    rec.resume()
  end, timeout_ms)
end

-- run runs scenario(rec) with a fresh record, writes the record to
-- $AGENTLS_E2E_RESULT and quits Neovim: exit 0 on success, 1 with
-- rec.error (message and traceback) on an error.
function M.run(scenario)
  local rec = new_record()
  local result = M.env('AGENTLS_E2E_RESULT')
  -- A real user config has filetype detection on, so didOpen carries
  -- languageId "go" rather than "".
  vim.cmd('filetype on')
  -- AGENTLS_E2E_LSP_LOG=trace logs every message to stdpath('cache')/lsp.log.
  if vim.env.AGENTLS_E2E_LSP_LOG and vim.env.AGENTLS_E2E_LSP_LOG ~= '' then
    vim.lsp.set_log_level(vim.env.AGENTLS_E2E_LSP_LOG)
  end
  local ok, err = xpcall(scenario, debug.traceback, rec)
  rec.t0 = nil
  if not ok then
    rec.error = tostring(err)
  end
  local wok, werr = pcall(write, result, rec)
  if not wok then
    io.stderr:write('harness: cannot write result: ' .. tostring(werr) .. '\n')
    vim.cmd('cquit 2')
  end
  if ok then
    vim.cmd('qall!')
  else
    io.stderr:write('harness: scenario failed: ' .. tostring(err) .. '\n')
    vim.cmd('cquit 1')
  end
end

return M
