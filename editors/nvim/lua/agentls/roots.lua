-- The project root of a file: the client it gets is the root's.
local state = require('agentls.state')
local util = require('agentls.util')

local uv = vim.uv or vim.loop

local M = {}

local normalize = util.normalize

-- under tells whether path is dir or below it.
function M.under(path, dir)
  return path == dir or path:sub(1, #dir + 1) == (dir == '/' and '/' or dir .. '/')
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

-- find returns the project root of fname (absolute), or nil (do not
-- attach): the root_dir option, else the nearest ancestor holding one of
-- root_markers, else the current directory when fname is below it (and it
-- is neither / nor $HOME), else fname's directory.
function M.find(fname)
  local cfg = state.config
  local rd = cfg.root_dir
  if type(rd) == 'function' then
    local r = rd(fname)
    return r and normalize(r) or nil
  elseif type(rd) == 'string' then
    rd = normalize(rd)
    return M.under(fname, rd) and rd or nil
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
  if M.under(fname, cwd) and cwd ~= '/' and cwd ~= home then
    return cwd
  end
  return normalize(vim.fn.fnamemodify(fname, ':h'))
end

return M
