-- Scenario (no server): the plugin's event contract (lua/agentls/events.lua)
-- against docs/events.schema.json, the one description of the events that
-- the server's and the VS Code extension's tests read too: every schema
-- field is declared with the Lua type its JSON decodes to, nothing else
-- is, and no plugin file reads an event field (ev.x) outside the contract.
-- $AGENTLS_SCHEMA names the schema, $AGENTLS_PLUGIN_LUA the plugin's lua
-- folder; the errors go to $AGENTLS_RESULT, one a line ("ok" when none).
local function env(k)
  local v = os.getenv(k)
  assert(v and v ~= '', k .. ' is not set')
  return v
end

local errs = {}
local function err(fmt, ...)
  table.insert(errs, string.format(fmt, ...))
end

local schema = vim.fn.json_decode(table.concat(vim.fn.readfile(env('AGENTLS_SCHEMA')), '\n'))
package.path = env('AGENTLS_PLUGIN_LUA') .. '/?.lua;' .. package.path
local fields = require('agentls.events').fields

-- The Lua type a schema property decodes to.
local function lua_type(p)
  if p['$ref'] then
    return 'table'
  end
  local t = p.type
  if t == 'string' or (t == nil and type(p.enum) == 'table' and type(p.enum[1]) == 'string') then
    return 'string'
  elseif t == 'integer' or t == 'number' then
    return 'number'
  elseif t == 'boolean' then
    return 'boolean'
  elseif t == 'array' or t == 'object' then
    return 'table'
  end
  return 'any'
end

for name, p in pairs(schema.properties) do
  local want = lua_type(p)
  if fields[name] == nil then
    err('%s (%s) is in the schema but not in events.lua', name, want)
  elseif fields[name] ~= want then
    err('%s is %s in events.lua, %s in the schema', name, fields[name], want)
  end
end
for name in pairs(fields) do
  if schema.properties[name] == nil then
    err('%s is in events.lua but not in the schema', name)
  end
end

-- Every ev.<field> the plugin reads is in the contract.
local dir = env('AGENTLS_PLUGIN_LUA') .. '/agentls'
for _, f in ipairs(vim.fn.glob(dir .. '/*.lua', false, true)) do
  for _, line in ipairs(vim.fn.readfile(f)) do
    for field in line:gmatch('%f[%w_]ev%.([%a_][%w_]*)') do
      if fields[field] == nil then
        err('%s reads ev.%s, which is not in the contract', vim.fn.fnamemodify(f, ':t'), field)
      end
    end
  end
end

table.sort(errs)
vim.fn.writefile(#errs == 0 and { 'ok' } or errs, env('AGENTLS_RESULT'))
vim.cmd('qa!')
