package editmatch

import (
	"math/rand/v2"
	"strings"
)

// How the corpus quotes a block. The file is real Go, rendered in the
// mistake's file style (and perhaps with trailing blanks on some lines).
// The edit changes the block at the level of lines (one change), and the
// model quotes the block and the edited block with the mistake's errors:
// other indentation, blank lines dropped, collapsed or added, trailing
// blanks stripped or added, CRLF. The intended file is computed from the
// structure: lines the edit keeps are the file's bytes, blank lines the
// model did not see included; lines it changes or adds are in the file's
// style.

// srcLine is a source line as structure: leading tabs, the rest
// (alignment spaces included; "" for a blank line), the file's trailing
// blanks, an identity, and whether an edit wrote it.
type srcLine struct {
	tabs   int
	rest   string
	trail  string
	id     int // 1 + the line's index in the file; negative for copies, 0 for new lines
	edited bool
}

func parseSource(content string) []srcLine {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	out := make([]srcLine, len(lines))
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		rest := strings.TrimLeft(l, "\t")
		out[i] = srcLine{tabs: len(l) - len(rest), rest: rest, id: i + 1}
	}
	return out
}

func (l srcLine) blank() bool { return l.rest == "" }

// render writes the line's indentation and text, without trailing blanks.
func (l srcLine) render(u genUnit, shift int) string {
	if l.blank() {
		return ""
	}
	return u.render(l.tabs+shift) + l.rest
}

// fileText is the line as the file has it, trailing blanks included.
func (l srcLine) fileText(u genUnit) string { return l.render(u, 0) + l.trail }

// mistake is one way a model misquotes a block, or (refuse) a quote that
// must be refused.
type mistake struct {
	name        string
	file, model genUnit
	shift       int  // levels added to the model's indentation
	dedent      bool // the model strips the block's common indentation
	trailing    bool // blanks after some old_string lines
	inner       bool // a blank inside some old_string lines doubled
	crlfFile    bool
	crlfModel   bool
	atEOF       bool // block ends the file, which lacks a final newline; old and new end in one
	blankRuns   bool // the file doubles the block's blank lines, the model does not
	dropBlank   bool // the model leaves out one blank line of the block
	addBlank    bool // the model adds a blank line between two lines of the block
	fileTrail   bool // the file has trailing blanks on some lines; the model strips them
	keepTrail   bool // … unless this is set: the model copies them
	refuse      string
}

// Kinds of quote that must be refused.
const (
	refuseAmbiguous = "ambiguous" // matches two places once blank lines are ignored
	refuseMissing   = "missing"   // a line of the block left out
	refuseTypo      = "typo"      // a line of the block misspelled
)

var tabs = genUnit{tab: true}

func spaces(n int) genUnit { return genUnit{width: n} }

