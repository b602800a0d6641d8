package shell

import (
	"slices"
	"strings"
)

// optSpec describes how a tool reads its options, so that option values are
// not mistaken for operands (or for the wrapped command of a wrapper).
// A flag missing from the spec is taken to have no value: a wrong guess then
// over-reports operands, which is the safe direction.
type optSpec struct {
	shortVal string   // short options taking a value: -n 5 or -n5
	longVal  []string // long options taking a value: --lines 5 or --lines=5
	digits   bool     // -NUM is one option (head -5, nice -10)
	stop     bool     // options end at the first operand (wrappers, git)
}

// opt is one option as written, split from its value.
type opt struct {
	name   string // "-n", "--lines"
	val    string
	hasVal bool
}

// parsed is a command line split into options and operands.
type parsed struct {
	opts     []opt
	operands []arg // with spec.stop: every word from the first operand on
}

func parseOpts(args []arg, spec optSpec) parsed {
	var p parsed
	for i := 0; i < len(args); i++ {
		a := args[i]
		w := a.val
		if !a.lit || a.tilde || w == "-" || !strings.HasPrefix(w, "-") {
			if spec.stop {
				p.operands = append(p.operands, args[i:]...)
				return p
			}
			p.operands = append(p.operands, a)
			continue
		}
		if w == "--" {
			p.operands = append(p.operands, args[i+1:]...)
			return p
		}
		if strings.HasPrefix(w, "--") {
			name, val, has := strings.Cut(w, "=")
			o := opt{name: name, val: val, hasVal: has}
			if !has && slices.Contains(spec.longVal, name[2:]) && i+1 < len(args) {
				i++
				o.val, o.hasVal = args[i].val, true
			}
			p.opts = append(p.opts, o)
			continue
		}
		if spec.digits && allDigits(w[1:]) {
			p.opts = append(p.opts, opt{name: w})
			continue
		}
		for j := 1; j < len(w); j++ {
			name := "-" + string(w[j])
			if strings.IndexByte(spec.shortVal, w[j]) < 0 {
				p.opts = append(p.opts, opt{name: name})
				continue
			}
			o := opt{name: name, hasVal: true}
			if j+1 < len(w) {
				o.val = w[j+1:]
			} else if i+1 < len(args) {
				i++
				o.val = args[i].val
			} else {
				o.hasVal = false
			}
			p.opts = append(p.opts, o)
			break
		}
	}
	return p
}

// has reports whether any of the options was given. Long names also match
// unambiguous abbreviations ("--compress-prog"), as GNU getopt accepts them.
func (p parsed) has(names ...string) bool {
	_, ok := p.get(names...)
	return ok
}

// get returns the value of the last of the named options that was given.
func (p parsed) get(names ...string) (string, bool) {
	val, found := "", false
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n || (strings.HasPrefix(n, "--") && len(o.name) > 3 && strings.HasPrefix(n, o.name)) {
				val, found = o.val, true
			}
		}
	}
	return val, found
}

// onlyOpts reports whether every option given is one of names (exact).
func (p parsed) onlyOpts(names ...string) bool {
	for _, o := range p.opts {
		if !slices.Contains(names, o.name) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
