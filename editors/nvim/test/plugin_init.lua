-- The minimal init.lua of the plugin tests (nvim -u plugin_init.lua): it
-- puts editors/nvim on 'runtimepath' and calls setup(), as a person's
-- config would. The only stub is the prompt UI: vim.ui.select answers with
-- the titles in $AGENTLS_PLUGIN_ANSWERS (comma-separated, in order; an
-- empty or missing title dismisses; #N picks the N-th item, for titles a
-- test cannot know, such as a time) and records how it was called. With
-- $AGENTLS_PLUGIN_ASYNC_SELECT=1 it answers 50 ms later from a timer, like
-- an asynchronous picker (telescope, dressing) would. vim.ui.input answers
-- with the texts in $AGENTLS_PLUGIN_INPUTS (comma-separated, in order;
-- empty or missing cancels; <default> confirms the default text, <enter>
-- an empty line) and records its prompts and defaults. The answer <never>
-- never calls back, like a broken picker; its callback is kept in
-- _G.agentls_test.never. Each select also records the windows open then
-- (buffer name, buftype, text).
--
-- Environment: AGENTLS_PLUGIN_RTP (editors/nvim), AGENTLS_E2E_BIN (the
-- cmd; with AGENTLS_PLUGIN_FIND=1 setup() gets no cmd and the plugin finds
-- agentls itself), AGENTLS_E2E_MODEL, optional AGENTLS_PLUGIN_MODE
-- (permissions.mode), AGENTLS_PLUGIN_REVIEW=0 (setup review = false),
-- AGENTLS_PLUGIN_ASK_UI (setup ask_ui), AGENTLS_PLUGIN_ASK_TIMEOUT (setup
-- ask_timeout), AGENTLS_PLUGIN_TYPO (an unknown option, set to 'x'),
-- AGENTLS_PLUGIN_NO_STUB=1 (keep Neovim's own vim.ui.select).
vim.opt.runtimepath:prepend(vim.env.AGENTLS_PLUGIN_RTP)

_G.agentls_test = { selects = {}, inputs = {}, never = {} }

-- windows lists the open windows as {name, buftype, text}.
function _G.agentls_test.windows()
  local out = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local b = vim.api.nvim_win_get_buf(w)
    table.insert(out, { name = vim.api.nvim_buf_get_name(b), buftype = vim.bo[b].buftype,
      text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') })
  end
  return out
end

local inputs = vim.split(vim.env.AGENTLS_PLUGIN_INPUTS or '', ',', { plain = true })

vim.ui.input = function(opts, on_confirm)
  opts = opts or {}
  local answer = table.remove(inputs, 1) or ''
  table.insert(_G.agentls_test.inputs, { prompt = opts.prompt, default = opts.default, answer = answer })
  if answer == '<default>' then
    on_confirm(opts.default or '')
  elseif answer == '<enter>' then
    on_confirm('')
  elseif answer == '' then
    on_confirm(nil)
  else
    on_confirm(answer)
  end
end

local answers = vim.split(vim.env.AGENTLS_PLUGIN_ANSWERS or 'Allow', ',', { plain = true })

local function select(items, opts, on_choice)
  opts = opts or {}
  local titles = {}
  for i, item in ipairs(items) do
    titles[i] = opts.format_item and opts.format_item(item) or tostring(item)
  end
  local answer = table.remove(answers, 1) or ''
  table.insert(_G.agentls_test.selects, {
    prompt = opts.prompt,
    kind = opts.kind,
    titles = titles,
    answer = answer,
    status = require('agentls').status(),
    windows = _G.agentls_test.windows(),
  })
  if answer == '<never>' then
    table.insert(_G.agentls_test.never, function(i)
      on_choice(items[i], i)
    end)
    return
  end
  local pick = tonumber(answer:match('^#(%d+)$') or '')
  for i, title in ipairs(titles) do
    if title == answer then
      pick = i
    end
  end
  if pick and not items[pick] then
    pick = nil
  end
  local function reply()
    if pick then
      on_choice(items[pick], pick)
    else
      on_choice(nil, nil)
    end
  end
  if vim.env.AGENTLS_PLUGIN_ASYNC_SELECT == '1' then
    vim.defer_fn(reply, 50)
  else
    reply()
  end
end

if vim.env.AGENTLS_PLUGIN_NO_STUB ~= '1' then
  vim.ui.select = select
end

local mode = vim.env.AGENTLS_PLUGIN_MODE
local ask_ui = vim.env.AGENTLS_PLUGIN_ASK_UI
local opts = {
  review = vim.env.AGENTLS_PLUGIN_REVIEW ~= '0',
  ask_ui = (ask_ui and ask_ui ~= '') and ask_ui or nil,
  cmd = vim.env.AGENTLS_PLUGIN_FIND ~= '1' and { vim.env.AGENTLS_E2E_BIN, 'serve', '--stdio' } or nil,
  model = vim.env.AGENTLS_E2E_MODEL,
  permissions = (mode and mode ~= '') and { mode = mode } or nil,
  ask_timeout = tonumber(vim.env.AGENTLS_PLUGIN_ASK_TIMEOUT or ''),
}
-- AGENTLS_PLUGIN_TYPO: an option name setup() does not know, as a typo.
if vim.env.AGENTLS_PLUGIN_TYPO and vim.env.AGENTLS_PLUGIN_TYPO ~= '' then
  opts[vim.env.AGENTLS_PLUGIN_TYPO] = 'x'
end
require('agentls').setup(opts)
