package editmatch

import (
	"errors"
	"strings"
	"testing"
)

// FuzzApply builds a random file and a random edit of one block of it, the
// way a model would quote it (other indentation, shifted, trailing blanks,
// collapsed blank lines, CRLF, with or without final newline), together
// with the intended result computed independently of the matcher. Apply
// must return exactly the intended text or an error; it must never change
// the file outside the block.
func FuzzApply(f *testing.F) {
	for _, seed := range []string{
		"", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
		"\x01\x01\x01\x10\x05\x02\x07\x01\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d",
		"\x02\x02\x00\x18\x02\x01\x01\x09\x09\x09\x09\x09\x03\x02\x01\x00\x03\x02\x01",
		"\x00\x00\x03\x09\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04\x04",
		"\x01\x02\x01\x16\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, ok := genCase(&chooser{data: data})
		if !ok {
			return
		}
		checkCase(t, c)
	})
}

// chooser turns fuzz bytes into choices; once the bytes run out every
// choice is 0, which still gives a valid (small) case.
type chooser struct {
	data []byte
	pos  int
}

func (c *chooser) intn(n int) int {
	if n <= 1 || c.pos >= len(c.data) {
		return 0
	}
	b := c.data[c.pos]
	c.pos++
	return int(b) % n
}

func (c *chooser) oneIn(n int) bool { return c.intn(n) == 0 }

// genUnit is an indentation unit of the generator, kept apart from the
// matcher's style type so the oracle does not share its code.
type genUnit struct {
	tab   bool
	width int
}

func (u genUnit) render(depth int) string {
	if u.tab {
		return strings.Repeat("\t", depth)
	}
	return strings.Repeat(" ", depth*u.width)
}

var genUnits = []genUnit{{tab: true}, {width: 2}, {width: 4}, {width: 8}, {width: 3}}

// genLine is a line as structure: depth and text ("" for a blank line).
type genLine struct {
	depth int
	text  string
}

var vocabulary = []string{
	"x()", "y := 1", "}", "if a {", "return x", "foo(a, b)", "café := \"é\"", "s := \"😀\"",
	"漢字 テスト", "x  = 1", "a\tb", "else {", "i++", "// comment", "z",
}

// fuzzCase is a file, an edit, and the result the edit should produce.
type fuzzCase struct {
	content string
	edit    Edit
	want    string
	// head and tail must survive any successful edit unchanged.
	head, tail string
}

