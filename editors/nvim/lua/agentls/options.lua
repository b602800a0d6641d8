-- setup()'s options checked: a name it does not know (a typo such as
-- modle=) or a value of the wrong type is reported in setup()'s words and
-- left out, so the rest of the configuration still applies; :checkhealth
-- agentls lists the same errors.
local M = {}

-- types are the options setup() takes and the Lua types each accepts.
M.types = {
  cmd = 'table', model = 'string', permissions = 'table', init_options = 'table',
  root_dir = 'string function', root_markers = 'table', filetypes = 'table', save = 'boolean',
  review = 'boolean', ask_ui = 'string', ask_timeout = 'number', on_attach = 'function',
  capabilities = 'table',
}

-- closest is the known option nearest to name (a transposition or one
-- letter off), for "did you mean".
local function closest(name)
  local best, score
  for key in pairs(M.types) do
    -- Letters in common, in any order, minus the length difference.
    local common = 0
    local left = key
    for ch in name:gmatch('.') do
      local i = left:find(ch, 1, true)
      if i then
        common = common + 1
        left = left:sub(1, i - 1) .. left:sub(i + 1)
      end
    end
    local s = common - math.abs(#key - #name)
    if s >= math.max(#key, #name) - 2 and (not score or s > score) then
      best, score = key, s
    end
  end
  return best
end

--- check returns the errors in opts as messages naming setup{…}'s keys.
function M.check(opts)
  local errs = {}
  local keys = vim.tbl_keys(opts)
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  for _, key in ipairs(keys) do
    local types, v = M.types[key], opts[key]
    if not types then
      local hint = closest(tostring(key))
      table.insert(errs, string.format('setup{%s=…}: no such option%s; see :help agentls-setup', tostring(key),
        hint and (' (did you mean ' .. hint .. '=?)') or ''))
    elseif not types:find(type(v), 1, true) then
      table.insert(errs, string.format('setup{%s=…} must be a %s, got %s', key, (types:gsub(' ', ' or ')), type(v)))
    end
  end
  return errs
end

--- valid is opts without the options check() reports.
function M.valid(opts)
  local out = {}
  for key, v in pairs(opts) do
    local types = M.types[key]
    if types and types:find(type(v), 1, true) then
      out[key] = v
    end
  end
  return out
end

return M
