-- Which agentls binary the plugin runs when setup() has no `cmd`, and
-- :AgentInstall, which builds one with go. See :help agentls-binary.
--
-- The first executable of:
--   1. stdpath('data')/agentls/bin/agentls  what :AgentInstall built
--   2. stdpath('data')/mason/bin/agentls    mason.nvim's
--   3. agentls on $PATH
-- (agentls.exe on Windows). The most specific first: a binary you built or
-- installed for Neovim wins over one on $PATH, which may be older.
local M = {}

local uv = vim.uv or vim.loop
local windows = vim.fn.has('win32') == 1
local exe = windows and '.exe' or ''

M.module = 'github.com/agentls/agentls'

--- dir is where :AgentInstall puts agentls.
function M.dir()
  return vim.fn.stdpath('data') .. '/agentls/bin'
end

-- The places to look, in order: {path, source}.
local function places()
  return {
    { M.dir() .. '/agentls' .. exe, ':AgentInstall' },
    -- mason.nvim's bin holds links (agentls) or, on Windows, agentls.cmd.
    { vim.fn.stdpath('data') .. '/mason/bin/agentls', 'mason' },
    { 'agentls', 'PATH' },
  }
end

--- find returns the agentls to run and where it was found (':AgentInstall',
--- 'mason' or 'PATH'), or nil and the places looked in.
function M.find()
  local looked = {}
  for _, p in ipairs(places()) do
    if vim.fn.executable(p[1]) == 1 then
      return vim.fn.exepath(p[1]), p[2]
    end
    table.insert(looked, p[2] == 'PATH' and '$PATH' or vim.fn.fnamemodify(p[1], ':~'))
  end
  return nil, looked
end

--- checkout returns the root of the agentls repository this plugin is a
--- part of (editors/nvim of a clone), or nil.
function M.checkout()
  local here = debug.getinfo(1, 'S').source:sub(2) -- <root>/editors/nvim/lua/agentls/binary.lua
  local root = vim.fn.fnamemodify(here, ':p:h:h:h:h:h')
  local f = io.open(root .. '/go.mod', 'r')
  if not f then
    return nil
  end
  local first = f:read('*l') or ''
  f:close()
  if vim.trim(first) ~= 'module ' .. M.module or vim.fn.filereadable(root .. '/cmd/agentls/main.go') ~= 1 then
    return nil
  end
  return root
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'agentls' })
end

local installing = false

--- install builds agentls into dir() with go, without blocking: `go build`
--- from the plugin's own checkout of the agentls repository, else (or when
--- a version is given) `go install github.com/agentls/agentls/cmd/agentls@version`
--- (default latest). on_done(path) or on_done(nil, error) is called when
--- it ends; by default it tells you with vim.notify.
function M.install(version, on_done)
  on_done = on_done or function(path, err)
    if path then
      notify('agentls: installed ' .. path)
    else
      notify('agentls: ' .. err, vim.log.levels.ERROR)
    end
  end
  if version == '' then
    version = nil
  end
  if installing then
    on_done(nil, ':AgentInstall is already running')
    return
  end
  if vim.fn.executable('go') ~= 1 then
    on_done(nil, ':AgentInstall builds agentls with go, which is not on $PATH: install Go (https://go.dev/dl), '
      .. 'or get agentls another way (:help agentls-install)')
    return
  end
  local dir = M.dir()
  -- Built into a folder of its own, then moved into place: a running
  -- agentls is never overwritten half-way.
  local tmp = dir .. '/.install'
  vim.fn.delete(tmp, 'rf')
  vim.fn.mkdir(tmp, 'p')
  local root = not version and M.checkout() or nil
  local cmd, opts, what
  if root then
    cmd = { 'go', 'build', '-o', tmp .. '/agentls' .. exe, './cmd/agentls' }
    opts = { cwd = root }
    what = 'go build ./cmd/agentls in ' .. vim.fn.fnamemodify(root, ':~')
  else
    local target = M.module .. '/cmd/agentls@' .. (version or 'latest')
    cmd = { 'go', 'install', target }
    opts = { env = { GOBIN = tmp } }
    what = 'go install ' .. target
  end
  local output = {}
  local function collect(_, data)
    for _, line in ipairs(data or {}) do
      if line ~= '' then
        table.insert(output, line)
      end
    end
  end
  opts.stdout_buffered, opts.stderr_buffered = true, true
  opts.on_stdout, opts.on_stderr = collect, collect
  opts.on_exit = function(_, code)
    installing = false
    local built = tmp .. '/agentls' .. exe
    local dest = dir .. '/agentls' .. exe
    if code ~= 0 or vim.fn.executable(built) ~= 1 then
      vim.fn.delete(tmp, 'rf')
      on_done(nil, string.format('%s failed (exit %d):\n%s', what, code, table.concat(output, '\n')))
      return
    end
    local ok, err = uv.fs_rename(built, dest)
    vim.fn.delete(tmp, 'rf')
    if not ok then
      on_done(nil, string.format('moving the new agentls to %s: %s', dest, err))
      return
    end
    on_done(dest)
  end
  installing = true
  notify('agentls: ' .. what .. ' …')
  local job = vim.fn.jobstart(cmd, opts)
  if job <= 0 then
    installing = false
    on_done(nil, 'could not run ' .. table.concat(cmd, ' '))
  end
end

return M
