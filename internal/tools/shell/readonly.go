package shell

import (
	"strings"
)

// allKnown reports whether every word's value is known.
func allKnown(a []arg) bool {
	for _, w := range a {
		if !w.known() {
			return false
		}
	}
	return true
}

// globOptionRisk reports whether a pattern may expand to a name starting
// with "-", which a command would read as an option ("--pre=sh" is a valid
// file name). A pattern starting with a literal other than "-" cannot.
func globOptionRisk(w arg) bool {
	if !w.glob || w.val == "" {
		return false
	}
	switch w.val[0] {
	case '*', '?', '[', '-':
		return true
	}
	return false
}

// pathOperand records a path a read-only command reads; false when it
// cannot be known (then the command is not read-only). Patterns are only
// accepted after the judge expanded them, so an unexpanded one is unknown.
func (c *checker) pathOperand(r *report, w arg) bool {
	if !w.known() {
		return false
	}
	if w.val != "-" {
		r.path(c, w.val)
	}
	return true
}

// trusted reports whether a program name may count as read-only at all:
// called by its exact name and found through PATH outside the workspace.
// The reason it may not is noted in the report.
func (c *checker) trusted(r *report, name string) bool {
	if why := c.resolvedWhy(name); why != "" {
		r.note(why)
		return false
	}
	return true
}

// external decides read-only status for a program on the read-only list
// (readonly_table.go): its exact name, its location and every option.
func (c *checker) external(r *report, a []arg) bool {
	name := a[0].val
	if name == "ps" {
		return c.trusted(r, name) && psReadOnly(a)
	}
	p, ok := readOnlyPrograms()[name]
	if !ok {
		if cmdName(name) != name || strings.ContainsAny(name, `/\`) {
			r.note(name + " is not called by the plain name of a read-only program")
		}
		return false
	}
	if !allKnown(a[1:]) {
		r.note(name + ": some words are only known when it runs")
		return false
	}
	if !c.trusted(r, name) {
		return false
	}
	e := p.judge(name, vals(a[1:]))
	c.record(r, e)
	return e.why == ""
}

// psReadOnly: ps prints processes; its BSD-style "e" also prints their
// environments, which may hold secrets.
func psReadOnly(a []arg) bool {
	for _, w := range a[1:] {
		if !w.known() || (!strings.HasPrefix(w.val, "-") && strings.ContainsRune(w.val, 'e')) {
			return false
		}
	}
	return true
}
