package editmatch

import "strings"

// indenter writes the lines new_string changes or adds in the file's
// indentation, for one match.
//
//   - If old_string's indentation equals the file's line for line, the
//     lines are kept as written, unless one indents with the other
//     character (spaces in a tab region or tabs in a space region).
//   - Otherwise an indentation old_string used maps to the file's on those
//     lines; a deeper one extends the longest such indentation it starts
//     with by whole levels, converted from the model's unit (tab or N
//     spaces) to the file's; any other is placed by depth relative to the
//     first line of old_string.
//
// Trailing blanks are dropped and blank lines are empty: the model's
// blanks are never carried in. When old_string uses one indentation for
// lines the file indents differently, a line based on it gets an
// *IndentError: no guessing.
type indenter struct {
	oldLines, newLines []string
	m                  match
	fs                 *fileStyle
	pairs              []indentPair
	identity           bool
	tr                 *translator // built on first use: it measures the file
}

func newIndenter(oldLines, newLines []string, m match, t *text, fs *fileStyle) *indenter {
	in := &indenter{oldLines: oldLines, newLines: newLines, m: m, fs: fs, identity: true}
	for i, l := range oldLines {
		if isBlank(l) {
			continue
		}
		p := indentPair{indentOf(l), indentOf(t.line(m.at[i])), m.at[i]}
		in.identity = in.identity && p.model == p.file
		in.pairs = append(in.pairs, p)
	}
	return in
}

// render returns new line k as it goes into the file.
func (in *indenter) render(k int) (string, error) {
	l := trimTrailing(in.newLines[k])
	if l == "" {
		return "", nil
	}
	if in.tr == nil {
		in.tr = newTranslator(in.pairs, in.oldLines, in.newLines, in.m, in.fs)
	}
	ind := indentOf(l)
	if in.identity && fitsStyle(ind, in.tr.file) {
		return l, nil
	}
	f, err := in.tr.translate(ind)
	if err != nil {
		err.NewLine = k + 1
		return "", err
	}
	return f + l[len(ind):], nil
}

// fitsStyle reports whether an indentation uses the style's character:
// tabs (then perhaps alignment spaces) for tabs, only spaces for spaces.
func fitsStyle(ind string, s style) bool {
	switch s.kind {
	case tabIndent:
		rest := strings.TrimLeft(ind, "\t")
		return ind == "" || len(rest) < len(ind) && !strings.Contains(rest, "\t")
	case spaceIndent:
		return !strings.Contains(ind, "\t")
	}
	return true
}

// linesOf returns file lines first..last, clipped to the file.
func linesOf(t *text, first, last int) []string {
	first, last = max(first, 0), min(last, t.n()-1)
	lines := make([]string, 0, max(last-first+1, 0))
	for j := first; j <= last; j++ {
		lines = append(lines, t.line(j))
	}
	return lines
}

// indentPair is the indentation of one old_string line and of the file
// line (0-based) it matched.
type indentPair struct {
	model, file string
	line        int
}

// unitKind is how a text indents.
type unitKind uint8

const (
	noIndent unitKind = iota
	tabIndent
	spaceIndent
)

// style is an indentation convention. width is the spaces per level; for
// a file it is measured on space-indented lines even if tabs dominate, so
// that space-indented regions of mixed files keep their own width.
type style struct {
	kind  unitKind
	width int
}

// fileStyle measures the whole file's style once, and only if needed.
type fileStyle struct {
	t    *text
	done bool
	s    style
}

func newFileStyle(t *text) *fileStyle { return &fileStyle{t: t} }

func (f *fileStyle) get() style {
	if !f.done {
		f.done = true
		f.s = detectStyle(true, linesOf(f.t, 0, f.t.n()-1))
	}
	return f.s
}

// nearby is how many lines around a match show its surroundings' style.
const nearby = 40

// detectStyle says whether lines indent with tabs or spaces (the
// majority of indented lines) and the space width. whole is set for a
// whole file, whose first line is measured from the margin; a snippet's
// first line may sit at any depth.
func detectStyle(whole bool, seqs ...[]string) style {
	tabs, spaces := 0, 0
	for _, lines := range seqs {
		for _, l := range lines {
			switch {
			case isBlank(l):
			case strings.HasPrefix(l, "\t"):
				tabs++
			case strings.HasPrefix(l, "  "): // one space is alignment, like " * " in comments
				spaces++
			}
		}
	}
	s := style{width: detectWidth(whole, true, seqs...)}
	if s.width == 0 {
		s.width = detectWidth(whole, false, seqs...)
	}
	switch {
	case tabs == 0 && spaces == 0:
		s.kind = noIndent
	case tabs >= spaces:
		s.kind = tabIndent
	default:
		s.kind = spaceIndent
	}
	return s
}

