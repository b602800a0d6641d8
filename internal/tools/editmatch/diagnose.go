package editmatch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxShown bounds the lines a diagnosis quotes.
const maxShown = 40

// diagnose explains a failed match: it finds the block of the file most
// like old_string and quotes it with line numbers and visible whitespace.
func diagnose(t *text, old string) *NotFoundError {
	lines := trimBlankEnds(fuzzyLines(old))
	e := &NotFoundError{}
	var b strings.Builder
	switch {
	case len(lines) == 0:
		b.WriteString("old_string contains only whitespace; quote the text you want to replace.")
	case t.n() == 0:
		b.WriteString("The file is empty; write it instead of editing it.")
	default:
		first, score := closestBlock(t, lines)
		if first == noBlock {
			b.WriteString("No similar lines were found. View the file again and copy old_string from it exactly.")
			break
		}
		e.Closest = LineRange{max(first, 0) + 1, min(first+len(lines), t.n())}
		writeBlock(&b, t, lines, first, score)
	}
	for _, h := range hints(lines) {
		b.WriteString("\n")
		b.WriteString(h)
	}
	e.Diagnosis = b.String()
	return e
}

// trimBlankEnds drops blank lines at both ends.
func trimBlankEnds(lines []string) []string {
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// noBlock is closestBlock's "nothing similar"; real results can be
// negative (a block starting before line 0 when old's first lines are
// missing from the file), but never this low.
const noBlock = -1 << 30

// closestBlock returns the 0-based file line where old's first line would
// be in the most similar block, and how many lines agree there ignoring
// whitespace. It prefers the block where most lines agree; failing that,
// the line most like old's longest line.
func closestBlock(t *text, lines []string) (first, score int) {
	keys := make(map[string][]int)
	nonBlank := 0
	for i, l := range lines {
		if k := squeeze(l); k != "" {
			keys[k] = append(keys[k], i)
			nonBlank++
		}
	}
	// votes[s+len(lines)] counts old lines found at their place if old
	// started at file line s; weight sums their length, so that a lone "}"
	// does not make a block.
	votes := make([]int, t.n()+len(lines))
	weight := make([]int, len(votes))
	var buf []byte
	best := -1
	for j := 0; j < t.n(); j++ {
		buf = appendSqueezed(buf[:0], t.line(j))
		for _, i := range keys[string(buf)] {
			v := j - i + len(lines)
			votes[v]++
			weight[v] += len(buf)
			if best < 0 || votes[v] > votes[best] || (votes[v] == votes[best] && v < best) {
				best = v
			}
		}
	}
	if best >= 0 && 2*votes[best] >= nonBlank && (votes[best] == nonBlank || weight[best] >= 6) {
		return best - len(lines), votes[best]
	}
	i, j := similarLine(t, lines)
	if j < 0 {
		return noBlock, 0
	}
	first = j - i
	for k, l := range lines {
		if f := first + k; f >= 0 && f < t.n() && squeeze(l) != "" && sameSqueezed(t.line(f), squeeze(l)) {
			score++
		}
	}
	return first, score
}

// similarLine finds the file line most like old's longest line by bigram
// similarity; it returns that old line's index and the file line, or -1.
func similarLine(t *text, lines []string) (oldIndex, fileLine int) {
	key := ""
	for i, l := range lines {
		if k := squeeze(l); len(k) > len(key) {
			key, oldIndex = k, i
		}
	}
	if len(key) < 3 {
		return 0, -1
	}
	g, keyBytes := newBigrams(key), []byte(key)
	bestScore, fileLine := 0.5, -1
	var buf []byte
	for j := 0; j < t.n(); j++ {
		buf = appendSqueezed(buf[:0], t.line(j))
		s := 0.99 // old's line is part of this one
		if !bytes.Contains(buf, keyBytes) {
			if 3*len(buf) < len(key) || len(buf) > 3*len(key) {
				continue // too different in length to be similar
			}
			s = g.dice(buf)
		}
		if s > bestScore {
			bestScore, fileLine = s, j
		}
	}
	return oldIndex, fileLine
}

// bigrams is a string's multiset of byte pairs, for Dice similarity.
type bigrams struct {
	index map[uint16]int
	count []int
	used  []int
	total int
}

func newBigrams(s string) *bigrams {
	g := &bigrams{index: make(map[uint16]int)}
	for i := 0; i+1 < len(s); i++ {
		k := uint16(s[i])<<8 | uint16(s[i+1])
		n, ok := g.index[k]
		if !ok {
			n = len(g.count)
			g.index[k] = n
			g.count = append(g.count, 0)
		}
		g.count[n]++
		g.total++
	}
	g.used = make([]int, len(g.count))
	return g
}

// dice is 2·|common bigrams| / (|g| + |bigrams of s|).
func (g *bigrams) dice(s []byte) float64 {
	clear(g.used)
	common, total := 0, 0
	for i := 0; i+1 < len(s); i++ {
		total++
		if n, ok := g.index[uint16(s[i])<<8|uint16(s[i+1])]; ok && g.used[n] < g.count[n] {
			g.used[n]++
			common++
		}
	}
	return 2 * float64(common) / float64(g.total+total)
}

// writeBlock quotes the block at first (plus a line of context each side),
// marking with ≠ the lines that differ from old_string.
func writeBlock(b *strings.Builder, t *text, lines []string, first, score int) {
	from, to := max(first-1, 0), min(first+len(lines)+1, t.n()) // to is exclusive
	inBlock := LineRange{max(first, 0) + 1, min(first+len(lines), t.n())}
	if len(lines) == 1 {
		fmt.Fprintf(b, "The most similar line of the file is line %d, marked ≠:\n", inBlock.First)
	} else {
		fmt.Fprintf(b, "The most similar text is at %s of the file, where %d of old_string's %d lines match "+
			"ignoring whitespace; ≠ marks lines that differ:\n", linesText([]LineRange{inBlock}), score, len(lines))
	}
	width := len(fmt.Sprint(to))
	for j := from; j < to; j++ {
		if shown := j - from; shown == maxShown {
			fmt.Fprintf(b, "  … %d more lines\n", to-j)
			break
		}
		mark := " "
		if k := j - first; k >= 0 && k < len(lines) && !sameSqueezed(t.line(j), squeeze(lines[k])) {
			mark = "≠"
		}
		fmt.Fprintf(b, "%s %*d│%s\n", mark, width, j+1, visible(t.line(j)))
	}
	b.WriteString("Copy old_string from these lines exactly, without the line numbers. " +
		"⇥ is a tab, · a trailing space, ␍ a carriage return: type the real characters, not the symbols.")
}

// visible makes invisible characters of a line visible: tabs, trailing
// spaces, stray carriage returns and other odd spaces or format runes.
func visible(line string) string {
	body := strings.TrimRight(line, " ")
	var b strings.Builder
	for _, r := range body {
		switch {
		case r == '\t':
			b.WriteString("⇥")
		case r == '\r':
			b.WriteString("␍")
		case r == ' ':
			b.WriteRune(r)
		case r == utf8.RuneError, unicode.IsSpace(r), unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(strings.Repeat("·", len(line)-len(body)))
	return b.String()
}

// hints catches mistakes a closest-block quote does not explain.
func hints(lines []string) []string {
	var out []string
	joined := strings.Join(lines, "\n")
	if strings.ContainsAny(joined, "⇥␍") {
		out = append(out, "old_string contains ⇥ or ␍: those symbols only mark tabs and carriage returns in "+
			"diagnostics; use the real characters.")
	}
	if numbered(lines) {
		out = append(out, "old_string seems to start its lines with line numbers from the view output; "+
			"leave the numbers out.")
	}
	return out
}

// numbered reports whether every non-blank line starts like a line of a
// numbered listing (see numberedLine), as when a model copies view output.
func numbered(lines []string) bool {
	seen := false
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		if !numberedLine(l) {
			return false
		}
		seen = true
	}
	return seen
}

// numberedLine reports whether a line starts with a line number in one of
// the forms listings use: optional blanks, an optional "L", digits, then a
// tab, or optional blanks and one of │ | → : ("  12│x", "12\tx", "2 | x",
// "12|x", "L12: x").
func numberedLine(l string) bool {
	rest := strings.TrimPrefix(strings.TrimLeft(l, " "), "L")
	after := strings.TrimLeft(rest, "0123456789")
	if len(after) == len(rest) {
		return false
	}
	if strings.HasPrefix(after, "\t") {
		return true
	}
	after = strings.TrimLeft(after, " ")
	r, size := utf8.DecodeRuneInString(after)
	return size > 0 && r != utf8.RuneError && strings.ContainsRune("│|→:", r)
}
