-- Scenario (no server): lua/agentls/usage.lua's words for tokens and cost,
-- for a table of usage objects as the events carry them. Each result is
-- one line "name=text" in $AGENTLS_RESULT ("nil" for no text).
local function env(k)
  local v = os.getenv(k)
  assert(v and v ~= '', k .. ' is not set')
  return v
end

package.path = env('AGENTLS_PLUGIN_LUA') .. '/?.lua;' .. package.path
local usage = require('agentls.usage')

local priced = { input_tokens = 12345, cache_read_tokens = 10000, output_tokens = 678, cost_usd = 0.0123 }
local unpriced = { input_tokens = 12345, output_tokens = 678 }
local free = { input_tokens = 950, output_tokens = 40, cost_usd = 0 }
local big = { input_tokens = 1234567, output_tokens = 1000, cost_usd = 42.129 }
local cases = {
  { 'short priced', usage.short(priced) },
  { 'short unpriced', usage.short(unpriced) },
  { 'short free', usage.short(free) },
  { 'short big', usage.short(big) },
  { 'short none', usage.short(nil) },
  { 'line priced', usage.line(priced, { input_tokens = 20000, output_tokens = 900, cost_usd = 0.05 }) },
  { 'line priced, session unknown', usage.line(priced, unpriced) },
  { 'line unpriced', usage.line(unpriced, unpriced) },
  { 'line none', usage.line(nil, nil) },
  { 'cost tiny', usage.cost(0.00004) },
  { 'cost text', usage.cost('0.5') },
  { 'tokens round', usage.tokens(12000) },
  { 'tokens junk', usage.tokens('many') },
}
local out = {}
for _, c in ipairs(cases) do
  table.insert(out, c[1] .. '=' .. tostring(c[2]))
end
vim.fn.writefile(out, env('AGENTLS_RESULT'))
vim.cmd('qa!')