// detectWidth guesses spaces per level from the most common increase (or,
// with up unset, decrease) of indentation between consecutive
// space-indented lines; 0 if none. Increases are the better evidence, as a
// decrease often closes several levels at once. Ties go to the width that
// divides more indentations, then to the larger.
func detectWidth(whole, up bool, seqs ...[]string) int {
	var votes [17]int
	var seen []int
	for _, lines := range seqs {
		prev := -1
		if whole {
			prev = 0
		}
		for _, l := range lines {
			ind := indentOf(l)
			if isBlank(l) || strings.Contains(ind, "\t") {
				continue
			}
			seen = append(seen, len(ind))
			d := len(ind) - prev
			if !up {
				d = -d
			}
			if prev >= 0 && d > 1 && d < len(votes) { // one space is alignment, not a level
				votes[d]++
			}
			prev = len(ind)
		}
	}
	best, bestFit := 0, 0
	for w := 1; w < len(votes); w++ {
		if votes[w] == 0 || votes[w] < votes[best] {
			continue
		}
		fit := 0
		for _, n := range seen {
			if n%w == 0 {
				fit++
			}
		}
		if votes[w] > votes[best] || fit >= bestFit {
			best, bestFit = w, fit
		}
	}
	return best
}

// translator converts model indentation to file indentation for one match.
type translator struct {
	model, file style
	known       map[string]string // model indentation → file indentation
	// conflicts holds model indentations old_string uses for lines the
	// file indents differently, with those lines (0-based).
	conflicts map[string][]int
	// anchorModel and anchorFile are the levels of old_string's first
	// non-blank line and of the file line it matched.
	anchorModel, anchorFile int
}

func newTranslator(pairs []indentPair, oldLines, newLines []string, m match, fs *fileStyle) *translator {
	tr := &translator{known: make(map[string]string)}
	tr.file = regionStyle(m, fs)
	tr.model = modelStyle(oldLines, newLines, pairs, tr.file)
	switch {
	case tr.file.kind == noIndent:
		tr.file = tr.model
	case tr.file.kind == spaceIndent && tr.file.width == 0:
		tr.file.width = 4
		if tr.model.kind == spaceIndent {
			tr.file.width = tr.model.width
		}
	}
	tr.conflicts = make(map[string][]int)
	for _, p := range pairs {
		if f, ok := tr.known[p.model]; ok && f != p.file {
			tr.conflicts[p.model] = nil
		}
		tr.known[p.model] = p.file
	}
	for _, p := range pairs {
		if lines, ok := tr.conflicts[p.model]; ok {
			tr.conflicts[p.model] = append(lines, p.line)
			delete(tr.known, p.model)
		}
	}
	tr.anchorModel, _ = levels(pairs[0].model, tr.model)
	tr.anchorFile, _ = levels(pairs[0].file, tr.file)
	return tr
}

// regionStyle is the style of the matched lines; where they show none,
// that of the lines around them (a mixed file's regions differ), and last
// the whole file's. The file is only measured when needed.
func regionStyle(m match, fs *fileStyle) style {
	s := detectStyle(false, linesOf(fs.t, m.first, m.last))
	if s.kind == noIndent {
		s = detectStyle(false, linesOf(fs.t, m.first-nearby, m.last+nearby))
	}
	switch s.kind {
	case noIndent:
		return fs.get()
	case spaceIndent:
		if w := fs.get().width; w > 0 {
			s.width = w
		}
	}
	return s
}

// modelStyle is the style old_string and new_string are written in. The
// space width is read, by falling reliability, off how old_string's levels
// line up with the file's, the model's increases of indentation, the
// common divisor of its indentations, the first line's depth in the file,
// the model's decreases of indentation, and last the file's own width.
func modelStyle(oldLines, newLines []string, pairs []indentPair, file style) style {
	s := detectStyle(false, oldLines, newLines)
	switch {
	case s.kind == noIndent:
		return file
	case s.kind == tabIndent:
		return s
	}
	for _, w := range []int{
		widthFromPairs(pairs, file),
		detectWidth(false, true, oldLines, newLines),
		spacesGCD(oldLines, newLines),
		widthFromAnchor(pairs[0], file),
		detectWidth(false, false, oldLines, newLines),
		file.width,
		4,
	} {
		if w > 0 {
			s.width = w
			break
		}
	}
	return s
}

