-- Places named in tool results (references, definitions, diagnostics,
-- call hierarchies, grep matches) into the quickfix list, on demand
-- (:AgentQuickfix). Results name paths relative to the client's root.
local state = require('agentls.state')
local util = require('agentls.util')

local M = {}

-- M.keep is how many results that name places are remembered.
M.keep = 20

local types = { error = 'E', warning = 'W', information = 'I', hint = 'N' }

-- resolve makes a result's path absolute and tells whether it is a file.
local function resolve(path, root, seen)
  if seen[path] == nil then
    local abs = path
    if path:sub(1, 1) ~= '/' and root then
      abs = root .. '/' .. path
    end
    abs = util.normalize(abs)
    seen[path] = vim.fn.filereadable(abs) == 1 and abs or false
  end
  return seen[path] or nil
end

--- items reads quickfix items from a tool result: "path:line:col: text"
--- lines (a diagnostic's "error: …" gives the type) and grep's "path:"
--- headers followed by "  Line N: text". Only existing files count.
function M.items(content, root)
  local out, seen, file = {}, {}, nil
  for _, line in ipairs(util.split(content)) do
    local f, l, c, text = line:match('^%s*(.-):(%d+):(%d+):?%s*(.*)$')
    local abs = f and f ~= '' and resolve(f, root, seen)
    if abs then
      local item = { filename = abs, lnum = tonumber(l), col = tonumber(c), text = text }
      local sev, rest = text:match('^(%a+): (.*)$')
      if sev and types[sev] then
        item.type, item.text = types[sev], rest
      end
      table.insert(out, item)
    else
      local header = line:match('^(%S.-):$')
      if header then
        file = resolve(header, root, seen)
      elseif line:match('^%S') then
        file = nil
      end
      local n, t = line:match('^%s+Line (%d+): (.*)$')
      if file and n then
        table.insert(out, { filename = file, lnum = tonumber(n), col = 1, text = t })
      end
    end
  end
  return out
end

--- event remembers a tool result that names places.
function M.event(ev, client_id)
  if ev.type ~= 'tool_result' or type(ev.content) ~= 'string' then
    return
  end
  local items = M.items(ev.content, state.roots[client_id])
  if #items == 0 then
    return
  end
  table.insert(state.located, { id = ev.id, title = ev.name, items = items })
  while #state.located > M.keep do
    table.remove(state.located, 1)
  end
end

--- set fills the quickfix list and opens it; false when items is empty.
function M.set(items, title)
  if not items or #items == 0 then
    return false
  end
  vim.fn.setqflist({}, ' ', { title = 'agentls: ' .. tostring(title), items = items })
  vim.cmd('botright copen')
  return true
end

--- open puts a tool result's places into the quickfix list: the tool call
--- under the cursor in a chat buffer, else the latest result naming
--- places. It returns the number of items.
function M.open()
  local block = require('agentls.chat').block_at(vim.api.nvim_get_current_buf(), vim.fn.line('.'))
  if block and block.kind == 'tool' then
    for _, r in ipairs(state.located) do
      if r.id and r.id == block.id then
        M.set(r.items, block.title or r.title)
        return #r.items
      end
    end
    util.notify('agentls: this tool call names no places', vim.log.levels.WARN)
    return 0
  end
  local last = state.located[#state.located]
  if not last then
    util.notify('agentls: no tool result has named places yet', vim.log.levels.WARN)
    return 0
  end
  M.set(last.items, last.title)
  return #last.items
end

return M
