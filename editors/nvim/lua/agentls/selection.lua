-- A command's range as an LSP range (UTF-16 columns): the characters of a
-- charwise Visual selection, else whole lines.
local M = {}

-- utf16 counts the UTF-16 code units of the first `bytes` bytes of line.
local function utf16(line, bytes)
  local units, i = 0, 1
  bytes = math.min(bytes, #line)
  while i <= bytes do
    local c = line:byte(i)
    local len = c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
    units = units + (len == 4 and 2 or 1)
    i = i + len
  end
  return units
end

local function char_len(line, col)
  local c = line:byte(col + 1)
  if not c then
    return 0
  end
  return c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
end

-- range turns a command range (line1, line2, 1-based) into an
-- LSP range: the characters of a charwise visual selection when the
-- command was given one ('<,'> of a `v` selection), else whole lines.
function M.range(buf, line1, line2)
  local function line(n)
    return vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1] or ''
  end
  local s = vim.api.nvim_buf_get_mark(buf, '<')
  local e = vim.api.nvim_buf_get_mark(buf, '>')
  if vim.fn.visualmode() == 'v' and s[1] == line1 and e[1] == line2 then
    local last = line(line2)
    local end_byte = math.min(e[2] + char_len(last, math.min(e[2], #last)), #last)
    if vim.o.selection == 'exclusive' then
      end_byte = math.min(e[2], #last)
    end
    return {
      start = { line = line1 - 1, character = utf16(line(line1), s[2]) },
      ['end'] = { line = line2 - 1, character = utf16(last, end_byte) },
    }
  end
  local last = line(line2)
  return {
    start = { line = line1 - 1, character = 0 },
    ['end'] = { line = line2 - 1, character = utf16(last, #last) },
  }
end

return M
