package editmatch

import (
	"fmt"
	"strings"
)

// forgiven records how old_string differed from the file where it matched
// loosely, so the note can tell the model what was forgiven.
type forgiven struct {
	indentation bool // leading blanks differ
	whitespace  bool // other blanks differ: trailing, runs inside a line
	blankLines  bool // the number of blank lines differs somewhere
	// the first place where the numbers of blank lines differ
	blankAt               LineRange
	fileBlanks, oldBlanks int
}

// add compares old_string's lines with the file's lines of match m.
func (f *forgiven) add(oldLines []string, m match, t *text) {
	for i, l := range oldLines {
		if isBlank(l) {
			continue
		}
		fl := t.line(m.at[i])
		oi, fi := indentOf(l), indentOf(fl)
		f.indentation = f.indentation || oi != fi
		f.whitespace = f.whitespace || l[len(oi):] != fl[len(fi):]
	}
	if f.blankLines {
		return
	}
	gaps, _ := gapsOf(oldLines, m)
	for _, g := range gaps {
		if !g.exact() {
			e := blankLinesError(g, m)
			f.blankLines, f.blankAt, f.fileBlanks, f.oldBlanks = true, e.FileLines, e.FileBlanks, e.OldBlanks
			return
		}
	}
}

// note tells the model the edit was applied loosely, what was forgiven,
// and where the written lines are, so it checks the result.
func (f forgiven) note(changed []LineRange) string {
	var what []string
	if f.blankLines {
		where := fmt.Sprintf("%s blank %s at %s", countText(f.fileBlanks), plural(f.fileBlanks, "line", "lines"),
			linesText([]LineRange{f.blankAt}))
		if f.fileBlanks == 0 {
			where = fmt.Sprintf("no blank line before line %d", f.blankAt.First)
		}
		old := countText(f.oldBlanks)
		if f.oldBlanks == 0 {
			old = "none"
		}
		what = append(what, fmt.Sprintf("blank lines (the file has %s, old_string has %s)", where, old))
	}
	if f.indentation {
		what = append(what, "indentation")
	}
	if f.whitespace || len(what) == 0 {
		what = append(what, "other blanks (trailing ones, runs inside lines)")
	}
	return "Note: old_string did not match the file exactly; it was matched ignoring whitespace: " + joinAnd(what) +
		". Lines new_string keeps are left as the file has them, blank lines included; changed lines were " +
		"written in the file's indentation (now at " + linesText(changed) + "). Check the result."
}

// joinAnd joins phrases as prose: "a", "a and b", "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// countText writes a small count as a model reads it: "no", "1", "2".
func countText(n int) string {
	if n == 0 {
		return "no"
	}
	return fmt.Sprint(n)
}

// plural picks the word form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
