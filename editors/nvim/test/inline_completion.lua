-- Scenario: inline completion from agentls's completion model (a loopback
-- fill-in-the-middle server). On every Neovim the scenario asks
-- textDocument/inlineCompletion itself at the empty line of Add's body;
-- on 0.12, which renders inline completion natively, it enables
-- vim.lsp.inline_completion, enters Insert mode on that line, waits for
-- the ghost text (an extmark of nvim.lsp.inline_completion) and accepts it
-- with vim.lsp.inline_completion.get(); then renames Add's parameter and
-- accepts agentls's next edit, the parameter's other use, the same way.
--
-- Environment: AGENTLS_E2E_BIN, AGENTLS_E2E_ROOT, AGENTLS_E2E_FILE,
-- AGENTLS_E2E_FIM_URL (the server's OpenAI-compatible base URL),
-- AGENTLS_E2E_RESULT.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run_co(function(rec)
  local root = h.env('AGENTLS_E2E_ROOT')
  local client_id = h.start(rec, {
    cmd = { h.env('AGENTLS_E2E_BIN'), 'serve', '--stdio' },
    root_dir = root,
    init_options = {
      completion = { model = 'fim:coder' },
      providers = { fim = { base_url = h.env('AGENTLS_E2E_FIM_URL') } },
    },
  })
  local buf = h.open(rec, client_id, root .. '/' .. h.env('AGENTLS_E2E_FILE'))
  h.wait_initialized(rec, 10000)
  local client = vim.lsp.get_client_by_id(client_id)
  rec.inline_capability = client.server_capabilities.inlineCompletionProvider

  -- Line 5 (0-based 4) is Add's empty body: a tab.
  local reply
  vim.lsp.buf_request(buf, 'textDocument/inlineCompletion', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 4, character = 1 },
    context = { triggerKind = 1 },
  }, function(err, result)
    reply = { error = err and err.message or nil, result = result }
  end)
  h.wait(rec, 10000, function() return reply ~= nil end, 'inlineCompletion reply')
  rec.request = reply

  if vim.lsp.inline_completion then
    rec.native = true
    local ns = vim.api.nvim_create_namespace('nvim.lsp.inline_completion')
    vim.lsp.inline_completion.enable(true, { bufnr = buf })
    vim.api.nvim_win_set_cursor(0, { 5, 0 })
    vim.api.nvim_input('A')
    h.wait(rec, 10000, function()
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
        local chunks = m[4].virt_text or {}
        if chunks[1] then
          rec.ghost = chunks[1][1]
          rec.ghost_row = m[2]
          return true
        end
      end
      return false
    end, 'ghost text')
    rec.line_before_accept = vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1]
    rec.accepted = vim.lsp.inline_completion.get()
    h.wait(rec, 5000, function()
      return vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1] ~= rec.line_before_accept
    end, 'the ghost text accepted')
    rec.line_after_accept = vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1]

    -- The next edit: rename Add's a to x (line 4, 0-based 3); asked
    -- after the rename, agentls's item is the other use of a, on line 5,
    -- shown over it and accepted in its place.
    vim.api.nvim_buf_set_text(buf, 3, 9, 3, 10, { 'x' })
    vim.api.nvim_win_set_cursor(0, { 4, 10 })
    vim.lsp.inline_completion.get()
    h.wait(rec, 10000, function()
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
        local chunks = m[4].virt_text or {}
        if chunks[1] and m[2] == 4 then
          rec.next_ghost = chunks[1][1]
          rec.next_row, rec.next_col = m[2], m[3]
          return true
        end
      end
      return false
    end, 'the next edit shown')
    rec.next_accepted = vim.lsp.inline_completion.get()
    h.wait(rec, 5000, function()
      return vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1] ~= rec.line_after_accept
    end, 'the next edit accepted')
    rec.line_after_next = vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1]
    vim.api.nvim_input('<Esc>')
  end
  h.stop(rec, client_id, 5000)
end, 40000)
