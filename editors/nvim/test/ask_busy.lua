-- Scenario: a second ask while a turn runs is refused; agentls.cancel ends
-- the turn; a new ask then starts; quitting during that turn still shuts
-- the server down cleanly. The model is an OpenAI-compatible endpoint that
-- never answers (the Go test serves it), so the turns really are running.
--
-- Environment:
--   AGENTLS_E2E_BIN, AGENTLS_E2E_ROOT, AGENTLS_E2E_MODEL, AGENTLS_E2E_FILE,
--   AGENTLS_E2E_RESULT as in ask_unsaved.lua.
--   AGENTLS_E2E_MODEL_SEEN  file where the model endpoint writes how many
--                           requests it has received
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

-- model_requests is the number the model endpoint last wrote.
local function model_requests()
  local f = io.open(h.env('AGENTLS_E2E_MODEL_SEEN'))
  if not f then
    return 0
  end
  local n = tonumber(f:read('*a')) or 0
  f:close()
  return n
end

h.run(function(rec)
  local root = h.env('AGENTLS_E2E_ROOT')
  local client_id = h.start(rec, {
    cmd = { h.env('AGENTLS_E2E_BIN'), 'serve', '--stdio' },
    root_dir = root,
    init_options = { model = h.env('AGENTLS_E2E_MODEL') },
  })
  local buf = h.open(rec, client_id, root .. '/' .. h.env('AGENTLS_E2E_FILE'))
  h.wait_initialized(rec, 10000)

  rec.first = h.execute(rec, buf, client_id, 'agentls.ask', { prompt = 'think for a long time' }, 10000)
  if rec.first.error then
    error('first agentls.ask failed: ' .. tostring(rec.first.error.message))
  end
  h.wait(rec, 10000, function() return model_requests() >= 1 end, 'first turn waiting on the model')

  rec.second = h.execute(rec, buf, client_id, 'agentls.ask', { prompt = 'second question' }, 10000)

  rec.cancel = h.execute(rec, buf, client_id, 'agentls.cancel', { turnId = rec.first.result.turnId }, 10000)
  h.wait(rec, 15000, function() return (rec.turn_ends or 0) >= 1 and #rec.shows >= 1 end,
    'cancelled turn_end and showMessage')

  rec.third = h.execute(rec, buf, client_id, 'agentls.ask', { prompt = 'again' }, 10000)
  if rec.third.error then
    error('agentls.ask after cancel failed: ' .. tostring(rec.third.error.message))
  end
  h.wait(rec, 10000, function() return model_requests() >= 2 end, 'third turn waiting on the model')
  -- Stop the client while the third turn waits for the model.
  h.stop(rec, client_id, 5000)
end)
