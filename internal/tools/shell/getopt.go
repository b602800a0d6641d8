package shell

import (
	"fmt"
	"slices"
	"strings"
)

// optStyle is how a program reads its command line.
type optStyle uint8

const (
	// styleGNU is getopt_long: options anywhere before "--" (operands are
	// permuted), short options clustered (-la, -n5), long options with
	// "=value" or the next word, and any unique prefix of a long option
	// accepted for it (--o=x is --output=x when nothing else starts so).
	styleGNU optStyle = iota
	// stylePOSIX is styleGNU with options ending at the first operand.
	stylePOSIX
	// styleGo is Go's flag package: -name or --name, "=value" or the next
	// word for non-boolean flags, no clusters, no abbreviations, options
	// end at the first operand.
	styleGo
	// styleGoAny is styleGo with flags read anywhere, as go test and go vet
	// do (go test ./... -run X); -args ends them.
	styleGoAny
)

// valKind says whether an option takes a value.
type valKind uint8

const (
	noVal  valKind = iota
	reqVal         // --lines=5, --lines 5, -n5, -n 5
	optVal         // --color[=WHEN], -O[level]: only an attached value
)

// effect is what an option's value (or an operand) makes the program do
// beyond writing to standard output.
type effect uint8

const (
	effSafe   effect = iota // prints, filters, formats, selects
	effRead                 // the value is a file or folder the program reads
	effWrite                // the value is a file the program writes
	effExec                 // it runs a program or code given in the value
	effChange               // it changes state that is not a file (a clock, a setting)
	effList                 // the value is a file listing more files to read
)

func (e effect) String() string {
	switch e {
	case effRead:
		return "reads a file"
	case effWrite:
		return "writes a file"
	case effExec:
		return "runs a program"
	case effChange:
		return "changes a setting"
	case effList:
		return "reads files listed in a file"
	}
	return "safe"
}

// optDef is one option of a program, under all its spellings.
type optDef struct {
	names []string // "-n", "--lines"
	val   valKind
	eff   effect
}

// optTable is every option a program takes that the judge knows about.
// An option missing from the table is unknown: the command is then not
// read-only and not grantable, whatever the option does.
type optTable struct {
	style  optStyle
	byName map[string]*optDef
	longs  []string // long names without "--", sorted, for abbreviations
	// digits: -NUM is an option (head -5, tail -20).
	digits bool
}

// optionTable builds a table from lines of spellings:
//
//	-n= --lines=          a value is required
//	--color[=]            an optional, attached-only value
//	-a --all              no value
//	-o= --output= >write  the value is a file written (>read, >exec, >change, >list)
//	#digits               -NUM is an option
//
// A malformed line panics: tables are fixed program text, checked by tests.
func optionTable(style optStyle, spec string) *optTable {
	t := &optTable{style: style, byName: map[string]*optDef{}}
	for _, line := range strings.Split(spec, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case line == "#digits":
			t.digits = true
			continue
		}
		d := &optDef{}
		for _, f := range strings.Fields(line) {
			if k, ok := strings.CutPrefix(f, ">"); ok {
				d.eff = parseEffect(k)
				continue
			}
			name := f
			switch {
			case strings.HasSuffix(f, "[=]"):
				name, d.val = strings.TrimSuffix(f, "[=]"), optVal
			case strings.HasSuffix(f, "="):
				name, d.val = strings.TrimSuffix(f, "="), reqVal
			}
			if !strings.HasPrefix(name, "-") || name == "-" || name == "--" {
				panic(fmt.Sprintf("shell: option table: bad spelling %q in %q", f, line))
			}
			if _, dup := t.byName[name]; dup {
				panic(fmt.Sprintf("shell: option table: %s listed twice (in %q)", name, strings.Fields(spec)[:3]))
			}
			d.names = append(d.names, name)
			t.byName[name] = d
			if l, ok := strings.CutPrefix(name, "--"); ok {
				t.longs = append(t.longs, l)
			}
		}
		if len(d.names) == 0 {
			panic(fmt.Sprintf("shell: option table: no spelling in %q", line))
		}
	}
	slices.Sort(t.longs)
	return t
}

func parseEffect(k string) effect {
	switch k {
	case "read":
		return effRead
	case "write":
		return effWrite
	case "exec":
		return effExec
	case "change":
		return effChange
	case "list":
		return effList
	}
	panic(fmt.Sprintf("shell: option table: unknown effect %q", k))
}

// optUse is one option as the program will read it.
type optUse struct {
	def    *optDef
	name   string // the canonical spelling matched ("--output" for --o=x)
	val    string
	hasVal bool
}

// cmdLine is a command's words read with its option table.
type cmdLine struct {
	opts     []optUse
	operands []string
	// dashes is the index in operands where "--" ended the options (the
	// operands from there on were written after it); -1 without "--".
	dashes int
	// unknown is the first word the table cannot read ("" when all are
	// known): an option missing from the table, an ambiguous abbreviation,
	// a value given to an option that takes none, a missing value.
	unknown string
}

// has reports whether an option with one of these canonical names was
// given.
func (c cmdLine) has(names ...string) bool {
	for _, o := range c.opts {
		if slices.Contains(names, o.name) {
			return true
		}
		for _, n := range o.def.names {
			if slices.Contains(names, n) {
				return true
			}
		}
	}
	return false
}