var mistakes = []mistake{
	{name: "tabs→4 spaces", file: tabs, model: spaces(4)},
	{name: "tabs→2 spaces", file: tabs, model: spaces(2)},
	{name: "tabs→8 spaces", file: tabs, model: spaces(8)},
	{name: "4 spaces→tabs", file: spaces(4), model: tabs},
	{name: "2 spaces→4 spaces", file: spaces(2), model: spaces(4)},
	{name: "4 spaces→2 spaces", file: spaces(4), model: spaces(2)},
	{name: "dedented", file: tabs, model: tabs, dedent: true},
	{name: "dedented, 4 spaces", file: tabs, model: spaces(4), dedent: true},
	{name: "one level deeper", file: tabs, model: tabs, shift: 1},
	{name: "one level shallower", file: tabs, model: tabs, shift: -1},
	{name: "4-space file, one level deeper", file: spaces(4), model: spaces(4), shift: 1},
	{name: "4-space file, one level shallower", file: spaces(4), model: spaces(4), shift: -1},
	{name: "2-space file, 4 spaces one level shallower", file: spaces(2), model: spaces(4), shift: -1},
	{name: "trailing blanks", file: tabs, model: tabs, trailing: true},
	{name: "inner blanks", file: tabs, model: tabs, inner: true},
	{name: "CRLF file, LF model", file: tabs, model: tabs, crlfFile: true},
	{name: "LF file, CRLF model", file: tabs, model: tabs, crlfModel: true},
	{name: "CRLF file, 4 spaces", file: tabs, model: spaces(4), crlfFile: true},
	{name: "collapsed blank lines", file: tabs, model: tabs, blankRuns: true},
	{name: "collapsed blank lines, 4 spaces", file: tabs, model: spaces(4), blankRuns: true},
	{name: "dropped blank line", file: tabs, model: tabs, dropBlank: true},
	{name: "dropped blank line, 4 spaces", file: tabs, model: spaces(4), dropBlank: true},
	{name: "dropped blank line, 4 spaces→tabs", file: spaces(4), model: tabs, dropBlank: true},
	{name: "dropped blank line, CRLF file", file: tabs, model: tabs, crlfFile: true, dropBlank: true},
	{name: "added blank line", file: tabs, model: tabs, addBlank: true},
	{name: "added blank line, dedented 4 spaces", file: tabs, model: spaces(4), dedent: true, addBlank: true},
	{name: "file trailing blanks stripped", file: tabs, model: tabs, fileTrail: true},
	{name: "file trailing blanks stripped, 4 spaces", file: tabs, model: spaces(4), fileTrail: true},
	{name: "file trailing blanks kept", file: tabs, model: tabs, fileTrail: true, keepTrail: true},
	{name: "file trailing blanks kept, 4-space file", file: spaces(4), model: spaces(2), fileTrail: true, keepTrail: true},
	{name: "file trailing blanks, dropped blank line", file: tabs, model: spaces(4), fileTrail: true, dropBlank: true},
	{name: "file trailing blanks, CRLF, collapsed", file: tabs, model: tabs, crlfFile: true, fileTrail: true, blankRuns: true},
	{name: "4-space file, shallower, dropped blank", file: spaces(4), model: spaces(4), shift: -1, dropBlank: true, fileTrail: true},
	{name: "no final newline", file: tabs, model: tabs, atEOF: true},
	{name: "no final newline, 4 spaces", file: tabs, model: spaces(4), atEOF: true},
	{name: "no final newline, dropped blank", file: tabs, model: spaces(4), atEOF: true, dropBlank: true},
	{name: "all at once", file: tabs, model: spaces(4), dedent: true, trailing: true, crlfFile: true, crlfModel: true},
	{name: "all at once, blank lines", file: tabs, model: spaces(4), dedent: true, trailing: true, crlfFile: true,
		crlfModel: true, dropBlank: true, fileTrail: true},
	{name: "refuse: ambiguous ignoring blank lines", file: tabs, model: spaces(4), dropBlank: true, refuse: refuseAmbiguous},
	{name: "refuse: a line left out", file: tabs, model: spaces(4), refuse: refuseMissing},
	{name: "refuse: a line left out, dropped blank", file: tabs, model: tabs, dropBlank: true, refuse: refuseMissing},
	{name: "refuse: misspelled line", file: tabs, model: spaces(4), dropBlank: true, refuse: refuseTypo},
}

// deriveEdit changes block line k (not blank) the way an edit would: op 0
// changes it, 1 adds a line after it, 2 wraps it in a new block (if
// wrapOK), 3 removes it, 4 removes the whole block, 5 adds a line before
// it. Kept lines are copied as they are; written ones are marked edited.
func deriveEdit(rng *rand.Rand, block []srcLine, wrapOK bool) (out []srcLine, op, k int) {
	var text []int // non-blank lines
	for k, l := range block {
		if !l.blank() {
			text = append(text, k)
		}
	}
	k = text[rng.IntN(len(text))]
	out = append([]srcLine(nil), block[:k]...)
	l := block[k]
	op = rng.IntN(6)
	if op == 2 && !wrapOK {
		op = 0
	}
	add := func(tabs int, rest string, id int) {
		out = append(out, srcLine{tabs: tabs, rest: rest, id: id, edited: true})
	}
	switch op {
	case 0:
		add(l.tabs, l.rest+" // edited", l.id)
	case 1:
		out = append(out, l)
		add(l.tabs, "edited = true", 0)
	case 2:
		add(l.tabs, "if edited {", 0)
		add(l.tabs+1, l.rest, l.id)
		add(l.tabs, "} // edited", 0)
	case 3:
		if len(block) == 1 {
			add(l.tabs, "edited()", 0)
		}
	case 4:
		return nil, op, k
	case 5:
		add(l.tabs, "edited()", 0)
		out = append(out, l)
	}
	return append(out, block[k+1:]...), op, k
}

