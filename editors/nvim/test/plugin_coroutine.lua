-- Scenario: the plugin's window/showMessageRequest handler called the way
-- Neovim 0.10+ calls server-request handlers — inside a coroutine, the
-- result being what the coroutine returns — with vim.ui.select answering
-- later from a timer (plugin_init.lua's AGENTLS_PLUGIN_ASYNC_SELECT=1).
-- The handler must yield (not block in vim.wait) and return the choice.
-- Then agentls/review the same way, answered with the review's keys (r
-- and a; A, R) and with review_answer().
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

-- settle waits until a review's keys count (keys typed as it appears do
-- nothing for util.settle_ms).
local function settle(rec)
  local t = vim.loop.hrtime()
  h.wait(rec, 2000, function()
    return vim.loop.hrtime() - t > (require('agentls.util').settle_ms + 50) * 1e6
  end, 'the review settled')
end

h.run(function(rec)
  local agentls = require('agentls')
  local _, client = h.edit_ready(rec)
  local handler = client.handlers['window/showMessageRequest']
  local params = { type = 2, message = 'agentls wants to run go test', actions = {
    { title = 'Allow' }, { title = 'Deny' }, { title = 'Allow "go test" this session' } } }
  local done, result
  local co = coroutine.create(function()
    result = handler(nil, params, { method = 'window/showMessageRequest', client_id = client.id })
    done = true
  end)
  local ok, err = coroutine.resume(co)
  if not ok then
    error('handler failed in the coroutine: ' .. tostring(err))
  end
  rec.yielded = not done
  rec.status_while_yielded = agentls.status()
  h.wait(rec, 5000, function()
    return done
  end, 'handler resumed and returned')
  rec.result = result
  rec.status_after = agentls.status()
  rec.selects = _G.agentls_test.selects

  -- agentls/review the same way: the handler yields with the review window
  -- open, whose keys are ordinary mappings here (r, then a).
  local review = client.handlers['agentls/review']
  local rparams = { id = 'ask-9', message = 'agentls wants to edit a.txt (+2 −2)', path = 'a.txt', exists = true,
    hunks = { { id = 1, diff = '@@ -1 +1 @@\n-one\n+ONE' }, { id = 2, diff = '@@ -9 +9 @@\n-nine\n+NINE' } },
    choices = {} }
  local rdone, rresult
  co = coroutine.create(function()
    rresult = review(nil, rparams, { method = 'agentls/review', client_id = client.id })
    rdone = true
  end)
  ok, err = coroutine.resume(co)
  if not ok then
    error('review handler failed in the coroutine: ' .. tostring(err))
  end
  rec.review_yielded = not rdone
  rec.review_buffer = vim.api.nvim_buf_get_name(0)
  settle(rec)
  vim.cmd('normal r')
  vim.cmd('normal a')
  h.wait(rec, 5000, function()
    return rdone
  end, 'review handler resumed and returned')
  rec.review_result = rresult
  rec.review_windows = #vim.api.nvim_list_wins()

  -- Three-hunk reviews, one at a time: A accepts every hunk (a second
  -- review asked meanwhile is denied at once, no second window), R
  -- rejects them all, review_answer({accept = {1, 3}}) takes hunks 1 and 3.
  local three = vim.deepcopy(rparams)
  three.hunks[3] = { id = 3, diff = '@@ -5 +5 @@\n-five\n+FIVE' }
  local function open_review(keys)
    local out = {}
    co = coroutine.create(function()
      out.result = review(nil, three, { method = 'agentls/review', client_id = client.id })
      out.done = true
    end)
    ok, err = coroutine.resume(co)
    if not ok then
      error('review handler failed in the coroutine: ' .. tostring(err))
    end
    out.buffer = vim.api.nvim_buf_get_name(0)
    settle(rec)
    keys(out)
    h.wait(rec, 5000, function()
      return out.done
    end, 'review of three hunks answered')
    out.windows = #vim.api.nvim_list_wins()
    return out
  end
  rec.reviews = {
    open_review(function(out)
      out.busy = review(nil, three, { method = 'agentls/review', client_id = client.id }) == vim.NIL
      out.windows_busy = #vim.api.nvim_list_wins()
      vim.cmd('normal A')
    end),
    open_review(function()
      vim.cmd('normal R')
    end),
    open_review(function(out)
      out.answered = agentls.review_answer({ accept = { 1, 3 } })
    end),
  }
  h.stop_plugin(rec)
end)
