-- The agentls/event contract as the plugin reads it: every field of
-- docs/events.schema.json (the one description of the events, which the
-- server's and the VS Code extension's tests read too) with the Lua type
-- it decodes to. test/events_schema.lua checks this table against the
-- schema and that the plugin reads no field outside it.
local M = {}

-- fields: name → Lua type ('any' for a tool's raw input).
M.fields = {
  type = 'string',
  session_id = 'string',
  turn_id = 'string',
  parent_id = 'string',
  text = 'string',
  id = 'string', -- the tool call's id, on tool_call, permission and tool_result
  name = 'string',
  title = 'string',
  input = 'any',
  is_error = 'boolean',
  content = 'string',
  diff = 'string',
  hunks = 'table', -- the change as data: { path, old_start, new_start, old, new, created }
  kind = 'string', -- read, edit, delete, move, search, execute, fetch, think, other
  reason = 'string',
  message = 'string',
  tool = 'string',
  capability = 'string',
  scope = 'string',
  decision = 'string',
  source = 'string',
  rule = 'string',
  channel = 'string',
  event = 'string',
  command = 'string',
  exit_code = 'number',
  duration_ms = 'number',
  usage = 'table',
  turn_usage = 'table',
  session_usage = 'table',
  todos = 'table',
  files = 'table', -- instructions: the project instruction files (AGENTS.md …)
  model = 'string', -- turn_start: the turn's model; model: the one the session switched to
}

--- checked keeps the fields of an event that the contract names, with the
--- type it gives them: the rest of the plugin can trust a field's type.
function M.checked(ev)
  local out = {}
  for k, v in pairs(ev) do
    local want = M.fields[k]
    if want == 'any' or (want ~= nil and type(v) == want) then
      out[k] = v
    end
  end
  return out
end

return M