// doubleBlanks doubles every blank line; the copies get negative ids.
func doubleBlanks(lines []srcLine) []srcLine {
	var out []srcLine
	for _, l := range lines {
		out = append(out, l)
		if l.blank() {
			l.id = -l.id
			out = append(out, l)
		}
	}
	return out
}

// decorate gives the file trailing blanks: some lines, blank ones too.
// Within the block, equal lines get equal blanks, so that which of two
// equal lines an edit kept cannot change the result.
func decorate(rng *rand.Rand, lines []srcLine, i, j int) []srcLine {
	out := append([]srcLine(nil), lines...)
	inBlock := make(map[string]string)
	for k := range out {
		tr := ""
		if n := rng.IntN(4); n == 0 || (out[k].blank() && n == 1) {
			tr = []string{" ", "  ", "\t", "    "}[rng.IntN(4)]
		}
		if k >= i && k < j {
			key := out[k].render(tabs, 0)
			if prev, ok := inBlock[key]; ok {
				tr = prev
			}
			inBlock[key] = tr
		}
		out[k].trail = tr
	}
	return out
}

// quoteRender is how the model writes its lines.
type quoteRender struct {
	mk       mistake
	unit     genUnit
	shift    int
	typo     int          // id of a misspelled line, or 0
	skip     map[int]bool // ids of lines the model leaves out
	addAfter int          // id of a line the model puts a blank line after, or 0
}

// line renders one line the model copies from the file.
func (q quoteRender) line(l srcLine) string {
	if l.id == q.typo && q.typo != 0 {
		l.rest = l.rest[:1] + "Z" + l.rest[1:]
	}
	s := l.render(q.unit, q.shift)
	if q.mk.keepTrail {
		s += l.trail
	}
	return s
}

// lines renders a sequence: old_string's (the file block) or new_string's
// (the edited block, whose written lines are in newUnit).
func (q quoteRender) lines(block []srcLine, newUnit genUnit, newShift int) []string {
	var out []string
	for _, l := range block {
		if !l.edited && q.skip[l.id] {
			continue
		}
		if l.edited {
			out = append(out, l.render(newUnit, newShift))
		} else {
			out = append(out, q.line(l))
		}
		if !l.edited && l.id == q.addAfter && q.addAfter != 0 {
			out = append(out, "")
		}
	}
	return out
}

// corpusCase is one edit with its intended result; a mustRefuse case has
// none: the model's quote does not say which change it means.
type corpusCase struct {
	mistake    string
	content    string
	edit       Edit
	want       string
	mustRefuse bool
}

// renderSrc writes lines as a file has them.
func renderSrc(lines []srcLine, u genUnit, eol string, finalNL bool) string {
	out := make([]string, len(lines))
	for k, l := range lines {
		out[k] = l.fileText(u)
	}
	s := strings.Join(out, eol)
	if finalNL && len(lines) > 0 {
		s += eol
	}
	return s
}

