-- The minimal init.lua of the plugin tests (nvim -u plugin_init.lua): it
-- puts editors/nvim on 'runtimepath' and calls setup(), as a person's
-- config would. The only stub is the prompt UI: vim.ui.select answers with
-- the titles in $AGENTLS_PLUGIN_ANSWERS (comma-separated, in order; an
-- empty or missing title dismisses) and records how it was called. With
-- $AGENTLS_PLUGIN_ASYNC_SELECT=1 it answers 50 ms later from a timer, like
-- an asynchronous picker (telescope, dressing) would. vim.ui.input answers
-- with the texts in $AGENTLS_PLUGIN_INPUTS (comma-separated, in order;
-- empty or missing cancels) and records its prompts.
--
-- Environment: AGENTLS_PLUGIN_RTP (editors/nvim), AGENTLS_E2E_BIN (the
-- cmd; with AGENTLS_PLUGIN_FIND=1 setup() gets no cmd and the plugin finds
-- agentls itself), AGENTLS_E2E_MODEL, optional AGENTLS_PLUGIN_MODE
-- (permissions.mode).
vim.opt.runtimepath:prepend(vim.env.AGENTLS_PLUGIN_RTP)

_G.agentls_test = { selects = {}, inputs = {} }

local inputs = vim.split(vim.env.AGENTLS_PLUGIN_INPUTS or '', ',', { plain = true })

vim.ui.input = function(opts, on_confirm)
  local answer = table.remove(inputs, 1) or ''
  table.insert(_G.agentls_test.inputs, { prompt = (opts or {}).prompt, answer = answer })
  if answer == '' then
    on_confirm(nil)
  else
    on_confirm(answer)
  end
end

local answers = vim.split(vim.env.AGENTLS_PLUGIN_ANSWERS or 'Allow', ',', { plain = true })

vim.ui.select = function(items, opts, on_choice)
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
  })
  local pick
  for i, title in ipairs(titles) do
    if title == answer then
      pick = i
    end
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

local mode = vim.env.AGENTLS_PLUGIN_MODE
require('agentls').setup({
  cmd = vim.env.AGENTLS_PLUGIN_FIND ~= '1' and { vim.env.AGENTLS_E2E_BIN, 'serve', '--stdio' } or nil,
  model = vim.env.AGENTLS_E2E_MODEL,
  permissions = (mode and mode ~= '') and { mode = mode } or nil,
})
