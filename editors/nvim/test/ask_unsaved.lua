-- Scenario: the agent views a file the user changed without saving.
--
-- Environment:
--   AGENTLS_E2E_BIN     agentls binary
--   AGENTLS_E2E_ROOT    workspace folder
--   AGENTLS_E2E_MODEL   model spec for initializationOptions.model
--   AGENTLS_E2E_FILE    file to open, relative to the root
--   AGENTLS_E2E_LINE    1-based line to replace in the buffer (not saved)
--   AGENTLS_E2E_TEXT    the new text of that line
--   AGENTLS_E2E_PROMPT  the prompt of agentls.ask
--   AGENTLS_E2E_RESULT  where the harness writes the record (JSON)
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local root = h.env('AGENTLS_E2E_ROOT')
  local client_id = h.start(rec, {
    cmd = { h.env('AGENTLS_E2E_BIN'), 'serve', '--stdio' },
    root_dir = root,
    init_options = { model = h.env('AGENTLS_E2E_MODEL') },
  })
  local buf = h.open(rec, client_id, root .. '/' .. h.env('AGENTLS_E2E_FILE'))
  h.wait_initialized(rec, 10000)

  -- Edit the buffer without writing it. Neovim debounces didChange, and
  -- flushes it before the next request, as a user typing then asking would.
  local line = tonumber(h.env('AGENTLS_E2E_LINE'))
  vim.api.nvim_buf_set_lines(buf, line - 1, line, false, { h.env('AGENTLS_E2E_TEXT') })
  rec.modified_before_ask = vim.bo[buf].modified

  rec.ask = h.execute(rec, buf, client_id, 'agentls.ask', { prompt = h.env('AGENTLS_E2E_PROMPT') }, 10000)
  if rec.ask.error then
    error('agentls.ask failed: ' .. tostring(rec.ask.error.message))
  end
  -- The final showMessage comes after turn_end and progress end.
  h.wait(rec, 15000, function() return (rec.turn_ends or 0) >= 1 and #rec.shows >= 1 end,
    'turn_end and showMessage')

  rec.modified_at_end = vim.bo[buf].modified
  rec.buffer_text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  h.stop(rec, client_id, 5000)
end)
