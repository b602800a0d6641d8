package editmatch

import (
	"strings"
	"unicode"
)

// pairing says which lines new_string keeps from old_string: the lines a
// model did not change, which therefore come back as the file has them.
type pairing struct {
	// order maps each new line to the old line it keeps, or -1, along
	// one ascending sequence (a longest common subsequence, plus the
	// alike lines): the structure of the edit. Blank new lines are paired
	// with blank old lines here too.
	order []int
	// from is order for non-blank lines plus lines moved out of order:
	// which old line's file text a new line repeats.
	from []int
	// unsure marks old blank lines whose pairing is a guess: they lie
	// among changed lines, with more or fewer blank lines in new_string.
	unsure []bool
	// alike maps new lines paired nowhere else to an old line in the same
	// stretch that is equal ignoring whitespace, or -1: a line the model
	// may have left as it was while quoting it differently.
	alike []int
}

// sameLine reports whether new line n repeats old line o: same text,
// trailing blanks aside (a model's trailing blanks mean nothing), and not
// blank.
func sameLine(o, n string) bool {
	return !isBlank(o) && trimTrailing(o) == trimTrailing(n)
}

// trimTrailing drops the blanks at the end of a line.
func trimTrailing(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// pairLines pairs the lines of old and new string: non-blank lines in
// order first (a longest common subsequence, or a greedy pass when the
// blocks are too large for one), then blank lines between them, then
// non-blank lines moved out of order.
func pairLines(oldLines, newLines []string) pairing {
	order := make([]int, len(newLines))
	for k := range order {
		order[k] = -1
	}
	alike := make([]int, len(newLines))
	for k := range alike {
		alike[k] = -1
	}
	if len(oldLines)*len(newLines) > 1<<20 {
		greedyPairs(oldLines, newLines, order)
		alikePairs(oldLines, newLines, order, alike)
	} else {
		lcsPairs(oldLines, newLines, order, alike)
	}
	from := append([]int(nil), order...)
	movedPairs(oldLines, newLines, from, alike)
	for k, i := range alike {
		if i >= 0 {
			order[k] = i // the same line, quoted differently: it keeps its place
		}
	}
	unsure := pairBlanks(oldLines, newLines, order)
	return pairing{order: order, from: from, alike: alike, unsure: unsure}
}

// alikePairs pairs, in each stretch between lines paired in order, the
// new lines still unpaired with old lines that are alike, in order.
func alikePairs(oldLines, newLines []string, order, alike []int) {
	inOrder := make([]bool, len(oldLines)) // paired in order: ends a stretch
	for _, i := range order {
		if i >= 0 {
			inOrder[i] = true
		}
	}
	next := 0 // the first old line of the current stretch
	for k, l := range newLines {
		if order[k] >= 0 {
			next = order[k] + 1
			continue
		}
		for i := next; i < len(oldLines) && !inOrder[i]; i++ {
			if alikeLine(oldLines[i], l) {
				alike[k], next = i, i+1
				break
			}
		}
	}
}

// alikeLine reports whether new line n may be old line o quoted with other
// blanks inside: indented alike, equal ignoring whitespace, not blank.
func alikeLine(o, n string) bool {
	return !isBlank(o) && indentOf(o) == indentOf(n) && squeeze(o) == squeeze(n)
}

// pairBlanks pairs blank lines in each stretch between two paired
// non-blank lines (and before the first and after the last), and returns
// the old blank lines whose pairing is a guess.
func pairBlanks(oldLines, newLines []string, order []int) (unsure []bool) {
	unsure = make([]bool, len(oldLines))
	prevOld, prevNew := -1, -1
	for k := 0; k <= len(newLines); k++ {
		if k < len(newLines) && order[k] < 0 {
			continue
		}
		nextOld, nextNew := len(oldLines), len(newLines)
		if k < len(newLines) {
			nextOld, nextNew = order[k], k
		}
		pairStretch(oldLines, newLines, order, unsure, prevOld+1, nextOld, prevNew+1, nextNew)
		prevOld, prevNew = nextOld, nextNew
	}
	return unsure
}

// pairStretch pairs the blank lines of old[a:b] and new[c:d]: the blank
// lines at the start of both in order, those at the end of both from the
// back, and the rest in order. So a run of blank lines next to a kept line
// stays next to it when the lines beyond it change. When old[a:b] has
// changed lines and the numbers of blank lines differ (new_string having
// some), which ones new_string keeps is a guess: they are marked unsure.
func pairStretch(oldLines, newLines []string, order []int, unsure []bool, a, b, c, d int) {
	var olds, news []int
	changed := false
	for i := a; i < b; i++ {
		if isBlank(oldLines[i]) {
			olds = append(olds, i)
		} else {
			changed = true
		}
	}
	for k := c; k < d; k++ {
		if isBlank(newLines[k]) {
			news = append(news, k)
		}
	}
	guess := changed && len(news) > 0 && len(olds) != len(news)
	for _, i := range olds {
		unsure[i] = guess
	}
	i, k := a, c
	for ; i < b && k < d && isBlank(oldLines[i]) && isBlank(newLines[k]); i, k = i+1, k+1 {
		order[k] = i
	}
	front, frontNew := i, k
	i, k = b-1, d-1
	for ; i >= front && k >= frontNew && isBlank(oldLines[i]) && isBlank(newLines[k]); i, k = i-1, k-1 {
		order[k] = i
	}
	for ; front <= i && frontNew <= k; front, frontNew = front+1, frontNew+1 {
		for front <= i && !isBlank(oldLines[front]) {
			front++
		}
		for frontNew <= k && !isBlank(newLines[frontNew]) {
			frontNew++
		}
		if front <= i && frontNew <= k {
			order[frontNew] = front
		}
	}
}

// movedPairs pairs new lines still unpaired with unused equal old lines,
// whatever their order, if the old line's text (ignoring whitespace) is
// unique in old_string: a moved line, not a look-alike made by whitespace
// slips.
func movedPairs(oldLines, newLines []string, from, alike []int) {
	used := make([]bool, len(oldLines))
	for k, i := range from {
		if i >= 0 {
			used[i] = true
		}
		if i := alike[k]; i >= 0 {
			used[i] = true
		}
	}
	seen := make(map[string]int)
	for _, o := range oldLines {
		seen[squeeze(o)]++
	}
	for k, l := range newLines {
		if from[k] >= 0 || alike[k] >= 0 || isBlank(l) {
			continue
		}
		for i, o := range oldLines {
			if !used[i] && sameLine(o, l) && seen[squeeze(o)] == 1 {
				from[k], used[i] = i, true
				break
			}
		}
	}
}

// Scores of a pair in lcsPairs: the most pairs win, then the most equal
// ones. (Blocks have at most 1<<10 lines on one side, so the sums fit.)
const (
	alikePair = 1 << 10
	exactPair = alikePair + 1
)

// lcsPairs pairs non-blank lines along the best common subsequence: the
// most lines paired, equal (sameLine) or alike (alikeLine), and then the
// most equal ones. Equal ones go to from, alike ones to alike.
func lcsPairs(oldLines, newLines []string, from, alike []int) {
	n, m := len(oldLines), len(newLines)
	type form struct{ trimmed, indent, key string }
	forms := func(lines []string) []form {
		out := make([]form, len(lines))
		for i, l := range lines {
			if !isBlank(l) {
				out[i] = form{trimTrailing(l), indentOf(l), squeeze(l)}
			}
		}
		return out
	}
	of, nf := forms(oldLines), forms(newLines)
	score := func(i, k int) int32 {
		o, l := of[i], nf[k]
		switch {
		case o.key == "" || o.key != l.key:
			return 0
		case o.trimmed == l.trimmed:
			return exactPair
		case o.indent == l.indent:
			return alikePair
		}
		return 0
	}
	// best[i][k] is the best score of oldLines[i:] and newLines[k:].
	best := make([][]int32, n+1)
	for i := range best {
		best[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for k := m - 1; k >= 0; k-- {
			b := max(best[i+1][k], best[i][k+1])
			if s := score(i, k); s > 0 {
				b = max(b, best[i+1][k+1]+s)
			}
			best[i][k] = b
		}
	}
	for i, k := 0, 0; i < n && k < m; {
		s := score(i, k)
		switch {
		case s > 0 && best[i][k] == best[i+1][k+1]+s:
			if s == exactPair {
				from[k] = i
			} else {
				alike[k] = i
			}
			i++
			k++
		case best[i+1][k] >= best[i][k+1]:
			i++
		default:
			k++
		}
	}
}

// greedyPairs pairs each non-blank new line with the next equal old line.
func greedyPairs(oldLines, newLines []string, from []int) {
	where := make(map[string][]int)
	for i, l := range oldLines {
		if !isBlank(l) {
			where[trimTrailing(l)] = append(where[trimTrailing(l)], i)
		}
	}
	last := -1
	for k, l := range newLines {
		for _, i := range where[trimTrailing(l)] {
			if i > last {
				from[k] = i
				last = i
				break
			}
		}
	}
}
