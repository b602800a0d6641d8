-- Scenario: the agent works on a file the user changed without saving: it
-- views the buffer, and may edit it (the permission ask is answered with
-- $AGENTLS_E2E_ANSWER by the harness).
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
--   AGENTLS_E2E_ANSWER  optional: the action chosen when the server asks
--   AGENTLS_E2E_UNDO    optional: "1" runs :undo once after the turn and
--                       records the buffer again
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local function text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

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
  -- A typed change is an undo block of its own, but this whole script runs
  -- as one command: close the block as the next keystroke would, so :undo
  -- after the turn takes back the agent's change only. Setting
  -- 'undolevels', even to its value, breaks undo (:help undo-blocks).
  vim.o.undolevels = vim.o.undolevels
  rec.modified_before_ask = vim.bo[buf].modified
  rec.text_before_ask = text(buf)

  rec.ask = h.execute(rec, buf, client_id, 'agentls.ask', { prompt = h.env('AGENTLS_E2E_PROMPT') }, 10000)
  if rec.ask.error then
    error('agentls.ask failed: ' .. tostring(rec.ask.error.message))
  end
  -- The final showMessage comes after turn_end and progress end.
  h.wait(rec, 15000, function() return (rec.turn_ends or 0) >= 1 and #rec.shows >= 1 end,
    'turn_end and showMessage')

  rec.modified_at_end = vim.bo[buf].modified
  rec.buffer_text = text(buf)
  if vim.env.AGENTLS_E2E_UNDO == '1' then
    vim.api.nvim_buf_call(buf, function() vim.cmd('undo') end)
    rec.modified_after_undo = vim.bo[buf].modified
    rec.undo_text = text(buf)
    h.step(rec, 'undo')
  end
  h.stop(rec, client_id, 5000)
end)