// genCase generates a case; ok is false for cases without a defined
// intended result (old_string happens to occur exactly somewhere else).
func genCase(c *chooser) (fuzzCase, bool) {
	fileUnit := genUnits[c.intn(3)]
	eolMode := c.intn(3) // LF, CRLF, mixed
	mark := ""
	if c.oneIn(4) {
		mark = bom
	}
	finalNL := !c.oneIn(4)

	lines := genFile(c)
	i := c.intn(len(lines))
	j := i + 1 + c.intn(min(6, len(lines)-i))
	block := lines[i:j]
	if allBlank(block) {
		return fuzzCase{}, false
	}
	newBlock := genNew(c, block)

	eols := make([]string, len(lines))
	for k := range eols {
		switch {
		case eolMode == 1 || (eolMode == 2 && c.oneIn(2)):
			eols[k] = "\r\n"
		default:
			eols[k] = "\n"
		}
	}
	if !finalNL && lines[len(lines)-1].text != "" {
		// (an empty last line without a line break is no line at all)
		eols[len(eols)-1] = ""
	}
	raw := make([]string, len(lines)) // file lines without line breaks
	for k, l := range lines {
		raw[k] = renderLine(fileUnit, 0, l)
		if (k < i || k >= j) && l.text != "" && c.oneIn(6) {
			raw[k] += []string{" ", "  ", "\t"}[c.intn(3)] // junk outside the block
		}
	}

	// How the model writes the block.
	modelUnit := genUnits[c.intn(len(genUnits))]
	if c.oneIn(3) {
		modelUnit = fileUnit
	}
	shift := c.intn(3) - minDepth(block, newBlock)
	if c.oneIn(3) {
		shift = 0
	}
	identity := true
	for _, l := range block {
		identity = identity && (l.text == "" || renderLine(modelUnit, shift, l) == renderLine(fileUnit, 0, l))
	}
	// The intended new text is written in the file's style; when the file
	// indents nothing, the model's style is all there is to go by.
	targetUnit, targetShift := fileUnit, 0
	if !fileIndents(lines) {
		targetUnit = modelUnit
	}
	newUnit, newShift := modelUnit, shift
	if identity {
		// old_string shows the file's own indentation, so a model writes
		// new_string in it too; anything else has no defined intent.
		newUnit, newShift = targetUnit, targetShift
	}

	oldLines := make([]string, len(block))
	for k, l := range block {
		oldLines[k] = renderLine(modelUnit, shift, l)
		if l.text != "" && c.oneIn(4) {
			oldLines[k] += []string{" ", "  ", "\t"}[c.intn(3)]
		}
		if c.oneIn(4) { // widen a blank inside the text, not the indentation
			ind := indentOf(oldLines[k])
			oldLines[k] = ind + strings.Replace(oldLines[k][len(ind):], " ", "  ", 1)
		}
	}
	if c.oneIn(3) {
		oldLines = collapseBlankRuns(oldLines)
	}
	newLines := make([]string, len(newBlock))
	for k, l := range newBlock {
		newLines[k] = renderLine(newUnit, newShift, l)
	}
	// A final newline: old_string needs one to end in a blank line, and
	// new_string then needs one too; without one in old_string, a final
	// newline in new_string would add an empty line, so there is none.
	oldNL := block[len(block)-1].text == "" || (len(newBlock) == 1 && newBlock[0].text == "") || c.oneIn(2)
	old := joinModel(c, oldLines, oldNL)
	repl := ""
	if len(newBlock) > 0 {
		repl = joinModel(c, newLines, oldNL && (newBlock[len(newBlock)-1].text == "" || c.oneIn(2)))
	}

	var body strings.Builder
	for k := range raw {
		body.WriteString(raw[k] + eols[k])
	}
	content := mark + body.String()
	fc := fuzzCase{content: content, edit: Edit{Old: old, New: repl}}

	// The oracle, from the structure above.
	eol := oracleEOL(eols)
	view := strings.ReplaceAll(body.String(), "\r\n", "\n")
	cleanOld := strings.ReplaceAll(old, "\r\n", "\n")
	blockAt := 0
	for k := 0; k < i; k++ {
		blockAt += len(raw[k]) + min(len(eols[k]), 1)
	}
	start := len(mark) + offsetOfLine(raw, eols, i)
	switch at := strings.Index(view, cleanOld); {
	case at >= 0 && at != blockAt:
		return fuzzCase{}, false // the model's text is elsewhere in the file: a different edit
	case at >= 0 && repl == "" && !strings.HasSuffix(cleanOld, "\n"):
		// exact delete of whole lines: the lines go, as in the fuzzy case
		fc.want, fc.head, fc.tail = deleteLines(content, start, len(mark)+offsetOfLine(raw, eols, j-1)+len(raw[j-1])+len(eols[j-1]), i, eols)
	case at >= 0: // exact: taken literally
		end := len(mark) + offsetOfLine(raw, eols, j-1) + len(raw[j-1])
		if strings.HasSuffix(cleanOld, "\n") {
			end += len(eols[j-1])
		}
		fc.want = content[:start] + strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", eol) + content[end:]
		fc.head, fc.tail = content[:start], content[end:]
	default: // fuzzy: whole lines, re-indented
		end := len(mark) + offsetOfLine(raw, eols, j-1) + len(raw[j-1]) + len(eols[j-1])
		if len(newBlock) == 0 {
			fc.want, fc.head, fc.tail = deleteLines(content, start, end, i, eols)
		} else {
			out := make([]string, len(newBlock))
			for k, l := range newBlock {
				out[k] = renderLine(targetUnit, targetShift, l)
			}
			fc.want = content[:start] + strings.Join(out, eol) + eols[j-1] + content[end:]
			fc.head, fc.tail = content[:start], content[end:]
		}
	}
	return fc, true
}

