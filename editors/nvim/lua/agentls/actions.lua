-- The server's code actions run agentls.ask; the plugin runs them itself
-- (a client-side command) so you see and can change the prompt first:
-- "Ask agent about selection" asks for your question, "Fix with agent"
-- shows its prompt for editing. An empty answer asks nothing.
local M = {}

-- asks_question tells a code action that wants your question from one
-- that carries its own prompt.
local function asks_question(command, args)
  if type(args.prompt) ~= 'string' or not args.prompt:match('%S') then
    return true
  end
  return tostring(command.title or ''):lower():find('selection', 1, true) ~= nil
end

--- ask is the client-side agentls.ask command: fn(command, ctx).
function M.ask(command, ctx)
  local args = (type(command.arguments) == 'table' and command.arguments[1]) or {}
  local question = asks_question(command, args)
  vim.ui.input({
    prompt = question and 'Ask about the selection: ' or 'Ask agent: ',
    default = question and '' or args.prompt,
  }, function(input)
    if input and input:match('%S') then
      require('agentls').ask(input, {
        client_id = ctx.client_id,
        bufnr = ctx.bufnr,
        uri = args.uri,
        lsp_range = args.range,
      })
    end
  end)
end

return M
