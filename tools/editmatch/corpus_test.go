package editmatch

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// The corpus takes real Go files from $GOROOT/src, picks blocks, derives an
// edit of each block, and quotes old_string and new_string with the
// mistakes models make. The intended result is the file with the block
// replaced by the edited block in the file's own style. Each case ends
// applied correctly, refused (an error), or applied wrongly, which must
// never happen.

// srcLine is a source line as structure: leading tabs and the rest
// (alignment spaces included). An empty rest is a blank line.
type srcLine struct {
	tabs int
	rest string
}

func parseSource(content string) []srcLine {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	out := make([]srcLine, len(lines))
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		rest := strings.TrimLeft(l, "\t")
		out[i] = srcLine{tabs: len(l) - len(rest), rest: rest}
	}
	return out
}

func (l srcLine) blank() bool { return l.rest == "" }

func (l srcLine) render(u genUnit, shift int) string {
	if l.blank() {
		return ""
	}
	return u.render(l.tabs+shift) + l.rest
}

// mistake is one way a model misquotes a block.
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
}

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
	{name: "trailing blanks", file: tabs, model: tabs, trailing: true},
	{name: "inner blanks", file: tabs, model: tabs, inner: true},
	{name: "CRLF file, LF model", file: tabs, model: tabs, crlfFile: true},
	{name: "LF file, CRLF model", file: tabs, model: tabs, crlfModel: true},
	{name: "CRLF file, 4 spaces", file: tabs, model: spaces(4), crlfFile: true},
	{name: "collapsed blank lines", file: tabs, model: tabs, blankRuns: true},
	{name: "no final newline", file: tabs, model: tabs, atEOF: true},
	{name: "no final newline, 4 spaces", file: tabs, model: spaces(4), atEOF: true},
	{name: "all at once", file: tabs, model: spaces(4), dedent: true, trailing: true, crlfFile: true, crlfModel: true},
}

// corpusSeed fixes the corpus, so figures compare between runs.
const corpusSeed = 20240601

// corpusCase is one edit with its intended result.
type corpusCase struct {
	mistake string
	content string
	edit    Edit
	want    string
}