// deleteLines removes content[start:end], whole lines i.. with their line
// breaks; at the end of a file without a final newline the break before
// them goes instead, so the file still lacks one.
func deleteLines(content string, start, end, i int, eols []string) (want, head, tail string) {
	if end == len(content) && eols[len(eols)-1] == "" && i > 0 {
		start -= len(eols[i-1])
	}
	return content[:start] + content[end:], content[:start], content[end:]
}

// genFile makes 1 to 24 lines whose depth walks up and down by one level
// from 0 (from line to non-blank line), as in real code.
func genFile(c *chooser) []genLine {
	lines := make([]genLine, 1+c.intn(24))
	depth := 0
	for k := range lines {
		if c.oneIn(6) {
			continue // blank
		}
		depth = max(0, min(5, depth+c.intn(3)-1))
		lines[k] = genLine{depth: depth, text: vocabulary[c.intn(len(vocabulary))]}
		if n := c.intn(3); n > 0 {
			lines[k].text += strings.Repeat("'", n)
		}
	}
	return lines
}

// genNew derives new_string's lines from the block: lines kept, changed,
// removed or added one level around their neighbours; or nothing at all.
// Added lines are never shallower than the block: a line out of all of
// old_string's depths in a model's unknown unit has no defined depth
// (four spaces against two tabs: one level of 4 shifted, or two of 2?).
func genNew(c *chooser, block []genLine) []genLine {
	if c.oneIn(8) {
		return nil
	}
	floor := minDepth(block)
	var out []genLine
	for k, l := range block {
		switch c.intn(6) {
		case 0:
			continue
		case 1:
			if l.text != "" {
				l.text += " /* changed */"
			}
		case 2:
			out = append(out, l)
			d := max(floor, l.depth+c.intn(3)-1)
			l = genLine{depth: d, text: "inserted" + strings.Repeat("+", k)}
		}
		out = append(out, l)
	}
	return out
}

func renderLine(u genUnit, shift int, l genLine) string {
	if l.text == "" {
		return ""
	}
	return u.render(l.depth+shift) + l.text
}

// joinModel joins the model's lines, perhaps with CRLF.
func joinModel(c *chooser, lines []string, finalNL bool) string {
	sep := "\n"
	if c.oneIn(6) {
		sep = "\r\n"
	}
	s := strings.Join(lines, sep)
	if finalNL {
		s += sep
	}
	return s
}

