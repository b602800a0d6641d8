-- The server's code actions run agentls.ask; the plugin runs them itself
-- (a client-side command) so you see the prompt first. "Ask agent about
-- selection…" and "… this line…" (editPrompt) ask for your question, and
-- Enter alone sends the server's question; "Fix with agent" shows its
-- prompt for you to change or confirm. <Esc> asks nothing.
local M = {}

-- hint shortens the canned prompt for the input's prompt line.
local function hint(prompt)
  prompt = tostring(prompt or '')
  if vim.fn.strchars(prompt) > 40 then
    prompt = vim.fn.strcharpart(prompt, 0, 39) .. '…'
  end
  return prompt
end

--- ask is the client-side agentls.ask command: fn(command, ctx).
function M.ask(command, ctx)
  local args = (type(command.arguments) == 'table' and command.arguments[1]) or {}
  local title = tostring(command.title or 'Ask agent'):gsub('…$', '')
  local canned = type(args.prompt) == 'string' and args.prompt or ''
  local question = args.editPrompt == true or not canned:match('%S')
  local input = { prompt = title .. ': ', default = canned }
  if question then
    input = { prompt = string.format('%s, your question (Enter alone: "%s"): ', title, hint(canned)), default = '' }
  end
  vim.ui.input(input, function(text)
    if text == nil then
      return
    end
    if not text:match('%S') then
      if not question or not canned:match('%S') then
        return
      end
      text = canned
    end
    require('agentls').ask(text, {
      client_id = ctx.client_id,
      bufnr = ctx.bufnr,
      uri = args.uri,
      lsp_range = args.range,
    })
  end)
end

return M