// corpusFiles returns up to n Go files of $GOROOT/src, spread evenly
// over the tree, between 2 KB and 64 KB.
func corpusFiles(tb testing.TB, n int) map[string]string {
	tb.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			if info, err := d.Info(); err == nil && info.Size() > 2<<10 && info.Size() < 64<<10 {
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil || len(paths) == 0 {
		tb.Skipf("no Go sources under %s: %v", root, err)
	}
	sort.Strings(paths)
	files := make(map[string]string)
	for k := 0; k < n && k < len(paths); k++ {
		p := paths[k*len(paths)/n]
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if s := string(data); !strings.Contains(s, "\r") && !strings.HasPrefix(s, bom) {
			files[p] = s
		}
	}
	return files
}

// buildCorpus makes the cases: per file, two random blocks for every
// mistake (one for mistakes at the end of the file).
func buildCorpus(tb testing.TB, seed uint64) (cases []corpusCase, skipped int) {
	files := corpusFiles(tb, 160)
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, p := range names {
		lines := parseSource(files[p])
		for _, mk := range mistakes {
			tries := 2
			if mk.atEOF {
				tries = 1
			}
			for range tries {
				i, j, ok := pickBlock(rng, lines, mk)
				if !ok {
					continue
				}
				c, ok := makeCase(rng, lines, i, j, mk)
				if !ok {
					skipped++
					continue
				}
				cases = append(cases, c)
			}
		}
	}
	return cases, skipped
}

// pickBlock chooses 1 to 10 lines that start and end with text, hold a
// line of some length (a model quotes distinctive text), occur once in the
// file, and suit the mistake.
func pickBlock(rng *rand.Rand, lines []srcLine, mk mistake) (i, j int, ok bool) {
	for range 20 {
		size := 1 + rng.IntN(10)
		if mk.atEOF {
			j = len(lines)
			for j > 0 && lines[j-1].blank() {
				j--
			}
			i = max(0, j-size)
		} else {
			i = rng.IntN(len(lines))
			j = min(len(lines), i+size)
		}
		for i < j && lines[i].blank() {
			i++
		}
		for j > i && lines[j-1].blank() {
			j--
		}
		if i == j || !distinctive(lines[i:j]) || (mk.blankRuns && !hasBlank(lines[i:j])) {
			continue
		}
		if strings.Count(renderFile(lines, tabs, "\n", true), renderLines(lines[i:j], tabs, 0, "\n")) != 1 {
			continue
		}
		return i, j, true
	}
	return 0, 0, false
}

func distinctive(block []srcLine) bool {
	for _, l := range block {
		if len(strings.TrimSpace(l.rest)) >= 12 {
			return true
		}
	}
	return false
}

func hasBlank(block []srcLine) bool {
	for _, l := range block {
		if l.blank() {
			return true
		}
	}
	return false
}

// deriveEdit changes the block the way an edit would: a line changed, a
// line added, a line wrapped in a new block (if wrapOK), a line removed, or
// all gone.
func deriveEdit(rng *rand.Rand, block []srcLine, wrapOK bool) []srcLine {
	var text []int // non-blank lines
	for k, l := range block {
		if !l.blank() {
			text = append(text, k)
		}
	}
	k := text[rng.IntN(len(text))]
	out := append([]srcLine(nil), block[:k]...)
	l := block[k]
	op := rng.IntN(6)
	if op == 2 && !wrapOK {
		op = 0
	}
	switch op {
	case 0:
		out = append(out, srcLine{l.tabs, l.rest + " // edited"})
	case 1:
		out = append(out, l, srcLine{l.tabs, "edited = true"})
	case 2:
		out = append(out, srcLine{l.tabs, "if edited {"}, srcLine{l.tabs + 1, l.rest}, srcLine{l.tabs, "}"})
	case 3:
		if len(block) == 1 {
			out = append(out, srcLine{l.tabs, "edited()"})
		}
	case 4:
		return nil
	case 5:
		out = append(out, srcLine{l.tabs, "edited()"}, l)
	}
	return append(out, block[k+1:]...)
}

func renderLines(lines []srcLine, u genUnit, shift int, sep string) string {
	out := make([]string, len(lines))
	for k, l := range lines {
		out[k] = l.render(u, shift)
	}
	return strings.Join(out, sep)
}

func renderFile(lines []srcLine, u genUnit, eol string, finalNL bool) string {
	s := renderLines(lines, u, 0, eol)
	if finalNL {
		s += eol
	}
	return s
}

// doubleBlanks doubles every blank line.
func doubleBlanks(lines []srcLine) []srcLine {
	var out []srcLine
	for _, l := range lines {
		out = append(out, l)
		if l.blank() {
			out = append(out, l)
		}
	}
	return out
}

// makeCase quotes block [i, j) with the mistake and computes the
// intended result. ok is false when the quoted old_string occurs exactly
// elsewhere in the file, which makes it a different edit.
func makeCase(rng *rand.Rand, lines []srcLine, i, j int, mk mistake) (corpusCase, bool) {
	block := lines[i:j]
	// Near lines indented by spaces after their tabs (raw strings, text in
	// comments), "one level deeper" has no defined unit: the file's tab or
	// the text's spaces. Such blocks get no new levels.
	wrapOK := true
	for _, l := range lines[max(0, i-10):min(len(lines), j+10)] {
		wrapOK = wrapOK && !strings.HasPrefix(l.rest, " ")
	}
	edited := deriveEdit(rng, block, wrapOK)

	fileBlock := block
	if mk.blankRuns {
		fileBlock = doubleBlanks(block)
	}
	eol := "\n"
	if mk.crlfFile {
		eol = "\r\n"
	}
	finalNL := !mk.atEOF
	join := func(parts ...[]srcLine) string {
		var all []srcLine
		for _, p := range parts {
			all = append(all, p...)
		}
		if len(all) == 0 {
			return ""
		}
		return renderFile(all, mk.file, eol, finalNL)
	}
	content := join(lines[:i], fileBlock, lines[j:])
	want := join(lines[:i], edited, lines[j:])

	shift := mk.shift
	if mk.dedent {
		shift = -minTabs(block)
		if shift == 0 {
			shift = 1
		}
	}
	identity := true
	for _, l := range block {
		identity = identity && l.render(mk.model, shift) == l.render(mk.file, 0)
	}
	newUnit, newShift := mk.model, shift
	if identity {
		newUnit, newShift = mk.file, 0 // a model quoting the file's indentation writes in it
	}
	if !indents(lines) {
		// A file that indents nothing shows no unit: the model's is kept
		// (the rest of the file renders the same in any unit).
		if all := append(append(append([]srcLine(nil), lines[:i]...), edited...), lines[j:]...); len(all) > 0 {
			want = renderFile(all, newUnit, eol, finalNL)
		}
	}

	sep := "\n"
	if mk.crlfModel {
		sep = "\r\n"
	}
	oldLines := make([]string, len(block))
	for k, l := range block {
		oldLines[k] = l.render(mk.model, shift)
		if mk.trailing && !l.blank() && rng.IntN(2) == 0 {
			oldLines[k] += "  "
		}
		if mk.inner && rng.IntN(2) == 0 {
			ind := indentOf(oldLines[k])
			oldLines[k] = ind + strings.Replace(oldLines[k][len(ind):], " ", "  ", 1)
		}
	}
	old := strings.Join(oldLines, sep)
	repl := renderLines(edited, newUnit, newShift, sep)
	// Both end in a newline or neither does; a single blank line needs it.
	if mk.atEOF || (len(edited) == 1 && edited[0].blank()) || rng.IntN(2) == 0 {
		old += sep
		if len(edited) > 0 {
			repl += sep
		}
	}

	view := strings.ReplaceAll(content, "\r\n", "\n")
	at := strings.Index(view, strings.ReplaceAll(old, "\r\n", "\n"))
	blockAt := 0
	if i > 0 {
		blockAt = len(renderFile(lines[:i], mk.file, "\n", true))
	}
	if at >= 0 && at != blockAt {
		return corpusCase{}, false
	}
	return corpusCase{mistake: mk.name, content: content, edit: Edit{Old: old, New: repl}, want: want}, true
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

// corpusStats counts outcomes, overall and per mistake.
type corpusStats struct {
	total, correct, refused, wrong int
	refusedBy                      map[string]int // error kind
	byMistake                      map[string]*[3]int
	firstWrong                     []string
}

func runCorpus(cases []corpusCase) *corpusStats {
	st := &corpusStats{refusedBy: make(map[string]int), byMistake: make(map[string]*[3]int)}
	for _, c := range cases {
		res, err := Apply(c.content, c.edit)
		per := st.byMistake[c.mistake]
		if per == nil {
			per = new([3]int)
			st.byMistake[c.mistake] = per
		}
		st.total++
		switch {
		case err != nil:
			st.refused++
			per[1]++
			st.refusedBy[errorKind(err)]++
		case res.Content == c.want:
			st.correct++
			per[0]++
		default:
			st.wrong++
			per[2]++
			if len(st.firstWrong) < 3 {
				st.firstWrong = append(st.firstWrong, fmt.Sprintf("%s\nold %q\nnew %q\n%s",
					c.mistake, c.edit.Old, c.edit.New, firstDiff(res.Content, c.want)))
			}
		}
	}
	return st
}

func errorKind(err error) string {
	for _, k := range []struct {
		name string
		err  error
	}{{"not found", ErrNotFound}, {"ambiguous", ErrAmbiguous}, {"no change", ErrNoChange}, {"indent", ErrIndent}, {"blank lines", ErrBlankLines}} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

// firstDiff shows where two texts part, with a little context.
func firstDiff(got, want string) string {
	k := 0
	for k < len(got) && k < len(want) && got[k] == want[k] {
		k++
	}
	from := max(0, k-80)
	return fmt.Sprintf("got  …%q…\nwant …%q…", got[from:min(len(got), k+80)], want[from:min(len(want), k+80)])
}

func pct(n, total int) float64 { return 100 * float64(n) / float64(max(total, 1)) }

func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus of real Go files: slow")
	}
	cases, skipped := buildCorpus(t, corpusSeed)
	st := runCorpus(cases)
	t.Logf("%d cases from $GOROOT/src (%d skipped: old_string occurs elsewhere): applied correctly %.2f%%, refused %.2f%%, applied wrongly %.2f%%",
		st.total, skipped, pct(st.correct, st.total), pct(st.refused, st.total), pct(st.wrong, st.total))
	t.Logf("refused by kind: %v", st.refusedBy)
	names := make([]string, 0, len(st.byMistake))
	for n := range st.byMistake {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := st.byMistake[n]
		t.Logf("  %-28s correct %4d  refused %4d  wrong %d", n, p[0], p[1], p[2])
	}
	if st.total < 2000 {
		t.Errorf("only %d cases, want at least 2000", st.total)
	}
	if st.wrong > 0 {
		t.Errorf("%d cases applied wrongly, e.g.:\n%s", st.wrong, strings.Join(st.firstWrong, "\n\n"))
	}
}

func BenchmarkCorpus(b *testing.B) {
	cases, _ := buildCorpus(b, corpusSeed)
	b.ResetTimer()
	var st *corpusStats
	for b.Loop() {
		st = runCorpus(cases)
	}
	b.ReportMetric(float64(st.total), "cases")
	b.ReportMetric(pct(st.correct, st.total), "correct%")
	b.ReportMetric(pct(st.refused, st.total), "refused%")
	b.ReportMetric(pct(st.wrong, st.total), "wrong%")
	if st.wrong > 0 {
		b.Errorf("%d cases applied wrongly", st.wrong)
	}
}
