-- Scenario: review before apply. :AgentAsk; the agent writes a.txt and
-- then b.txt, two hunks each, and each change arrives as agentls/review.
-- The first review is answered with typed keys, as a person would (r on
-- hunk 1, then a on hunk 2: typed input, which on 0.7-0.9 reaches the
-- review while the request handler waits; typed 600 ms after it shows,
-- since keys typed just before or as it appears are dropped); the second with
-- require('agentls').review_answer({accept = {1}}). At each review it
-- records the review buffer, its windows and clients; after the turn the
-- buffers, the disks, review_answer() with nothing open, the windows, and
-- the statusline before and after its revert is clicked.
--
-- Environment: AGENTLS_E2E_ROOT, AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

local text, disk = h.text, h.disk

h.run_co(function(rec)
  local agentls = require('agentls')
  local root = h.env('AGENTLS_E2E_ROOT')
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/b.txt'))
  local b = vim.api.nvim_get_current_buf()
  local a = h.edit_ready(rec, root .. '/a.txt')

  rec.reviews = {}
  vim.api.nvim_create_autocmd('User', { pattern = 'AgentlsReview', callback = function()
    local buf = vim.api.nvim_get_current_buf()
    local wins = 0
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):match('^agentls://review/') then
        wins = wins + 1
      end
    end
    table.insert(rec.reviews, {
      name = vim.api.nvim_buf_get_name(buf),
      buftype = vim.bo[buf].buftype,
      filetype = vim.bo[buf].filetype,
      modifiable = vim.bo[buf].modifiable,
      clients = h.clients_of(buf),
      windows = wins,
      text = text(buf),
      status = agentls.status(),
    })
    h.step(rec, 'review ' .. vim.api.nvim_buf_get_name(buf))
    if #rec.reviews == 1 then
      -- Typed as it appears (for something else): dropped, or it would
      -- accept every hunk.
      vim.api.nvim_input('A')
      -- Typed: r rejects hunk 1 and moves to hunk 2, a accepts it.
      vim.defer_fn(function()
        vim.api.nvim_input('ra')
      end, 600)
    else
      vim.defer_fn(function()
        rec.answered = agentls.review_answer({ accept = { 1 } })
      end, 20)
    end
  end })

  vim.cmd('AgentAsk tidy both files')
  h.wait(rec, 30000, function()
    return agentls.status() == 'idle' and #rec.reviews >= 2
  end, 'turn over (status idle)')
  rec.text_a, rec.text_b = text(a), text(b)
  rec.disk_a, rec.disk_b = disk(root .. '/a.txt'), disk(root .. '/b.txt')
  rec.answered_none = agentls.review_answer({ accept = { 1 } })
  -- The statusline offers the whole turn's revert; a click runs it.
  rec.statusline_after = agentls.statusline()
  vim.fn.AgentlsRevertClick(0, 1, 'l', '    ')
  h.wait(rec, 10000, function()
    for _, l in ipairs(require('agentls.transcript').lines()) do
      if l:match('^↶ ') then
        return true
      end
    end
  end, 'reverted from the statusline')
  rec.text_a_reverted, rec.text_b_reverted = text(a), text(b)
  rec.statusline_reverted = agentls.statusline()
  rec.windows_after = _G.agentls_test.windows()
  rec.log = require('agentls.transcript').lines()
  h.stop_plugin(rec)
end, 60000)
