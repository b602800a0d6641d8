-- Tokens and cost as people read them, from the usage objects of the
-- agentls/event contract (input_tokens, output_tokens, cache_read_tokens,
-- cost_usd). Pure functions: status.lua and chat.lua place them. A usage
-- without cost_usd is a model without a price: tokens only, never $0.
local M = {}

local function num(v)
  return type(v) == 'number' and v or nil
end

--- tokens writes a count short: 950, 12.3k, 1.2M.
function M.tokens(n)
  n = num(n) or 0
  if n < 1000 then
    return string.format('%d', n)
  elseif n < 1e6 then
    return (string.format('%.1fk', n / 1e3):gsub('%.0k$', 'k'))
  end
  return (string.format('%.1fM', n / 1e6):gsub('%.0M$', 'M'))
end

--- grouped writes a count in full with thousands separated: 12,345.
function M.grouped(n)
  local s = string.format('%d', num(n) or 0)
  local out = s:reverse():gsub('(%d%d%d)', '%1,'):reverse()
  return (out:gsub('^,', ''))
end

--- cost writes US dollars as the server's sessions show does: cents from
--- a dollar up, finer below, so a cheap turn does not read $0.00.
function M.cost(usd)
  usd = num(usd)
  if not usd then
    return nil
  elseif usd >= 1 then
    return string.format('$%.2f', usd)
  elseif usd >= 0.01 then
    return string.format('$%.3f', usd)
  elseif usd == 0 then
    return '$0'
  elseif usd < 0.0001 then
    return '<$0.0001'
  end
  return string.format('$%.4f', usd)
end

--- short is a usage for a statusline: "12.3k tokens · $0.012" (no cost
--- for a model without a price); nil without a usage.
function M.short(u)
  if type(u) ~= 'table' then
    return nil
  end
  local s = M.tokens((num(u.input_tokens) or 0) + (num(u.output_tokens) or 0)) .. ' tokens'
  local c = M.cost(u.cost_usd)
  return c and (s .. ' · ' .. c) or s
end

--- line is a turn's usage for the chat: "12,345 tokens in (10,000
--- cached), 678 out · $0.012 (session $0.050)"; nil without a usage.
function M.line(turn, session)
  if type(turn) ~= 'table' then
    return nil
  end
  local s = M.grouped(turn.input_tokens) .. ' tokens in'
  if (num(turn.cache_read_tokens) or 0) > 0 then
    s = s .. ' (' .. M.grouped(turn.cache_read_tokens) .. ' cached)'
  end
  s = s .. ', ' .. M.grouped(turn.output_tokens) .. ' out'
  local c = M.cost(turn.cost_usd)
  if c then
    s = s .. ' · ' .. c
    local sc = type(session) == 'table' and M.cost(session.cost_usd)
    if sc then
      s = s .. ' (session ' .. sc .. ')'
    end
  end
  return s
end

return M
