-- The chat buffer's blocks as markdown lines. Pure functions of a block's
-- fields, so chat.lua only places them.
local util = require('agentls.util')

local M = {}

M.prompt_line = '## Ask  (type below · <CR> in Normal mode or <C-s> sends · :AgentCancel stops)'

-- fence is a code fence longer than any backtick run in text.
local function fence(text)
  local longest = 2
  for run in tostring(text):gmatch('`+') do
    longest = math.max(longest, #run)
  end
  return string.rep('`', longest + 1)
end

local function fenced(lines, text, lang)
  local f = fence(text)
  table.insert(lines, f .. (lang or ''))
  for _, l in ipairs(util.split(text)) do
    table.insert(lines, l)
  end
  table.insert(lines, f)
end

function M.you(b)
  local lines = { '## You' .. (util.present(b.where) and ('  (' .. b.where .. ')') or ''), '' }
  vim.list_extend(lines, util.split(b.prompt))
  table.insert(lines, '')
  return lines
end

-- heading starts the agent's part of a turn, naming the model it runs.
function M.heading(b)
  return { '## agentls' .. (util.present(b.model) and ('  (' .. tostring(b.model) .. ')') or ''), '' }
end

function M.text(b)
  local lines = util.split(b.text)
  table.insert(lines, '')
  return lines
end

-- tool_title is "view a.txt", else the tool's name.
local function tool_title(b)
  if util.present(b.title) then
    return tostring(b.title)
  end
  return tostring(b.name or '?')
end

-- tool renders a tool call: one header line (the fold's) and, once it
-- has one, its result and diff below, to be folded.
function M.tool(b)
  local header = '▸ ' .. tool_title(b)
  if b.permission == 'deny' then
    header = header .. ' — denied'
  elseif b.content == nil and b.diff == nil then
    header = header .. ' …'
  else
    header = header .. (b.is_error and ' — error' or ' — ok')
  end
  local lines = { header }
  if util.present(b.diff) then
    fenced(lines, b.diff, 'diff')
  end
  if b.content ~= nil then
    if util.present(b.content) then
      fenced(lines, b.content, '')
    else
      table.insert(lines, '(no output)')
    end
  end
  if #lines > 1 then
    table.insert(lines, '')
  end
  return lines
end

function M.thinking(b)
  local lines = { '▸ thinking' }
  vim.list_extend(lines, util.split(b.text))
  table.insert(lines, '')
  return lines
end

function M.error(b)
  local ls = util.split(b.message)
  local lines = { '> **error:** ' .. (ls[1] or '') }
  for i = 2, #ls do
    table.insert(lines, '> ' .. ls[i])
  end
  table.insert(lines, '')
  return lines
end

function M.notice(b)
  return { '_' .. tostring(b.text) .. '_', '' }
end

-- usage is a turn's tokens and cost (usage.line), under its answer.
function M.usage(b)
  return { '_' .. tostring(b.text) .. '_', '' }
end

function M.ended(b)
  return { '_turn ended: ' .. tostring(b.reason) .. '_', '' }
end

local marks = { completed = '[x]', in_progress = '[-]', pending = '[ ]' }

function M.todos(b)
  local lines = { '## Todos' .. (util.present(b.message) and ('  (' .. b.message .. ')') or '') }
  if #b.todos == 0 then
    table.insert(lines, '(none)')
  end
  for _, t in ipairs(b.todos) do
    local line = string.format('- %s %s', marks[t.status] or '[ ]', tostring(t.content or ''))
    if t.status == 'in_progress' and util.present(t.active_form) then
      line = line .. '  ← ' .. t.active_form
    end
    table.insert(lines, line)
  end
  table.insert(lines, '')
  return lines
end

return M
