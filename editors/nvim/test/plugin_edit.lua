-- Scenario: the person opens a file and runs the plugin's commands as
-- typed commands: :AgentAsk <prompt> (the agent views then edits the file;
-- the ask goes through vim.ui.select, stubbed by plugin_init.lua),
-- :AgentRevert, :AgentLog. It records the buffer, the disk, the status
-- line and the transcript at each step.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE (relative to the root),
-- AGENTLS_E2E_PROMPT, AGENTLS_E2E_RESULT; AGENTLS_PLUGIN_REVERT=1 runs
-- :AgentRevert after the turn.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local text, disk = h.text, h.disk

h.run(function(rec)
  local agentls = require('agentls')
  local root = h.env('AGENTLS_E2E_ROOT')
  local path = root .. '/' .. h.env('AGENTLS_E2E_FILE')
  rec.statuses = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentlsStatus',
    callback = function()
      table.insert(rec.statuses, agentls.status())
    end,
  })

  local buf, client = h.edit_ready(rec, path)
  rec.text_before = text(buf)
  rec.root = agentls.clients()[1].root
  rec.attached = vim.lsp.buf_is_attached(buf, client.id)
  rec.status_before = agentls.status()

  vim.cmd('AgentAsk ' .. h.env('AGENTLS_E2E_PROMPT'))
  rec.status_asked = agentls.status()
  h.wait(rec, 20000, function()
    return agentls.status() == 'idle'
  end, 'turn over (status idle)')
  rec.status_after = agentls.status()
  rec.text_after = text(buf)
  rec.modified_after = vim.bo[buf].modified
  rec.disk_after = disk(path)
  rec.windows_after = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local b = vim.api.nvim_win_get_buf(w)
    table.insert(rec.windows_after, { name = vim.api.nvim_buf_get_name(b), buftype = vim.bo[b].buftype, text = text(b) })
  end

  if vim.env.AGENTLS_PLUGIN_REVERT == '1' then
    vim.cmd('AgentRevert')
    h.wait(rec, 10000, function()
      for _, l in ipairs(require('agentls.transcript').lines()) do
        if l:match('^↶ ') or l:match('^error: revert') then
          return true
        end
      end
      return false
    end, 'revert answered')
    rec.text_reverted = text(buf)
    rec.modified_reverted = vim.bo[buf].modified
    rec.disk_reverted = disk(path)
  end

  vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))
  vim.cmd('AgentLog')
  local log = vim.api.nvim_get_current_buf()
  rec.log_name = vim.api.nvim_buf_get_name(log)
  rec.log = vim.api.nvim_buf_get_lines(log, 0, -1, false)
  rec.selects = _G.agentls_test.selects

  h.stop_plugin(rec)
  rec.status_end = agentls.status()
end)
