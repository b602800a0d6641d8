-- Scenario: :helptags on the plugin's doc folder (a copy, given as
-- $AGENTLS_PLUGIN_DOC), then :help for each tag in $AGENTLS_PLUGIN_TAGS
-- (comma-separated): it records the help file and the line each opens at.
-- Then :checkhealth agentls, whose report it records.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local doc = h.env('AGENTLS_PLUGIN_DOC')
  vim.opt.runtimepath:prepend(vim.fn.fnamemodify(doc, ':h'))
  vim.cmd('helptags ' .. vim.fn.fnameescape(doc))
  h.step(rec, 'helptags')
  rec.help = {}
  for _, tag in ipairs(vim.split(h.env('AGENTLS_PLUGIN_TAGS'), ',', { plain = true })) do
    local ok, err = pcall(vim.cmd, 'help ' .. tag)
    local entry = { tag = tag, ok = ok, error = not ok and tostring(err) or nil }
    if ok then
      entry.file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t')
      entry.line = vim.api.nvim_get_current_line()
    end
    table.insert(rec.help, entry)
    pcall(vim.cmd, 'helpclose')
  end
  vim.cmd('checkhealth agentls')
  rec.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  h.step(rec, 'checkhealth')
end)