// makeCase quotes block [i, j) with the mistake and computes the intended
// result. ok is false when the case has no defined meaning that the
// corpus can check (the quote matches elsewhere, or the block does not
// suit the mistake).
func makeCase(rng *rand.Rand, lines []srcLine, i, j int, mk mistake) (corpusCase, bool) {
	if mk.fileTrail {
		lines = decorate(rng, lines, i, j)
	}
	block := lines[i:j]
	// Near lines indented by spaces after their tabs (raw strings, text in
	// comments), "one level deeper" has no defined unit: the file's tab or
	// the text's spaces. Such blocks get no new levels.
	wrapOK := true
	for _, l := range lines[max(0, i-10):min(len(lines), j+10)] {
		wrapOK = wrapOK && !strings.HasPrefix(l.rest, " ")
	}
	fileBlock := block
	q := quoteRender{mk: mk, skip: make(map[int]bool)}
	if mk.blankRuns {
		fileBlock = doubleBlanks(block)
		for _, l := range fileBlock {
			q.skip[l.id] = l.id < 0 // the model sees one blank line of each pair
		}
	}
	edited, op, k := deriveEdit(rng, fileBlock, wrapOK)
	if !q.chooseMistakes(rng, fileBlock, edited) {
		return corpusCase{}, false
	}
	// A line added next to blank lines the model did not see at all: after
	// the line before them or before the line after them? No telling.
	undefined := (op == 1 && q.unseenGap(fileBlock, k+1, 1)) || (op == 5 && q.unseenGap(fileBlock, k-1, -1))

	eol := "\n"
	if mk.crlfFile {
		eol = "\r\n"
	}
	finalNL := !mk.atEOF
	join := func(u genUnit, parts ...[]srcLine) string {
		var all []srcLine
		for _, p := range parts {
			all = append(all, p...)
		}
		return renderSrc(all, u, eol, finalNL)
	}
	var extra []srcLine
	if mk.refuse == refuseAmbiguous { // the block again, its blank lines doubled
		extra = append([]srcLine{{rest: "var copied = true"}}, doubleBlanks(block)...)
	}
	content := join(mk.file, lines[:i], fileBlock, extra, lines[j:])

	shift := mk.shift
	if mk.dedent {
		shift = -minTabs(block)
		if shift == 0 {
			shift = 1
		}
	}
	if minTabs(block)+shift < 0 {
		return corpusCase{}, false
	}
	identity := true
	for _, l := range block {
		identity = identity && l.render(mk.model, shift) == l.render(mk.file, 0)
	}
	newUnit, newShift := mk.model, shift
	if identity {
		newUnit, newShift = mk.file, 0 // a model quoting the file's indentation writes in it
	}
	target := mk.file
	if !indents(lines) {
		// A file that indents nothing shows no unit: the model's is kept
		// (the rest of the file renders the same in any unit).
		target = newUnit
	}
	want := join(target, lines[:i], edited, lines[j:])

	q.unit, q.shift = mk.model, shift
	oldLines := q.lines(fileBlock, newUnit, newShift)
	for k, s := range oldLines {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if mk.trailing && rng.IntN(2) == 0 {
			oldLines[k] += "  "
		}
		if mk.inner && rng.IntN(2) == 0 {
			ind := indentOf(s)
			oldLines[k] = ind + strings.Replace(s[len(ind):], " ", "  ", 1)
		}
	}
	newLines := q.lines(edited, newUnit, newShift)
	sep := "\n"
	if mk.crlfModel {
		sep = "\r\n"
	}
	old, repl := strings.Join(oldLines, sep), strings.Join(newLines, sep)
	// Both end in a newline or neither does; a single blank line needs it.
	if mk.atEOF || (len(edited) == 1 && edited[0].blank()) || rng.IntN(2) == 0 {
		old += sep
		if len(edited) > 0 {
			repl += sep
		}
	}
	c := corpusCase{mistake: mk.name, content: content, edit: Edit{Old: old, New: repl}, want: want}

	// What the quote can mean, decided from the text alone.
	view, oldLF := strings.ReplaceAll(content, "\r\n", "\n"), strings.ReplaceAll(old, "\r\n", "\n")
	blockAt := len(renderSrc(lines[:i], mk.file, "\n", true))
	strict, loose := oracleMatches(content, old)
	switch at := strings.Index(view, oldLF); {
	case mk.refuse == refuseAmbiguous:
		c.mustRefuse = true
		return c, len(strict) == 0 && len(loose) > 1
	case mk.refuse != "":
		c.mustRefuse = true
		return c, len(loose) == 0 && at < 0
	case at >= 0 && at != blockAt:
		return corpusCase{}, false // the quote is elsewhere in the file: another edit
	case at >= 0 && strings.Contains(view[at+1:], oldLF):
		c.mustRefuse = true // exactly twice: ambiguous
	case at >= 0 && (repl != "" || !wholeLinesAt(view, at, at+len(oldLF))):
		// An exact match is taken literally.
		c.want = strings.ReplaceAll(view[:at]+strings.ReplaceAll(repl, "\r\n", "\n")+view[at+len(oldLF):], "\n", eol)
	case at >= 0: // an exact delete of whole lines deletes them with their line break
	case len(strict) > 1 || len(strict) == 0 && len(loose) > 1:
		c.mustRefuse = true // ambiguous ignoring whitespace
	case len(strict) == 1 && strict[0] != i, len(strict) == 0 && (len(loose) == 0 || loose[0] != i):
		return corpusCase{}, false
	case undefined:
		c.mustRefuse = true
	}
	return c, true
}

