-- :checkhealth agentls
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error_ = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  start('agentls')
  if vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim 0.7 or later')
  else
    error_('Neovim 0.7 or later is needed')
    return
  end

  local agentls = require('agentls')
  local cfg = agentls._config()
  if not cfg then
    warn("setup() has not been called: call require('agentls').setup({...}) in your config",
      { 'The commands call it with the defaults on first use.' })
  end
  local bin, from
  if cfg and cfg.cmd then
    bin, from = cfg.cmd[1], 'cmd in setup()'
  else
    local binary = require('agentls.binary')
    local found, looked = binary.find()
    if found then
      bin, from = found, looked == 'PATH' and 'on $PATH' or ('from ' .. looked)
    else
      error_('no agentls binary; looked in ' .. table.concat(looked, ', '), {
        ':AgentInstall builds it with go (from this checkout of agentls, or go install)',
        'or put a release binary on $PATH (see :help agentls-install)',
        "or set cmd = { '/path/to/agentls', 'serve', '--stdio' } in setup()",
      })
    end
  end
  if bin and vim.fn.executable(bin) == 1 then
    local out = vim.fn.system({ bin, 'version' })
    if vim.v.shell_error == 0 then
      ok(string.format('%s (%s): %s', vim.fn.exepath(bin), from, vim.trim(out)))
    else
      warn(string.format('%s version failed: %s', bin, vim.trim(out)))
    end
  elseif bin then
    error_(string.format('%q (%s) is not executable', bin, from), {
      "set cmd = { '/path/to/agentls', 'serve', '--stdio' } in setup(), or leave cmd out to use :AgentInstall's, mason's or $PATH's agentls",
    })
  end

  local model = cfg and cfg.model
  if model then
    ok('model (setup): ' .. model)
  elseif vim.env.AGENTLS_MODEL and vim.env.AGENTLS_MODEL ~= '' then
    ok('model ($AGENTLS_MODEL): ' .. vim.env.AGENTLS_MODEL)
  else
    local dir = vim.env.XDG_CONFIG_HOME
    if not dir or dir == '' then
      dir = vim.fn.expand('~/.config')
    end
    local file = dir .. '/agentls/config.json'
    local f = io.open(file, 'r')
    local text = f and f:read('*a') or ''
    if f then
      f:close()
    end
    if text:find('"model"', 1, true) then
      ok('model: set in ' .. file)
    else
      warn('no model configured: asks will fail', {
        "setup({ model = 'openai:gpt-4.1' }), $AGENTLS_MODEL, or \"model\" in " .. file,
      })
    end
  end

  -- Where asks show (ask_ui, see :help agentls-asks).
  local ask_ui = cfg and cfg.ask_ui or 'auto'
  local chooser = require('agentls.chooser')
  if ask_ui == 'float' or (ask_ui ~= 'select' and chooser.builtin()) then
    info("asks: in the plugin's float (vim.ui.select is Neovim's own, which would hold every key)")
  else
    info('asks: in your vim.ui.select (' .. tostring(debug.getinfo(vim.ui.select, 'S').short_src) .. ')')
  end

  local clients = agentls.clients()
  if #clients == 0 then
    info('no agentls client running (open a file of your project)')
  end
  for _, c in ipairs(clients) do
    info(string.format('client %d on %s (%s), status: %s', c.id, c.root,
      c.ready and 'initialized' or 'starting', agentls.status()))
  end
end

return M
