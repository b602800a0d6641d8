-- Waiting for the person inside a server-request handler, whose return
-- value is the answer. Neovim 0.10+ calls handlers in a coroutine: the
-- wait yields and the editor runs on. Neovim 0.7-0.9 call them
-- synchronously: the wait runs the event loop (vim.wait), which reads no
-- typed keys, so a window of the plugin's own (the review) gets them
-- through pump().
local state = require('agentls.state')
local status = require('agentls.status')
local util = require('agentls.util')

local M = {}

-- run runs one typed key in window win: as :normal, so that window's
-- mappings work; ':' reads a command line with input() and runs it.
local function run(c, win)
  if win and vim.api.nvim_win_is_valid(win) and vim.api.nvim_get_current_win() ~= win then
    vim.api.nvim_set_current_win(win)
  end
  local key = type(c) == 'number' and vim.fn.nr2char(c) or c
  if key == ':' then
    local line = vim.fn.input(':')
    if line:match('%S') then
      local ran, err = pcall(vim.cmd, line)
      if not ran then
        util.notify(tostring(err), vim.log.levels.ERROR)
      end
    end
  else
    pcall(vim.cmd, 'normal ' .. key)
  end
  pcall(vim.cmd, 'redraw')
end

-- pump runs the keys typed since the last call in window win (the
-- plugin's: the wait is modal, a key never edits your buffers), one at a
-- time (see run: :AgentCancel, :q work; only single-key mappings can, which
-- is why the review has them). It stops once stop() is true: the keys
-- after the answer are the editor's. Keys read before hrtime `from` are
-- dropped: typed for something else, they must not answer a question that
-- just appeared.
function M.pump(stop, win, from)
  while not stop() do
    local ok, c = pcall(vim.fn.getchar, 0)
    if not ok or c == 0 or c == '' then
      return
    end
    if vim.loop.hrtime() >= (from or 0) then
      run(c, win)
    end
  end
end

--- sync tells whether the running handler must return its answer (Neovim
--- 0.7-0.9) rather than yield for it (0.10+: a coroutine).
function M.sync()
  local co, is_main = coroutine.running()
  return not co or is_main == true
end

--- await calls ui(callback) — vim.ui.select, vim.ui.input or a window of
--- the plugin's — and returns what the callback got, or nil when nobody
--- answered within ask_timeout. `what` names the question in messages;
--- opts.keys, a function returning the ui's window (one of ours), pumps
--- typed keys into it on 0.7-0.9;
--- opts.event names a User event to fire once the wait begins.
--- The status shows "waiting for you" meanwhile.
function M.await(ui, what, opts)
  opts = opts or {}
  state.asking = state.asking + 1
  status.changed()
  if opts.event then
    util.event(opts.event)
  end
  local answer
  local co = coroutine.running()
  if not M.sync() then
    local over = false
    local function resume(item)
      if over then
        return -- answered after ask_timeout, or twice
      end
      over = true
      -- The built-in pickers call back before yield: resume later.
      vim.schedule(function()
        coroutine.resume(co, item)
      end)
    end
    local called, err = pcall(ui, resume)
    if called then
      local timer = vim.defer_fn(function()
        if not over then
          util.notify('agentls: no answer to "' .. what .. '" within ask_timeout', vim.log.levels.WARN)
          resume(nil)
        end
      end, state.config.ask_timeout)
      answer = coroutine.yield()
      if not timer:is_closing() then
        timer:stop()
        timer:close()
      end
    else
      util.notify('agentls: the prompt failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
  else
    -- The built-in vim.ui.select (inputlist) calls back at once; for the
    -- others, run the event loop until the callback or ask_timeout.
    local done = false
    pcall(vim.cmd, 'redraw')
    local called, err = pcall(ui, function(item)
      if not done then
        done, answer = true, item
      end
    end)
    if not called then
      done = true
      util.notify('agentls: the prompt failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
    if not done then
      local from = vim.loop.hrtime() + util.settle_ms * 1e6
      vim.wait(state.config.ask_timeout, function()
        if opts.keys then
          M.pump(function()
            return done
          end, opts.keys(), from)
        end
        return done
      end, 20)
      if not done then
        done = true
        util.notify('agentls: no answer to "' .. what .. '" within ask_timeout', vim.log.levels.WARN)
      end
    end
  end
  state.asking = state.asking - 1
  status.changed()
  return answer
end

return M
