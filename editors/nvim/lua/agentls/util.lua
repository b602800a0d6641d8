-- Small helpers every module uses: messages, version checks, line splits,
-- paths.
local M = {}

-- has tells whether Neovim is version ('0.10') or later.
function M.has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

-- notify shows msg with vim.notify (INFO unless level says otherwise).
function M.notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'agentls' })
end

-- notify_once shows a message once per key (until state.warned[key] is
-- cleared).
function M.notify_once(key, msg, level)
  local warned = require('agentls.state').warned
  if not warned[key] then
    warned[key] = true
    M.notify(msg, level or vim.log.levels.WARN)
  end
end

-- split turns text into lines (\n, \r\n or \r), without trailing empty
-- lines.
function M.split(s)
  local out = {}
  s = tostring(s or ''):gsub('\r\n', '\n'):gsub('\r', '\n')
  for l in (s .. '\n'):gmatch('(.-)\n') do
    table.insert(out, l)
  end
  while #out > 0 and out[#out] == '' do
    table.remove(out)
  end
  return out
end

-- normalize makes path absolute, without a trailing slash.
function M.normalize(path)
  path = vim.fn.fnamemodify(path, ':p')
  if #path > 1 then
    path = path:gsub('/+$', '')
  end
  return path
end

-- list is what keep(x) returns for each element x of v, a list the
-- server sent (anything else: none), skipping nils.
function M.list(v, keep)
  local out = {}
  for _, x in ipairs(type(v) == 'table' and v or {}) do
    local kept = keep(x)
    if kept ~= nil then
      table.insert(out, kept)
    end
  end
  return out
end

-- choices is an ask's or a review's choices: the {answer, title} tables.
function M.choices(v)
  return M.list(v, function(c)
    if type(c) == 'table' and type(c.answer) == 'string' and type(c.title) == 'string' then
      return c
    end
  end)
end

-- strings is v's elements as strings (an ask's warnings).
function M.strings(v)
  return M.list(v, tostring)
end

-- denull turns JSON null (vim.NIL, which 0.10+ decode it as inside
-- tables too) into nil, in place and all the way down, so the server's
-- data reads like Lua tables: `x or {}` and ipairs work on every version.
function M.denull(v)
  if v == vim.NIL then
    return nil
  end
  if type(v) == 'table' then
    for k, x in pairs(v) do
      if x == vim.NIL then
        v[k] = nil
      else
        M.denull(x)
      end
    end
  end
  return v
end

-- denulled wraps an LSP handler so it gets its params through denull.
function M.denulled(fn)
  return function(err, params, ctx, config)
    return fn(err, M.denull(params), ctx, config)
  end
end

-- present: neither nil, JSON null nor ''.
function M.present(v)
  return v ~= nil and v ~= vim.NIL and v ~= ''
end

-- event fires User <name> for scripts (and tests), when anyone listens.
function M.event(name)
  if vim.fn.exists('#User#' .. name) == 1 then
    vim.cmd('doautocmd <nomodeline> User ' .. name)
  end
end

-- reword puts a server message in Neovim's words: the commands to type
-- rather than the protocol's.
function M.reword(msg)
  msg = tostring(msg or '')
  msg = msg:gsub('agentls%.cancel', ':AgentCancel'):gsub('agentls%.revertTurn', ':AgentRevert')
  return msg
end

-- scratch makes a buffer that is no file: no swap, not listed, wiped when
-- hidden unless keep, and never attached to agentls (attach skips
-- buftype ~= '' and URL names) or, through lspconfig, to other servers.
function M.scratch(name, filetype, keep)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = keep and 'hide' or 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].buflisted = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  if filetype then
    -- A filetype plugin may fail (0.12's markdown one asserts its
    -- tree-sitter parser is installed): the buffer works without it.
    pcall(function()
      vim.bo[buf].filetype = filetype
    end)
  end
  return buf
end

-- set_lines replaces a read-only buffer's text.
function M.set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

-- settle_ms is how long the keys of a window of the plugin's that shows a
-- question do nothing once it has the focus: typed for something else,
-- they must not answer a question that just appeared.
M.settle_ms = 300

-- settle starts t's settling time (t.ready_at) now.
function M.settle(t)
  t.ready_at = vim.loop.hrtime() + M.settle_ms * 1e6
end

-- settled tells whether t's settling time is over.
function M.settled(t)
  return vim.loop.hrtime() >= (t.ready_at or 0)
end

-- map sets buffer-local Normal-mode keys: {lhs = {fn, desc}}; with guard
-- (a table settle() was called on) a key does nothing until it settled.
function M.map(buf, keys, guard)
  for lhs, k in pairs(keys) do
    local fn = k[1]
    if guard then
      fn = function()
        if M.settled(guard) then
          k[1]()
        end
      end
    end
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'agentls: ' .. k[2] })
  end
end

-- question_float shows buf (its lines: text) in a float at the bottom,
-- for a question: it takes the focus at once only in Normal mode, else
-- when Insert mode or the command line ends (a question comes at any time:
-- what you were typing never answers it). on_focus() runs each time it
-- gets the focus, while open() is true. Returns the window.
function M.question_float(buf, text, min_width, on_focus, open)
  local w = min_width
  for _, l in ipairs(text) do
    w = math.max(w, vim.fn.strdisplaywidth(l))
  end
  local width = math.min(w + 2, math.max(min_width, vim.o.columns - 6))
  local height = math.min(#text, math.max(3, vim.o.lines - 6))
  local normal = vim.api.nvim_get_mode().mode == 'n'
  local win = vim.api.nvim_open_win(buf, normal, {
    relative = 'editor',
    row = math.max(0, vim.o.lines - height - 4),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
  })
  vim.wo[win].wrap = true
  on_focus()
  if not normal then
    vim.api.nvim_create_autocmd({ 'InsertLeave', 'CmdlineLeave' }, { once = true, callback = function()
      vim.schedule(function()
        if open() and vim.api.nvim_win_is_valid(win) then
          vim.api.nvim_set_current_win(win)
          on_focus()
        end
      end)
    end })
  end
  return win
end

-- leave_float goes to a normal window when the current one floats (a
-- float cannot be split).
function M.leave_float()
  if vim.api.nvim_win_get_config(0).relative == '' then
    return
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(w).relative == '' then
      vim.api.nvim_set_current_win(w)
      return
    end
  end
end

-- close_win closes a window if it is still open (never the last one).
function M.close_win(win)
  if win and vim.api.nvim_win_is_valid(win) then
    if #vim.api.nvim_list_wins() > 1 then
      pcall(vim.api.nvim_win_close, win, true)
    else
      pcall(vim.api.nvim_win_call, win, function()
        vim.cmd('enew')
      end)
    end
  end
end

return M