func collapseBlankRuns(lines []string) []string {
	var out []string
	for k, l := range lines {
		if l == "" && k > 0 && lines[k-1] == "" && k < len(lines)-1 && hasTextAfter(lines[k:]) && hasTextBefore(lines[:k]) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func hasTextAfter(lines []string) bool  { return !allBlankStrings(lines) }
func hasTextBefore(lines []string) bool { return !allBlankStrings(lines) }

func allBlankStrings(lines []string) bool {
	for _, l := range lines {
		if l != "" {
			return false
		}
	}
	return true
}

func allBlank(lines []genLine) bool {
	for _, l := range lines {
		if l.text != "" {
			return false
		}
	}
	return true
}

func fileIndents(lines []genLine) bool {
	for _, l := range lines {
		if l.text != "" && l.depth > 0 {
			return true
		}
	}
	return false
}

func minDepth(blocks ...[]genLine) int {
	m := 1 << 30
	for _, b := range blocks {
		for _, l := range b {
			if l.text != "" {
				m = min(m, l.depth)
			}
		}
	}
	if m == 1<<30 {
		return 0
	}
	return m
}

// oracleEOL is the line ending written lines should get: the majority,
// ties going to the first line's.
func oracleEOL(eols []string) string {
	crlf, lf := 0, 0
	for _, e := range eols {
		switch e {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf || (crlf == lf && crlf > 0 && eols[0] == "\r\n") {
		return "\r\n"
	}
	return "\n"
}

func offsetOfLine(raw, eols []string, i int) int {
	off := 0
	for k := 0; k < i; k++ {
		off += len(raw[k]) + len(eols[k])
	}
	return off
}

// checkCase runs one case: an error is fine, any other outcome must be
// the intended text.
func checkCase(t *testing.T, c fuzzCase) {
	t.Helper()
	res, err := Apply(c.content, c.edit)
	if err != nil {
		for _, target := range []error{ErrNotFound, ErrAmbiguous, ErrNoChange, ErrEmptyOld, ErrIndent, ErrBlankLines} {
			if errors.Is(err, target) {
				return
			}
		}
		t.Fatalf("untyped error: %v", err)
	}
	if !strings.HasPrefix(res.Content, c.head) || !strings.HasSuffix(res.Content, c.tail) {
		t.Fatalf("text outside the block changed\nfile %q\nold  %q\nnew  %q\ngot  %q\nhead %q\ntail %q",
			c.content, c.edit.Old, c.edit.New, res.Content, c.head, c.tail)
	}
	if res.Content != c.want {
		t.Fatalf("wrong result\nfile %q\nold  %q\nnew  %q\ngot  %q\nwant %q", c.content, c.edit.Old, c.edit.New, res.Content, c.want)
	}
	checkOutside(t, c.content, res)
}

// TestApplyRandom runs the fuzz property on fixed pseudo-random inputs, so
// plain go test covers it, and checks the generator is not degenerate:
// most cases must apply, not just end in an error.
func TestApplyRandom(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var skipped, applied, refused int
	seed := uint64(1)
	for range n {
		data := make([]byte, 64)
		for k := range data {
			seed = seed*6364136223846793005 + 1442695040888963407 // LCG: reproducible, no shared state
			data[k] = byte(seed >> 56)
		}
		c, ok := genCase(&chooser{data: data})
		if !ok {
			skipped++
			continue
		}
		checkCase(t, c)
		if t.Failed() {
			return
		}
		if _, err := Apply(c.content, c.edit); err != nil {
			refused++
		} else {
			applied++
		}
	}
	t.Logf("%d cases: %d applied as intended, %d refused, %d skipped", n, applied, refused, skipped)
	if applied < n/2 {
		t.Errorf("only %d of %d cases applied; the generator is degenerate", applied, n)
	}
}

// FuzzRawBytes feeds arbitrary bytes (invalid UTF-8, stray CRs, BOMs in
// odd places): Apply must not panic, must fail only with its typed
// errors, and must leave the lines outside Changed as they were.
func FuzzRawBytes(f *testing.F) {
	f.Add("a\r\nb\n\tc\r", "b\n  c", "x", false)
	f.Add("\ufeff\t\tx\n\n\n y", "x\n\ny", "", true)
	f.Add("\xff\xfe\t\u00a0a\rb", "\u00a0a", "\t\tz\n", false)
	f.Fuzz(func(t *testing.T, content, old, repl string, all bool) {
		res, err := Apply(content, Edit{Old: old, New: repl, ReplaceAll: all})
		if err != nil {
			for _, target := range []error{ErrNotFound, ErrAmbiguous, ErrNoChange, ErrEmptyOld, ErrIndent, ErrBlankLines} {
				if errors.Is(err, target) {
					return
				}
			}
			t.Fatalf("untyped error: %v", err)
		}
		if res.Content == content || res.Replacements < 1 {
			t.Fatalf("success without a change: %+v", res)
		}
		checkOutside(t, content, res)
	})
}
