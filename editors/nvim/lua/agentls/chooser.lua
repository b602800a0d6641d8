-- A chooser that never holds the editor: vim.ui.select's arguments, shown
-- in a floating window. Asks use it when vim.ui.select is Neovim's own
-- (inputlist(), which takes every key until answered, so :AgentCancel
-- could not be typed); a picker you installed (telescope, fzf-lua,
-- dressing, snacks) is used as it is. An ask comes at any time, so no key
-- you were typing anyway answers it: the float takes the focus only in
-- Normal mode (else when you leave Insert mode or the command line); 1-9
-- go to a choice and <CR> takes it; q dismisses; <Esc> goes back to your
-- window and leaves it open (<C-w>w returns to it).
local util = require('agentls.util')

local M = {}

-- builtin tells whether vim.ui.select is still Neovim's own.
function M.builtin()
  local ok, info = pcall(debug.getinfo, vim.ui.select, 'S')
  return ok and info and type(info.source) == 'string' and info.source:match('vim/ui%.lua$') ~= nil
end

-- select picks the chooser for the config's ask_ui ('auto', 'float',
-- 'select') and calls it; the result may have close().
function M.pick(ask_ui, items, opts, on_choice)
  if ask_ui == 'float' or (ask_ui ~= 'select' and M.builtin()) then
    return M.select(items, opts, on_choice)
  end
  vim.ui.select(items, opts, on_choice)
  return nil
end

--- select shows items in a float and calls on_choice(item, idx) once, with
--- nil when dismissed (q, or its buffer wiped). Returns {close = fn, win = …, buf = …}; close()
--- takes it away without calling on_choice.
function M.select(items, opts, on_choice)
  opts = opts or {}
  local format = opts.format_item or tostring
  local lines = util.split(opts.prompt or 'Choose')
  table.insert(lines, '')
  local first = #lines + 1
  for i, item in ipairs(items) do
    table.insert(lines, string.format('%s %s', i <= 9 and tostring(i) or ' ', format(item)))
  end
  table.insert(lines, '')
  table.insert(lines, '1-9: go to · <CR>: choose · q: dismiss · <Esc>: back to your window')
  local buf = util.scratch('agentls://choose/' .. tostring(vim.loop.hrtime()), nil, false)
  util.set_lines(buf, lines)
  local from = vim.api.nvim_get_current_win()
  local handle = { buf = buf }
  local done = false
  local win = util.question_float(buf, lines, 20, function()
    util.settle(handle)
  end, function()
    return not done
  end)
  handle.win = win
  vim.wo[win].cursorline = true
  pcall(vim.api.nvim_win_set_cursor, win, { first, 0 })

  local function finish(idx)
    if done then
      return
    end
    done = true
    handle.close()
    if idx then
      on_choice(items[idx], idx)
    else
      on_choice(nil, nil)
    end
  end
  function handle.close()
    done = true
    if vim.api.nvim_win_is_valid(win) then
      pcall(vim.api.nvim_win_close, win, true)
    end
    if vim.api.nvim_win_is_valid(from) then
      pcall(vim.api.nvim_set_current_win, from)
    end
  end
  local keys = {
    q = { function() finish(nil) end, 'dismiss' },
    ['<Esc>'] = { function()
      if vim.api.nvim_win_is_valid(from) then
        vim.api.nvim_set_current_win(from)
      end
    end, 'back to your window (the question stays open)' },
    ['<CR>'] = { function()
      local idx = vim.api.nvim_win_get_cursor(0)[1] - first + 1
      if idx >= 1 and idx <= #items then
        finish(idx)
      end
    end, 'choose the item under the cursor' },
  }
  for i = 1, math.min(#items, 9) do
    keys[tostring(i)] = { function()
      vim.api.nvim_win_set_cursor(0, { first + i - 1, 0 })
    end, 'go to choice ' .. i }
  end
  util.map(buf, keys, handle)
  -- Wiped some other way (:bwipe, :q): a dismissal.
  vim.api.nvim_create_autocmd('BufWipeout', { buffer = buf, once = true, callback = function()
    vim.schedule(function()
      finish(nil)
    end)
  end })
  return handle
end

return M