// spacesGCD is the greatest common divisor of the distinct space
// indentations of the lines, if there are at least two of them, within
// the widths people use; otherwise 0.
func spacesGCD(seqs ...[]string) int {
	g, distinct := 0, map[int]bool{}
	for _, lines := range seqs {
		for _, l := range lines {
			ind := indentOf(l)
			if isBlank(l) || ind == "" || strings.Contains(ind, "\t") {
				continue
			}
			distinct[len(ind)] = true
			g = gcd(g, len(ind))
		}
	}
	if len(distinct) < 2 || g < 2 || g > 8 {
		return 0
	}
	return g
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// widthFromAnchor assumes the model kept the depth of old's first line:
// its spaces divided by the file's levels there.
func widthFromAnchor(p indentPair, file style) int {
	lv, rest := levels(p.file, file)
	if lv == 0 || rest != "" || strings.Contains(p.model, "\t") || len(p.model)%lv != 0 {
		return 0
	}
	if w := len(p.model) / lv; w >= 2 && w <= 8 {
		return w
	}
	return 0
}

// widthFromPairs infers the model's spaces per level from old lines whose
// file levels differ: spaces added per level added.
func widthFromPairs(pairs []indentPair, file style) int {
	if file.kind == noIndent || (file.kind == spaceIndent && file.width == 0) {
		return 0
	}
	var votes [17]int
	prevSpaces, prevLevel := -1, 0
	for _, p := range pairs {
		if strings.Contains(p.model, "\t") {
			continue
		}
		level, rem := levels(p.file, file)
		if rem != "" {
			continue // alignment, not a level
		}
		if prevSpaces >= 0 && level != prevLevel {
			d, r := (len(p.model)-prevSpaces)/(level-prevLevel), (len(p.model)-prevSpaces)%(level-prevLevel)
			if r == 0 && d > 0 && d < len(votes) {
				votes[d]++
			}
		}
		prevSpaces, prevLevel = len(p.model), level
	}
	best := 0
	for w := range votes {
		if votes[w] > votes[best] {
			best = w
		}
	}
	return best
}

// shorten handles an indentation that a known one extends by a tail the
// file line has too, as when old_string's lines carry alignment after
// their indentation: the file's indentation minus that same tail. The
// nearest (shortest) such known indentation wins.
func (tr *translator) shorten(ind string) (string, bool) {
	best, ok := "", false
	for m, f := range tr.known {
		if len(m) > len(ind) && strings.HasPrefix(m, ind) && strings.HasSuffix(f, m[len(ind):]) &&
			(!ok || len(m) < len(best)) {
			best, ok = m, true
		}
	}
	if !ok {
		return "", false
	}
	f := tr.known[best]
	return f[:len(f)-(len(best)-len(ind))], true
}

// longestPrefix returns the longest key of m that ind starts with.
func longestPrefix[V any](ind string, m map[string]V) (string, bool) {
	best, ok := "", false
	for k := range m {
		if strings.HasPrefix(ind, k) && (!ok || len(k) > len(best)) {
			best, ok = k, true
		}
	}
	return best, ok
}

// levels splits an indentation into whole levels of s and the rest (say
// alignment spaces), which is kept as is.
func levels(ind string, s style) (int, string) {
	switch s.kind {
	case tabIndent:
		n := len(ind) - len(strings.TrimLeft(ind, "\t"))
		return n, ind[n:]
	case spaceIndent:
		if s.width > 0 {
			n := (len(ind) - len(strings.TrimLeft(ind, " "))) / s.width
			return n, ind[n*s.width:]
		}
	}
	return 0, ind
}

// render writes n levels of s followed by rest.
func render(n int, rest string, s style) string {
	switch s.kind {
	case tabIndent:
		return strings.Repeat("\t", n) + rest
	case spaceIndent:
		return strings.Repeat(" ", n*s.width) + rest
	}
	return rest
}

// translate maps one indentation of new_string to the file.
// It fails when the indentation, or the longest one it extends, is one
// old_string used for differently indented file lines.
func (tr *translator) translate(ind string) (string, *IndentError) {
	if f, ok := tr.known[ind]; ok {
		return f, nil
	}
	base, ok := longestPrefix(ind, tr.known)
	if bad, conflict := longestPrefix(ind, tr.conflicts); conflict && (!ok || len(bad) > len(base)) {
		e := &IndentError{}
		for _, l := range tr.conflicts[bad] {
			e.FileLines = append(e.FileLines, l+1)
		}
		return "", e
	}
	if ok {
		n, rest := levels(ind[len(base):], tr.model)
		return tr.known[base] + render(n, rest, tr.file), nil
	}
	if f, ok := tr.shorten(ind); ok {
		return f, nil
	}
	n, rest := levels(ind, tr.model)
	return render(max(n-tr.anchorModel+tr.anchorFile, 0), rest, tr.file), nil
}
