package shell

import (
	"fmt"
	"strings"
)

// effects is what one command does beyond writing to its standard output,
// as far as the judge can tell from its words. Paths are as the program
// receives them (relative to its working folder).
type effects struct {
	reads   []string
	writes  []string
	deletes []string
	// walks are folders read recursively following symbolic links (walk).
	walks []string
	// why is the first reason the command is not read-only; "" means it
	// only reads the files in reads.
	why string
}

// not records a reason the command is not read-only (the first one wins).
func (e *effects) not(format string, a ...any) {
	if e.why == "" {
		e.why = fmt.Sprintf(format, a...)
	}
}

func (e *effects) read(p string) {
	if p != "" && p != "-" {
		e.reads = append(e.reads, p)
	}
}

func (e *effects) write(p string) {
	if p != "" && p != "-" {
		e.writes = append(e.writes, p)
	}
}

// program is a command the judge can read completely: every option it
// takes that matters, and what its operands are.
type program struct {
	opts *optTable
	// operands classifies the operands; nil means every operand is a file
	// or folder read.
	operands func(cl cmdLine, e *effects)
	// dot: with no file operand it reads the working folder (ls, du, rg).
	dot bool
	// check runs after the options are read, for what a table cannot say
	// (date's MMDDhhmm operand sets the clock, sed's script).
	check func(cl cmdLine, e *effects)
	// follows reports whether these options make the program walk its
	// folders recursively following symbolic links (grep -R, rg -L): then
	// every folder it reads is walked for links that lead out.
	follows func(cl cmdLine) bool
}

// judge reads a command's words (after the program name) with p and
// returns its effects.
func (p *program) judge(name string, words []string) effects {
	var e effects
	cl := p.opts.parseLine(words)
	if cl.unknown != "" {
		e.not("%s: option %s is not one agentls knows to be safe", name, cl.unknown)
	}
	for _, o := range cl.opts {
		switch o.def.eff {
		case effRead:
			if o.hasVal {
				e.read(o.val)
			}
		case effWrite:
			if o.hasVal {
				e.write(o.val)
			}
			e.not("%s %s writes %s", name, o.name, quoteOr(o.val, "a file"))
		case effExec:
			e.not("%s %s runs a program", name, o.name)
		case effChange:
			e.not("%s %s changes a setting", name, o.name)
		case effList:
			e.read(o.val)
			e.not("%s", listedFiles(name, o.name))
		}
	}
	if p.check != nil {
		p.check(cl, &e)
	}
	n := len(e.reads)
	if p.operands != nil {
		p.operands(cl, &e)
	} else {
		for _, o := range cl.operands {
			e.read(o)
		}
	}
	if p.dot && len(e.reads) == n {
		e.read(".") // no file named: it reads the working folder
	}
	if p.follows != nil && p.follows(cl) {
		for _, f := range e.reads[n:] {
			e.walk(f)
		}
	}
	return e
}

// followsWith: the program follows links when all of one group of
// options is given (ls -R with -L: {"-R", "-L"}), unless an option of
// unless is given too.
func followsWith(unless []string, groups ...[]string) func(cl cmdLine) bool {
	return func(cl cmdLine) bool {
		if len(unless) > 0 && cl.has(unless...) {
			return false
		}
		for _, g := range groups {
			all := true
			for _, alts := range g {
				if !cl.has(alts) {
					all = false
				}
			}
			if all {
				return true
			}
		}
		return false
	}
}

// quoteOr quotes s, or returns alt when s is empty.
func quoteOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return fmt.Sprintf("%q", s)
}

// Operand classifiers shared by several programs.

// dataOperands: the operands are text, not files (echo-like tools).
func dataOperands(cmdLine, *effects) {}

// patternThenFiles: the first operand is a pattern unless one of the
// pattern options was given; the rest are files read.
func patternThenFiles(patternOpts ...string) func(cl cmdLine, e *effects) {
	return func(cl cmdLine, e *effects) {
		ops := cl.operands
		if !cl.has(patternOpts...) && len(ops) > 0 {
			ops = ops[1:]
		}
		for _, o := range ops {
			e.read(o)
		}
	}
}

// recursiveDot: with a recursive option and no file, the working folder
// is read (grep -r).
func recursiveDot(patternOpts []string, recursive ...string) func(cl cmdLine, e *effects) {
	files := patternThenFiles(patternOpts...)
	return func(cl cmdLine, e *effects) {
		n := len(e.reads)
		files(cl, e)
		if len(e.reads) == n && cl.has(recursive...) {
			e.read(".")
		}
	}
}

// maxFiles: more file operands than n make the program write (uniq IN OUT).
func maxFiles(n int, name string) func(cl cmdLine, e *effects) {
	return func(cl cmdLine, e *effects) {
		for i, o := range cl.operands {
			if i < n {
				e.read(o)
				continue
			}
			e.write(o)
			e.not("%s writes its output to %q", name, o)
		}
	}
}

// listedFiles is the reason for options that read a list of file names
// from a file: the files read cannot be known before it runs.
func listedFiles(name, opt string) string {
	return fmt.Sprintf("%s %s reads files named inside another file, which cannot be checked before it runs", name, opt)
}

// hasPrefixAny reports whether s starts with one of the prefixes.
func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
