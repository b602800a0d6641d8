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
    vim.bo[buf].filetype = filetype
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

-- map sets buffer-local Normal-mode keys: {lhs = {fn, desc}}.
function M.map(buf, keys)
  for lhs, k in pairs(keys) do
    vim.keymap.set('n', lhs, k[1], { buffer = buf, nowait = true, silent = true, desc = 'agentls: ' .. k[2] })
  end
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