// value returns the value of the last given option among names.
func (c cmdLine) value(names ...string) (string, bool) {
	v, ok := "", false
	for _, o := range c.opts {
		for _, n := range o.def.names {
			if slices.Contains(names, n) && o.hasVal {
				v, ok = o.val, true
			}
		}
	}
	return v, ok
}

// parseLine reads words (the arguments after the program name) the way
// the program does.
func (t *optTable) parseLine(words []string) cmdLine {
	cl := cmdLine{dashes: -1}
	unknown := func(w string) {
		if cl.unknown == "" {
			cl.unknown = w
		}
	}
	ended := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if ended || w == "-" || !strings.HasPrefix(w, "-") {
			cl.operands = append(cl.operands, w)
			if t.style != styleGNU && t.style != styleGoAny {
				ended = true
			}
			continue
		}
		if t.style == styleGoAny && (w == "-args" || w == "--args") {
			ended = true
			cl.dashes = len(cl.operands)
			continue
		}
		if w == "--" && !ended {
			ended = true
			cl.dashes = len(cl.operands)
			continue
		}
		if t.digits && digitOption(w) {
			cl.opts = append(cl.opts, optUse{def: &optDef{names: []string{"-NUM"}}, name: w})
			continue
		}
		if t.style == styleGo || t.style == styleGoAny {
			i = t.goFlag(&cl, words, i, unknown)
			continue
		}
		if strings.HasPrefix(w, "--") {
			i = t.longOpt(&cl, words, i, unknown)
			continue
		}
		i = t.shortCluster(&cl, words, i, unknown)
	}
	return cl
}

// digitOption reports -NUM, with at most one trailing unit letter as
// head and tail accept (-20, -5c).
func digitOption(w string) bool {
	s := strings.TrimPrefix(w, "-")
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n > 0 && (n == len(s) || (n == len(s)-1 && strings.IndexByte("bcklmqvz", s[n]) >= 0))
}

// lookupLong finds a long option by exact name or unique prefix, as
// getopt_long does. ok is false for unknown or ambiguous names.
func (t *optTable) lookupLong(name string) (*optDef, string, bool) {
	if d, ok := t.byName["--"+name]; ok {
		return d, "--" + name, true
	}
	if name == "" {
		return nil, "", false
	}
	var found *optDef
	spelled := ""
	for _, l := range t.longs {
		if !strings.HasPrefix(l, name) {
			continue
		}
		d := t.byName["--"+l]
		if found != nil && found != d {
			return nil, "", false // ambiguous: the program refuses it too
		}
		found, spelled = d, "--"+l
	}
	return found, spelled, found != nil
}

func (t *optTable) longOpt(cl *cmdLine, words []string, i int, unknown func(string)) int {
	w := words[i]
	name, val, has := strings.Cut(w[2:], "=")
	d, spelled, ok := t.lookupLong(name)
	if !ok {
		unknown(w)
		return i
	}
	u := optUse{def: d, name: spelled, val: val, hasVal: has}
	switch d.val {
	case noVal:
		if has {
			unknown(w) // getopt refuses a value here
			return i
		}
	case reqVal:
		if !has {
			var ok bool
			if i, ok = nextValue(&u, words, i); !ok {
				unknown(w)
				return i
			}
		}
	}
	cl.opts = append(cl.opts, u)
	return i
}

// nextValue takes the word after i as u's value, as getopt and flag do
// for an option that needs one; ok is false at the end of the words.
func nextValue(u *optUse, words []string, i int) (int, bool) {
	if i+1 >= len(words) {
		return i, false
	}
	u.val, u.hasVal = words[i+1], true
	return i + 1, true
}

func (t *optTable) shortCluster(cl *cmdLine, words []string, i int, unknown func(string)) int {
	w := words[i]
	for j := 1; j < len(w); j++ {
		name := "-" + string(w[j])
		d, ok := t.byName[name]
		if !ok {
			unknown(w)
			return i
		}
		u := optUse{def: d, name: name}
		switch d.val {
		case noVal:
			cl.opts = append(cl.opts, u)
			continue
		case reqVal:
			u.val, u.hasVal = w[j+1:], true
			if u.val == "" {
				var ok bool
				if i, ok = nextValue(&u, words, i); !ok {
					unknown(w)
					return i
				}
			}
		case optVal:
			u.val, u.hasVal = w[j+1:], j+1 < len(w)
		}
		cl.opts = append(cl.opts, u)
		return i
	}
	return i
}

// goFlag reads one flag the way Go's flag package does.
func (t *optTable) goFlag(cl *cmdLine, words []string, i int, unknown func(string)) int {
	w := words[i]
	body := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-")
	if body == "" || body[0] == '-' || body[0] == '=' {
		unknown(w)
		return i
	}
	name, val, has := strings.Cut(body, "=")
	d, ok := t.byName["-"+name]
	if !ok {
		unknown(w)
		return i
	}
	u := optUse{def: d, name: "-" + name, val: val, hasVal: has}
	if d.val == reqVal && !has {
		var ok bool
		if i, ok = nextValue(&u, words, i); !ok {
			unknown(w)
			return i
		}
	}
	cl.opts = append(cl.opts, u)
	return i
}
