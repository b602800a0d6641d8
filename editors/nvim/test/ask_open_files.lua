-- Scenario: several files are open in Neovim and the first one has an
-- unsaved change when the person asks; the agent may change any of them
-- (the permission ask is answered with $AGENTLS_E2E_ANSWER by the
-- harness). It records every buffer before the ask and after the turn,
-- and the server's child processes (its language servers) before the
-- client stops it.
--
-- Environment:
--   AGENTLS_E2E_BIN, AGENTLS_E2E_ROOT, AGENTLS_E2E_MODEL, AGENTLS_E2E_PROMPT,
--   AGENTLS_E2E_RESULT, AGENTLS_E2E_ANSWER as in ask_unsaved.lua.
--   AGENTLS_E2E_FILES  comma-separated files to open, relative to the root
--   AGENTLS_E2E_LINE   1-based line of the first file before which
--                      AGENTLS_E2E_TEXT is inserted (not saved)
--   AGENTLS_E2E_TEXT   the inserted lines, separated by "\n"
--
-- Record: buffers[i] = {file, modified_before_ask, text_before_ask,
-- modified_at_end, text} (texts are the lines joined by "\n", without a
-- final newline); children = {{pid, comm}} of the server process.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

-- children lists the processes whose parent is pid, from /proc.
local function children(pid)
  local out = {}
  for _, dir in ipairs(vim.fn.glob('/proc/[0-9]*', false, true)) do
    local f = io.open(dir .. '/stat')
    if f then
      local stat = f:read('*a') or ''
      f:close()
      -- pid (comm) state ppid …; comm may hold spaces and parentheses.
      local comm, rest = stat:match('^%d+ %((.*)%) (.*)$')
      local ppid = rest and tonumber(vim.split(rest, ' ', { plain = true })[2])
      if ppid == pid then
        table.insert(out, { pid = tonumber(dir:match('%d+$')), comm = comm })
      end
    end
  end
  return out
end

h.run(function(rec)
  local root = h.env('AGENTLS_E2E_ROOT')
  local client_id = h.start(rec, {
    cmd = { h.env('AGENTLS_E2E_BIN'), 'serve', '--stdio' },
    root_dir = root,
    init_options = { model = h.env('AGENTLS_E2E_MODEL') },
  })
  local bufs = {}
  for _, file in ipairs(vim.split(h.env('AGENTLS_E2E_FILES'), ',', { plain = true })) do
    table.insert(bufs, { file = file, buf = h.open(rec, client_id, root .. '/' .. file) })
  end
  h.wait_initialized(rec, 10000)

  -- The person's change, typed in the first file and not written (the
  -- buffers were all opened first: :edit refuses to leave a modified
  -- buffer without 'hidden'). Neovim debounces didChange and flushes it
  -- before the next request.
  local line = tonumber(h.env('AGENTLS_E2E_LINE'))
  vim.api.nvim_buf_set_lines(bufs[1].buf, line - 1, line - 1, false,
    vim.split(h.env('AGENTLS_E2E_TEXT'), '\n', { plain = true }))

  rec.buffers = {}
  for i, b in ipairs(bufs) do
    rec.buffers[i] = { file = b.file, modified_before_ask = vim.bo[b.buf].modified, text_before_ask = text(b.buf) }
  end

  rec.ask = h.execute(rec, bufs[1].buf, client_id, 'agentls.ask', { prompt = h.env('AGENTLS_E2E_PROMPT') }, 10000)
  if rec.ask.error then
    error('agentls.ask failed: ' .. tostring(rec.ask.error.message))
  end
  -- The final showMessage comes after turn_end and progress end.
  h.wait(rec, 20000, function() return (rec.turn_ends or 0) >= 1 and #rec.shows >= 1 end,
    'turn_end and showMessage')

  for i, b in ipairs(bufs) do
    rec.buffers[i].modified_at_end = vim.bo[b.buf].modified
    rec.buffers[i].text = text(b.buf)
  end
  rec.children = children(rec.server_pid)
  h.step(rec, string.format('%d server child processes', #rec.children))
  h.stop(rec, client_id, 5000)
end)