// wholeLinesAt reports whether s[from:to] starts a line and ends one
// (with or without its line break).
func wholeLinesAt(s string, from, to int) bool {
	return (from == 0 || s[from-1] == '\n') && (to == len(s) || s[to-1] == '\n' || s[to] == '\n')
}

// chooseMistakes picks the lines the blank-line and refusal mistakes
// apply to; false when the block has none that fit.
func (q *quoteRender) chooseMistakes(rng *rand.Rand, fileBlock, edited []srcLine) bool {
	var blanks, text []int
	for k, l := range fileBlock {
		if l.blank() {
			blanks = append(blanks, k)
		} else {
			text = append(text, k)
		}
	}
	if q.mk.dropBlank {
		if len(blanks) == 0 {
			return false
		}
		b := blanks[rng.IntN(len(blanks))]
		if q.mk.refuse == refuseAmbiguous {
			for b = blanks[0]; b < len(fileBlock) && fileBlock[b].blank(); b++ {
				q.skip[fileBlock[b].id] = true // the whole first run
			}
		} else {
			q.skip[fileBlock[b].id] = true
		}
	}
	switch q.mk.refuse {
	case refuseMissing:
		if len(text) < 3 {
			return false
		}
		q.skip[fileBlock[text[1+rng.IntN(len(text)-2)]].id] = true
	case refuseTypo:
		l := fileBlock[text[rng.IntN(len(text))]]
		if len(l.rest) < 2 {
			return false
		}
		q.typo = l.id
	}
	if q.mk.addBlank {
		kept := make(map[int]bool)
		for _, l := range edited {
			kept[l.id] = kept[l.id] || !l.edited
		}
		var at []int
		for p := 0; p+1 < len(fileBlock); p++ {
			if !fileBlock[p].blank() && !fileBlock[p+1].blank() && kept[fileBlock[p].id] {
				at = append(at, fileBlock[p].id)
			}
		}
		if len(at) == 0 {
			return false
		}
		q.addAfter = at[rng.IntN(len(at))]
	}
	return true
}

// unseenGap reports whether the blank lines from fileBlock[k] on (step
// ±1) are some, and all left out of the quote.
func (q quoteRender) unseenGap(fileBlock []srcLine, k, step int) bool {
	n := 0
	for ; k >= 0 && k < len(fileBlock) && fileBlock[k].blank(); k += step {
		if !q.skip[fileBlock[k].id] {
			return false
		}
		n++
	}
	return n > 0
}

func indents(lines []srcLine) bool {
	for _, l := range lines {
		if l.tabs > 0 {
			return true
		}
	}
	return false
}

func minTabs(block []srcLine) int {
	m := -1
	for _, l := range block {
		if !l.blank() && (m < 0 || l.tabs < m) {
			m = l.tabs
		}
	}
	return max(m, 0)
}
