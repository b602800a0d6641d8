package editmatch

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// bom is the UTF-8 byte order mark; it is kept but never matched.
const bom = "\uFEFF"

// splitBOM separates a leading byte order mark from the body.
func splitBOM(content string) (mark, body string) {
	if strings.HasPrefix(content, bom) {
		return bom, content[len(bom):]
	}
	return "", content
}

// majorityEOL is the line ending new lines get: CRLF when most line breaks
// are CRLF, LF otherwise; a tie goes to the first line's ending.
func majorityEOL(body string) string {
	crlf := strings.Count(body, "\r\n")
	if crlf == 0 {
		return "\n"
	}
	lf := strings.Count(body, "\n") - crlf
	if crlf > lf || (crlf == lf && strings.HasSuffix(body[:strings.IndexByte(body, '\n')], "\r")) {
		return "\r\n"
	}
	return "\n"
}

// withEOL writes the line breaks of an LF-normalized string as eol.
func withEOL(s, eol string) string {
	if eol == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", eol)
}

// lfView is body with every CRLF turned into LF, so LF-only old_strings
// match CRLF files; crs holds, ascending, the view offsets of the LFs that
// had a CR, which is what maps view offsets back to body offsets.
type lfView struct {
	s   string
	crs []int
}

func newLFView(body string) lfView {
	n := strings.Count(body, "\r\n")
	if n == 0 {
		return lfView{s: body}
	}
	var b strings.Builder
	b.Grow(len(body) - n)
	crs := make([]int, 0, n)
	for {
		i := strings.Index(body, "\r\n")
		if i < 0 {
			break
		}
		b.WriteString(body[:i])
		crs = append(crs, b.Len())
		b.WriteByte('\n')
		body = body[i+2:]
	}
	b.WriteString(body)
	return lfView{s: b.String(), crs: crs}
}

// bodyOffset maps a view offset to the body. A CR sits just before its LF,
// so an offset at that LF maps to before the CR: a CRLF is never split.
func (v lfView) bodyOffset(off int) int {
	return off + sort.SearchInts(v.crs, off)
}

// text is a file body split into lines without copying. A final line
// break does not start another line, so "a\n" has one line.
type text struct {
	body   string
	starts []int
}

func splitLines(body string) *text {
	t := &text{body: body, starts: make([]int, 0, strings.Count(body, "\n")+1)}
	for off := 0; off < len(body); {
		t.starts = append(t.starts, off)
		i := strings.IndexByte(body[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return t
}

// n is the number of lines.
func (t *text) n() int { return len(t.starts) }

// end is the offset just after line i's line break.
func (t *text) end(i int) int {
	if i+1 < len(t.starts) {
		return t.starts[i+1]
	}
	return len(t.body)
}

// textEnd is the offset where line i's line break starts.
func (t *text) textEnd(i int) int {
	e := t.end(i)
	if e > t.starts[i] && t.body[e-1] == '\n' {
		e--
		if e > t.starts[i] && t.body[e-1] == '\r' {
			e--
		}
	}
	return e
}

// line is line i without its line break.
func (t *text) line(i int) string { return t.body[t.starts[i]:t.textEnd(i)] }

// eol is line i's line break: "\n", "\r\n" or "" for a last line without.
func (t *text) eol(i int) string { return t.body[t.textEnd(i):t.end(i)] }

// isSpaceAt reports whether a whitespace character starts at s[i], and its
// size. Only unicode.IsSpace counts, the same set strings.Fields uses.
func isSpaceAt(s string, i int) (bool, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f', 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), size
}

// skipSpace returns the offset of the first non-whitespace at or after i.
func skipSpace(s string, i int) int {
	for i < len(s) {
		sp, size := isSpaceAt(s, i)
		if !sp {
			break
		}
		i += size
	}
	return i
}

// isBlank reports whether s is empty or only whitespace.
func isBlank(s string) bool { return skipSpace(s, 0) == len(s) }

// squeeze is s with whitespace runs collapsed to one space and the ends
// trimmed: the form in which fuzzy matching compares lines.
func squeeze(s string) string {
	return string(appendSqueezed(nil, s))
}

// appendSqueezed appends squeeze(s) to b without allocating a string.
func appendSqueezed(b []byte, s string) []byte {
	for i := skipSpace(s, 0); i < len(s); {
		if sp, _ := isSpaceAt(s, i); sp {
			if i = skipSpace(s, i); i < len(s) {
				b = append(b, ' ')
			}
			continue
		}
		b = append(b, s[i])
		i++
	}
	return b
}

// sameSqueezed reports whether squeeze(s) == key without allocating; it
// is the inner loop of fuzzy matching.
func sameSqueezed(s, key string) bool {
	k := 0
	for i := skipSpace(s, 0); i < len(s); {
		if sp, _ := isSpaceAt(s, i); sp {
			if i = skipSpace(s, i); i == len(s) {
				break
			}
			if k == len(key) || key[k] != ' ' {
				return false
			}
			k++
			continue
		}
		if k == len(key) || key[k] != s[i] {
			return false
		}
		i++
		k++
	}
	return k == len(key)
}

// indentOf is the leading run of blanks and tabs of s: the indentation.
func indentOf(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}
