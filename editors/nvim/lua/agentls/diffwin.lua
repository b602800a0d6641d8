-- "Show diff" of an ask: one scratch window per question (pressed twice,
-- the same window), filetype diff, no file on disk and no language server,
-- closed when the question ends.
local util = require('agentls.util')

local M = {}

--- show opens (or refreshes) owner's diff window below, keeping the
--- cursor where it was. owner is the ask; it keeps the window.
function M.show(owner, name, diff)
  local lines = util.split(diff)
  if owner.diff_buf and vim.api.nvim_buf_is_valid(owner.diff_buf) then
    util.set_lines(owner.diff_buf, lines)
  else
    owner.diff_buf = util.scratch('agentls://diff/' .. name, 'diff', false)
    util.set_lines(owner.diff_buf, lines)
  end
  if owner.diff_win and vim.api.nvim_win_is_valid(owner.diff_win) then
    return owner.diff_win
  end
  local from = vim.api.nvim_get_current_win()
  util.leave_float()
  vim.cmd('botright ' .. math.min(#lines + 1, math.max(5, math.floor(vim.o.lines / 2))) .. 'split')
  owner.diff_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(owner.diff_win, owner.diff_buf)
  util.map(owner.diff_buf, { q = { function()
    util.close_win(owner.diff_win)
  end, 'close the diff' } })
  if vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
  return owner.diff_win
end

--- close closes owner's diff window (the buffer goes with it).
function M.close(owner)
  util.close_win(owner.diff_win)
  owner.diff_win = nil
  if owner.diff_buf and vim.api.nvim_buf_is_valid(owner.diff_buf) then
    pcall(vim.api.nvim_buf_delete, owner.diff_buf, { force = true })
  end
  owner.diff_buf = nil
end

return M
