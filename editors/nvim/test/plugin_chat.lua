-- Scenario: :AgentChat. The question is typed into the chat's prompt area
-- and sent with <CR>; the agent plans (todos), views a.txt, and streams a
-- three-line answer. When the first line shows in the chat buffer, the
-- scenario writes "streamed" to $AGENTLS_PLUGIN_MARK (the Go test's model
-- holds the rest of the stream until then); a follow-up sent then is
-- refused. After the turn it records the
-- buffer, opens the tool call's fold, puts the tool's places into the
-- quickfix list, and sends a follow-up the same way.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE, AGENTLS_E2E_RESULT,
-- AGENTLS_PLUGIN_MARK.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local function find(buf, pattern)
  for i, l in ipairs(lines(buf)) do
    if l:find(pattern, 1, true) then
      return i
    end
  end
end

-- send types text below the "## Ask" line and presses <CR> there.
local function send(buf, text)
  local ask = find(buf, '## Ask')
  vim.api.nvim_buf_set_lines(buf, ask, -1, false, { text })
  vim.api.nvim_win_set_cursor(0, { ask + 1, 0 })
  vim.cmd('normal ' .. vim.api.nvim_replace_termcodes('<CR>', true, false, true))
end

h.run(function(rec)
  local agentls = require('agentls')
  h.edit_ready(rec)

  vim.cmd('AgentChat')
  local buf = vim.api.nvim_get_current_buf()
  local win = vim.api.nvim_get_current_win()
  rec.chat = { name = vim.api.nvim_buf_get_name(buf), filetype = vim.bo[buf].filetype, buftype = vim.bo[buf].buftype }
  send(buf, 'What does a.txt say?')
  h.wait(rec, 20000, function()
    return find(buf, 'First line of the answer.') ~= nil
  end, 'first line streamed')
  rec.streaming = { status = agentls.status(), statusline = agentls.statusline(), has_third = find(buf, 'Third line') ~= nil }
  -- A follow-up while the turn runs is refused, in Neovim's words, and
  -- the prompt stays for later.
  send(buf, 'too early')
  h.wait(rec, 10000, function()
    return find(buf, '> **error:**') ~= nil
  end, 'follow-up refused')
  rec.refused = { error = lines(buf)[find(buf, '> **error:**')], prompt = lines(buf)[find(buf, '## Ask') + 1] }
  vim.api.nvim_buf_set_lines(buf, find(buf, '## Ask'), -1, false, { '' })
  local f = assert(io.open(h.env('AGENTLS_PLUGIN_MARK'), 'w'))
  f:write('streamed')
  f:close()
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle'
  end, 'turn over')
  rec.lines = lines(buf)
  rec.prompt_after = vim.api.nvim_buf_get_lines(buf, find(buf, '## Ask'), -1, false)

  -- The tool call is one closed fold; it opens to the tool's output.
  local tool = find(buf, '▸ view a.txt')
  rec.fold = { row = tool, closed = vim.fn.foldclosed(tool), closed_end = vim.fn.foldclosedend(tool),
    text = vim.fn.foldtextresult(tool) }
  vim.api.nvim_win_set_cursor(win, { tool, 0 })
  vim.cmd('normal ' .. vim.api.nvim_replace_termcodes('<CR>', true, false, true))
  rec.fold.opened = vim.fn.foldclosed(tool)
  rec.fold.body = vim.api.nvim_buf_get_lines(buf, tool, rec.fold.closed_end, false)

  -- The places a tool named, from the chat's tool call under the cursor.
  local grep = find(buf, '▸ grep')
  vim.api.nvim_win_set_cursor(win, { grep, 0 })
  rec.qf_count = agentls.quickfix()
  rec.qf = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(rec.qf, string.format('%s:%d:%s', vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':t'), item.lnum, item.text))
  end
  vim.cmd('cclose')
  -- The other forms results name places in: diagnostics and locations.
  rec.items = {}
  local content = 'a.txt:1:3: error: bad thing\n3 references to X (at a.txt:1:1) in 1 file:\n  a.txt:2:1: second line\nnope.txt:1:1: gone'
  for _, item in ipairs(require('agentls.quickfix').items(content, h.env('AGENTLS_E2E_ROOT'))) do
    table.insert(rec.items, string.format('%s:%d:%d:%s:%s', vim.fn.fnamemodify(item.filename, ':t'), item.lnum, item.col,
      item.type or '', item.text))
  end
  vim.api.nvim_set_current_win(win)

  send(buf, 'And now?')
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle' and find(buf, 'Still hello.') ~= nil
  end, 'follow-up answered')
  rec.lines_after = lines(buf)
  rec.chats = #vim.tbl_keys(require('agentls.state').chats)
  rec.clients_on_chat = h.clients_of(buf)
  h.stop_plugin(rec)
end)
