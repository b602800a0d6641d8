-- The agentls client's handlers for the server's requests and
-- notifications that are not asks of their own (ask.lua, review.lua):
-- the yes/no ask of servers without asyncAsk, the agent's questions,
-- saving, showing a document on 0.7, and messages.
local await = require('agentls.await')
local chooser = require('agentls.chooser')
local util = require('agentls.util')

local M = {}

-- done_item ends a multiple choice.
local done_item = 'Done'

-- choose picks one of items for a question (User AgentlsQuestion or, for
-- a permission ask, AgentlsAsk fires). Waiting synchronously (0.7-0.9) a
-- picker would get no keys, so the plugin's float takes them there; in a
-- coroutine (0.10+) vim.ui.select, whatever it is, answers.
local function choose(items, opts, what)
  local event = opts.kind == 'agentls_question' and 'AgentlsQuestion' or 'AgentlsAsk'
  if not await.sync() then
    return await.await(function(cb)
      vim.ui.select(items, opts, cb)
    end, what, { event = event })
  end
  local shown
  local pick = await.await(function(cb)
    shown = chooser.select(items, opts, cb)
  end, what, { keys = function()
    return shown and shown.win
  end, event = event })
  if shown then
    shown.close()
  end
  return pick
end

-- type_in asks for free text: vim.ui.input in a coroutine; waiting
-- synchronously, input(), which reads the keys itself (an input plugin's
-- window would get none).
local function type_in(prompt, what)
  if not await.sync() then
    return await.await(function(cb)
      vim.ui.input({ prompt = prompt }, cb)
    end, what, { event = 'AgentlsQuestion' })
  end
  return await.await(function(cb)
    local ok, text = pcall(vim.fn.input, { prompt = prompt, cancelreturn = '' })
    cb(ok and text or nil)
  end, what, { event = 'AgentlsQuestion' })
end

-- show_message_request answers window/showMessageRequest (a server that
-- does not know asyncAsk) with a choice over the server's action titles
-- (see choose). The result is the chosen action ({title = …}) or vim.NIL
-- when the prompt was dismissed (the server reads that as a deny).
function M.show_message_request(_, params, _)
  params = params or {}
  local actions = {}
  for _, a in ipairs(params.actions or {}) do
    if type(a) == 'table' and type(a.title) == 'string' then
      table.insert(actions, a)
    end
  end
  local message = tostring(params.message or '')
  if #actions == 0 then
    util.notify(message, params.type == 1 and vim.log.levels.ERROR or vim.log.levels.WARN)
    return vim.NIL
  end
  local opts = {
    prompt = message,
    kind = 'agentls_ask',
    format_item = function(a)
      return (a.title:gsub('\r?\n', ' '))
    end,
  }
  local choice = choose(actions, opts, message)
  if type(choice) ~= 'table' or type(choice.title) ~= 'string' then
    return vim.NIL
  end
  return { title = choice.title }
end

-- question answers agentls/question, the agent's question to you (User
-- AgentlsQuestion fires at each wait for you): a choice over the options
-- (one at a time, then "Done", when several may be chosen), typed text
-- when there are none. The result is {answer = text} or {chosen = {…}};
-- {answer = vim.NIL} when dismissed.
function M.question(_, params, _)
  params = params or {}
  local question = tostring(params.question or '')
  local options = util.list(params.options, function(o)
    return type(o) == 'string' and o or nil
  end)
  local prompt = 'agentls asks: ' .. question
  if #options == 0 then
    local text = type_in(prompt .. ' ', question)
    if type(text) ~= 'string' or text == '' then
      return { answer = vim.NIL }
    end
    return { answer = text }
  end
  local chosen = {}
  local left = vim.deepcopy(options)
  repeat
    local items = vim.deepcopy(left)
    local p = prompt
    if params.multi then
      if #chosen > 0 then
        p = p .. ' (chosen: ' .. table.concat(chosen, ', ') .. ')'
      end
      table.insert(items, done_item)
    end
    local pick = choose(items, { prompt = p, kind = 'agentls_question' }, question)
    if type(pick) ~= 'string' or pick == done_item then
      break
    end
    table.insert(chosen, pick)
    for i, o in ipairs(left) do
      if o == pick then
        table.remove(left, i)
        break
      end
    end
  until not params.multi or #left == 0
  if #chosen == 0 then
    return { answer = vim.NIL }
  end
  return { chosen = chosen }
end

-- file_path returns the absolute path of a file buffer, or nil for other
-- buffers (help, terminals, scratch, URLs such as fugitive://).
function M.file_path(buf)
  if not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_buf_is_loaded(buf) then
    return nil
  end
  if vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return util.normalize(name)
end

-- find_buffer returns the loaded buffer showing uri.
local function find_buffer(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  fname = ok and util.normalize(fname) or nil
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      if vim.uri_from_bufnr(b) == uri or (fname and M.file_path(b) == fname) then
        return b
      end
    end
  end
end

-- save answers agentls/saveDocument: it writes that one buffer (it must
-- be attached to this client) and replies {saved = true} when the buffer
-- then has no unsaved changes.
function M.save(_, params, ctx)
  local uri = params and params.textDocument and params.textDocument.uri
  local buf = type(uri) == 'string' and find_buffer(uri) or nil
  if not buf or not vim.lsp.buf_is_attached(buf, ctx.client_id) then
    return { saved = false }
  end
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent keepalt update')
  end)
  if not ok then
    util.notify('agentls: could not save ' .. vim.api.nvim_buf_get_name(buf) .. ': ' .. tostring(err), vim.log.levels.WARN)
    return { saved = false }
  end
  return { saved = not vim.bo[buf].modified }
end

-- show_document implements window/showDocument where Neovim lacks it
-- (before 0.8).
function M.show_document(_, params, _)
  if not params or type(params.uri) ~= 'string' or params.external then
    return { success = false }
  end
  local ok, fname = pcall(vim.uri_to_fname, params.uri)
  if not ok then
    return { success = false }
  end
  local from = vim.api.nvim_get_current_win()
  local shown
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if util.normalize(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))) == util.normalize(fname) then
      shown = w
    end
  end
  local opened = pcall(function()
    if shown then
      vim.api.nvim_set_current_win(shown)
      vim.cmd('silent! edit')
    else
      vim.cmd('botright split ' .. vim.fn.fnameescape(fname))
    end
    local sel = params.selection
    if sel and sel.start then
      pcall(vim.api.nvim_win_set_cursor, 0, { sel.start.line + 1, sel.start.character })
    end
  end)
  if opened and not params.takeFocus and vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
  pcall(vim.cmd, 'redraw')
  return { success = opened }
end

-- show_message shows the server's messages (the turn's answer, a deny,
-- what a revert restored) with vim.notify, so notification plugins get them.
function M.show_message(_, params, _)
  if not params then
    return
  end
  if params.type == 1 and tostring(params.message):find('config file .- did not load') then
    -- For :checkhealth agentls.
    require('agentls.state').config_problem = (tostring(params.message):gsub('^agentls: ', ''))
  end
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  util.notify(util.reword(params.message), levels[params.type] or vim.log.levels.INFO)
end

return M
