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
      M.sandbox(bin)
    else
      warn(string.format('%s version failed: %s', bin, vim.trim(out)))
    end
  elseif bin then
    error_(string.format('%q (%s) is not executable', bin, from), {
      "set cmd = { '/path/to/agentls', 'serve', '--stdio' } in setup(), or leave cmd out to use :AgentInstall's, mason's or $PATH's agentls",
    })
  end

  local state = require('agentls.state')
  if #(state.option_errors or {}) == 0 then
    ok('setup() options: all known')
  end
  for _, e in ipairs(state.option_errors or {}) do
    error_(e, { 'fix it in your setup({...}) call; the other options apply' })
  end
  local file = M.config_file()
  local problem = M.config_problem(file)
  if problem then
    error_(problem, { 'fix ' .. file .. ': until it loads, none of its settings (model, providers, permissions) apply' })
  end

  local model = cfg and cfg.model
  if model then
    ok('model (setup): ' .. model)
  elseif vim.env.AGENTLS_MODEL and vim.env.AGENTLS_MODEL ~= '' then
    ok('model ($AGENTLS_MODEL): ' .. vim.env.AGENTLS_MODEL)
  else
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

-- config_file is the path of agentls's user config file.
function M.config_file()
  local dir = vim.env.XDG_CONFIG_HOME
  if not dir or dir == '' then
    dir = vim.fn.expand('~/.config')
  end
  return dir .. '/agentls/config.json'
end

-- config_problem says why the config file does not load: what a running
-- server reported (any error, such as an unknown key), else whether it
-- is JSON at all. nil when it loads or there is none.
function M.config_problem(file)
  local reported = require('agentls.state').config_problem
  if reported then
    return reported
  end
  local f = io.open(file, 'r')
  if not f then
    return nil
  end
  local text = f:read('*a')
  f:close()
  local okj, err = pcall(vim.fn.json_decode, text)
  if not okj then
    return string.format('%s is not valid JSON, so agentls ignores all of it: %s', file, tostring(err):gsub('^.-: ', ''))
  end
  return nil
end

-- What the kernel enforces for the programs agentls starts in this
-- folder (`agentls sandbox --json`): every command, hook, language server
-- and MCP server runs confined where the system can.
function M.sandbox(bin)
  local out = vim.fn.system({ bin, 'sandbox', '--json', '--workspace', vim.fn.getcwd() })
  if vim.v.shell_error ~= 0 then
    warn('sandbox: `agentls sandbox` failed: ' .. vim.trim(out))
    return
  end
  local okj, st = pcall(vim.fn.json_decode, out)
  if not okj or type(st) ~= 'table' then
    warn('sandbox: could not read `agentls sandbox --json`: ' .. vim.trim(out))
    return
  end
  local function str(v)
    return (type(v) == 'string') and v or ''
  end
  if st.confined == true then
    ok(string.format('sandbox: on (%s; network: %s): commands, hooks and servers write only in the workspace and reach the network through agentls\'s proxy', str(st.mechanism), str(st.network)))
  elseif str(st.mode) == 'off' then
    warn('sandbox: off (sandbox.mode "off" in the user config): programs run unconfined')
  else
    warn('sandbox: not enforced: ' .. str(st.reason), { 'agentls asks before every command that is not read-only; `agentls sandbox` shows what this machine offers' })
  end
end

return M
