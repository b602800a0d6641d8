-- Scenario: the plugin's plugin/agentls.lua is sourced from a copy of the
-- plugin (doc/ given as $AGENTLS_PLUGIN_DOC) without :helptags, as a plugin
-- manager's local folder loads it, then :help for each tag in $AGENTLS_PLUGIN_TAGS
-- (comma-separated): it records the help file and the line each opens at.
-- Then :checkhealth agentls, whose report it records.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')

h.run(function(rec)
  local doc = h.env('AGENTLS_PLUGIN_DOC')
  vim.opt.runtimepath:prepend(vim.fn.fnamemodify(doc, ':h'))
  vim.g.loaded_agentls = nil
  vim.cmd('source ' .. vim.fn.fnameescape(vim.fn.fnamemodify(doc, ':h') .. '/plugin/agentls.lua'))
  h.step(rec, 'plugin sourced')
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
  rec.health = h.health('agentls')
  h.step(rec, 'checkhealth')
end)
