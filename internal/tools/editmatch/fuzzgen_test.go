package editmatch

import "strings"

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
	// mustRefuse is set when old_string matches more than one place.
	mustRefuse bool
	// blankPlacement is set when the model's text does not tell where the
	// file's blank lines go: a result must then equal want only once
	// blank lines are left out.
	blankPlacement bool
}

// newEntry is a line of the edited block: block line src kept, or (src
// < 0) a line the edit wrote.
type newEntry struct {
	line genLine
	src  int
}

// blockView is what the model sees of the block's blank lines: lines it
// does not see (dropped or collapsed away) and a blank line it adds.
type blockView struct {
	seen     []bool
	addAfter int // block line the model puts a blank line after, or -1
}

// genView chooses the blank-line mistake: none, collapsed runs, a run
// dropped, or a blank line added, always between two non-blank lines.
func genView(c *chooser, block []genLine) blockView {
	v := blockView{seen: make([]bool, len(block)), addAfter: -1}
	for k := range v.seen {
		v.seen[k] = true
	}
	first, last := -1, -1
	for k, l := range block {
		if l.text != "" {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	var runs [][2]int // interior blank runs [a, b)
	for k := first + 1; k < last; k++ {
		if block[k].text == "" && block[k-1].text != "" {
			b := k
			for block[b].text == "" {
				b++
			}
			runs = append(runs, [2]int{k, b})
		}
	}
	switch c.intn(5) {
	case 0: // collapsed: one blank line of each run
		for _, r := range runs {
			for k := r[0] + 1; k < r[1]; k++ {
				v.seen[k] = false
			}
		}
	case 1: // a run dropped
		if len(runs) > 0 {
			r := runs[c.intn(len(runs))]
			for k := r[0]; k < r[1]; k++ {
				v.seen[k] = false
			}
		}
	case 2: // a blank line added
		var at []int
		for k := first; k < last; k++ {
			if block[k].text != "" && block[k+1].text != "" {
				at = append(at, k)
			}
		}
		if len(at) > 0 {
			v.addAfter = at[c.intn(len(at))]
		}
	}
	return v
}

// genCase generates a case; ok is false for cases without a defined
// intended result (old_string matches elsewhere instead).
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
	view := genView(c, block)
	newBlock := genNew(c, block, view)

	eols := make([]string, len(lines))
	raw := make([]string, len(lines)) // file lines without line breaks
	shared := make(map[string][2]string)
	for k, l := range lines {
		eols[k] = "\n"
		if eolMode == 1 || (eolMode == 2 && c.oneIn(2)) {
			eols[k] = "\r\n"
		}
		raw[k] = renderLine(fileUnit, 0, l)
		if l.text != "" && c.oneIn(6) {
			raw[k] += []string{" ", "  ", "\t"}[c.intn(3)] // trailing junk
		}
		if k >= i && k < j { // equal lines of the block look alike: which one an edit kept cannot matter
			key := renderLine(fileUnit, 0, l)
			if s, ok := shared[key]; ok {
				raw[k], eols[k] = s[0], s[1]
			}
			shared[key] = [2]string{raw[k], eols[k]}
		}
	}
	if !finalNL && lines[len(lines)-1].text != "" {
		// (an empty last line without a line break is no line at all)
		eols[len(eols)-1] = ""
		last := lines[len(lines)-1]
		for _, l := range block[:len(block)-1] {
			if j == len(lines) && l == last {
				return fuzzCase{}, false // twins that differ in their line break: which one was kept shows
			}
		}
	}

	// How the model writes the block.
	modelUnit := genUnits[c.intn(len(genUnits))]
	if c.oneIn(3) {
		modelUnit = fileUnit
	}
	shift := c.intn(3) - minDepth(block, entryLines(newBlock))
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

	var oldLines []string
	for k, l := range block {
		if !view.seen[k] {
			continue
		}
		s := renderLine(modelUnit, shift, l)
		if l.text != "" && c.oneIn(4) {
			s += []string{" ", "  ", "\t"}[c.intn(3)]
		}
		if c.oneIn(4) { // widen a blank inside the text, not the indentation
			ind := indentOf(s)
			s = ind + strings.Replace(s[len(ind):], " ", "  ", 1)
		}
		oldLines = append(oldLines, s)
		if k == view.addAfter {
			oldLines = append(oldLines, "")
		}
	}
	var newLines []string
	for _, e := range newBlock {
		if e.src >= 0 && !view.seen[e.src] {
			continue
		}
		newLines = append(newLines, renderLine(newUnit, newShift, e.line))
		if e.src >= 0 && e.src == view.addAfter {
			newLines = append(newLines, "")
		}
	}
	// A final newline: old_string needs one to end in a blank line, and
	// new_string then needs one too; without one in old_string, a final
	// newline in new_string would add an empty line, so there is none.
	oldNL := block[len(block)-1].text == "" || (len(newBlock) == 1 && newBlock[0].line.text == "") || c.oneIn(2)
	old := joinModel(c, oldLines, oldNL)
	repl := ""
	if len(newBlock) > 0 {
		repl = joinModel(c, newLines, oldNL && (newBlock[len(newBlock)-1].line.text == "" || c.oneIn(2)))
	}

	var body strings.Builder
	for k := range raw {
		body.WriteString(raw[k] + eols[k])
	}
	content := mark + body.String()
	fc := fuzzCase{content: content, edit: Edit{Old: old, New: repl}}

	// The oracle, from the structure above.
	eol := oracleEOL(eols)
	view2 := strings.ReplaceAll(body.String(), "\r\n", "\n")
	cleanOld := strings.ReplaceAll(old, "\r\n", "\n")
	blockAt := 0
	for k := 0; k < i; k++ {
		blockAt += len(raw[k]) + min(len(eols[k]), 1)
	}
	start := len(mark) + offsetOfLine(raw, eols, i)
	end := len(mark) + offsetOfLine(raw, eols, j-1) + len(raw[j-1]) + len(eols[j-1])
	firstText := i
	for lines[firstText].text == "" {
		firstText++
	}
	strict, loose := oracleMatches(content, old)
	switch at := strings.Index(view2, cleanOld); {
	case at >= 0 && at != blockAt:
		return fuzzCase{}, false // the model's text is elsewhere in the file: a different edit
	case at >= 0 && repl == "" && !strings.HasSuffix(cleanOld, "\n") && wholeLinesAt(view2, at, at+len(cleanOld)):
		// exact delete of whole lines: the lines go, as in the fuzzy case
		fc.want, fc.head, fc.tail = deleteLines(content, start, end, i, eols)
	case at >= 0: // exact: taken literally
		s, e := len(mark)+bodyOffset(body.String(), at), len(mark)+bodyOffset(body.String(), at+len(cleanOld))
		fc.want = content[:s] + strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", eol) + content[e:]
		fc.head, fc.tail = content[:s], content[e:]
	case len(strict) > 1 || len(strict) == 0 && len(loose) > 1:
		fc.mustRefuse = true // ambiguous ignoring whitespace
		fc.head, fc.tail = content, content
	case len(strict) == 1 && strict[0] != firstText, len(strict) == 0 && (len(loose) != 1 || loose[0] != firstText):
		return fuzzCase{}, false // it matches elsewhere better
	case repl == "": // fuzzy delete (new_string empty, even if the edit keeps blank lines the model did not quote): whole lines
		fc.want, fc.head, fc.tail = deleteLines(content, start, end, i, eols)
	default: // fuzzy: whole lines; kept ones as the file has them, the others re-indented
		for eols[j-1] == "" && len(newBlock) > 1 && newBlock[len(newBlock)-1].line.text == "" {
			newBlock = newBlock[:len(newBlock)-1] // a missing final newline stays missing
		}
		var b strings.Builder
		for n, e := range newBlock {
			s, lineEOL := renderLine(targetUnit, targetShift, e.line), eol
			if e.src >= 0 {
				s = raw[i+e.src]
				if own := eols[i+e.src]; own != "" {
					lineEOL = own
				}
			}
			if n == len(newBlock)-1 && (e.src < 0 || eols[j-1] == "") {
				lineEOL = eols[j-1]
			}
			b.WriteString(s + lineEOL)
		}
		fc.want = content[:start] + b.String() + content[end:]
		fc.head, fc.tail = content[:start], content[end:]
		fc.blankPlacement = unclearBlanks(block, view, newBlock)
	}
	return fc, true
}

// unclearBlanks reports whether the model's text leaves open where some
// of the file's blank lines go: a run of them the model quoted with
// another count sits next to lines the edit changes, or the block has
// equal lines, of which the edit may have kept either.
func unclearBlanks(block []genLine, view blockView, newBlock []newEntry) bool {
	pos := make([]int, len(block))
	for k := range pos {
		pos[k] = -1
	}
	for n, e := range newBlock {
		if e.src >= 0 {
			pos[e.src] = n
		}
	}
	count, kept := make(map[genLine]int), make(map[genLine]int)
	for k, l := range block {
		count[l]++
		if pos[k] >= 0 {
			kept[l]++
		}
	}
	for l, n := range count {
		if l.text != "" && n > 1 && (view.addAfter >= 0 || !allSeen(view.seen) || kept[l] < n) {
			return true // which of two equal lines the edit kept decides where blank lines go
		}
	}
	for a := 0; a < len(block); a++ {
		if block[a].text == "" || a+1 >= len(block) || block[a+1].text != "" {
			continue
		}
		b, misquoted := a+1, false
		for b < len(block) && block[b].text == "" {
			misquoted = misquoted || !view.seen[b]
			b++
		}
		if !misquoted || b == len(block) {
			continue
		}
		if count[block[a]] > 1 || count[block[b]] > 1 || pos[a] < 0 || pos[b] < 0 {
			return true
		}
		for n := pos[a] + 1; n < pos[b]; n++ {
			if s := newBlock[n].src; s < a || s > b {
				return true // a line written between them
			}
		}
		for k := a + 1; k < b; k++ {
			if view.seen[k] && pos[k] < 0 {
				return true // a blank line the model saw is deleted
			}
		}
	}
	return false
}

// bodyOffset maps an offset of body with CRLF read as LF back to body; a
// CR goes with its LF.
func bodyOffset(body string, off int) int {
	b := 0
	for v := 0; v < off; v++ {
		if body[b] == '\r' && b+1 < len(body) && body[b+1] == '\n' {
			b++
		}
		b++
	}
	return b
}

func allSeen(seen []bool) bool {
	for _, s := range seen {
		if !s {
			return false
		}
	}
	return true
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
// Blank lines the model does not see stay, and nothing is added after
// them. Added lines are never shallower than the block: a line out of all
// of old_string's depths in a model's unknown unit has no defined depth
// (four spaces against two tabs: one level of 4 shifted, or two of 2?).
func genNew(c *chooser, block []genLine, view blockView) []newEntry {
	if c.oneIn(8) {
		return nil
	}
	floor := minDepth(block)
	var out []newEntry
	for k, l := range block {
		if !view.seen[k] {
			out = append(out, newEntry{l, k})
			continue
		}
		switch c.intn(6) {
		case 0:
			continue
		case 1:
			if l.text != "" {
				l.text += " /* changed */"
				out = append(out, newEntry{l, -1})
				continue
			}
		case 2:
			out = append(out, newEntry{l, k})
			d := max(floor, l.depth+c.intn(3)-1)
			out = append(out, newEntry{genLine{depth: d, text: "inserted" + strings.Repeat("+", k)}, -1})
			continue
		}
		out = append(out, newEntry{l, k})
	}
	return out
}

func entryLines(entries []newEntry) []genLine {
	out := make([]genLine, len(entries))
	for k, e := range entries {
		out[k] = e.line
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
