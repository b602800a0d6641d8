package shell

import (
	"fmt"
	"strings"
)

// sedScripts returns the script sed will run: the -e and --expression
// values joined by newlines, or else the first operand. file is true when
// a script comes from a file (-f), which the judge does not read.
func sedScripts(cl cmdLine) (script string, fromFile bool, operandUsed bool) {
	var parts []string
	for _, o := range cl.opts {
		switch o.name {
		case "-e", "--expression":
			parts = append(parts, o.val)
		case "-f", "--file":
			fromFile = true
		}
	}
	if len(parts) == 0 && !fromFile && len(cl.operands) > 0 {
		return cl.operands[0], false, true
	}
	return strings.Join(parts, "\n"), fromFile, false
}

// sedOperands: the files sed reads (and, with -i, rewrites in place).
func sedOperands(cl cmdLine, e *effects) {
	_, _, used := sedScripts(cl)
	files := cl.operands
	if used {
		files = files[1:]
	}
	inPlace := cl.has("-i", "--in-place")
	for _, f := range files {
		e.read(f)
		if inPlace {
			e.write(f)
		}
	}
	if inPlace {
		e.not("sed -i rewrites the files it edits")
	}
}

// sedCheck reads the script: the commands e (run a program), w and W
// (write a file), s///e and s///w make it not read-only; r and R read a
// file.
func sedCheck(cl cmdLine, e *effects) {
	script, fromFile, _ := sedScripts(cl)
	if fromFile {
		e.not("sed -f runs a script file that is not checked")
		return
	}
	fx, err := scanSed(script)
	if err != nil {
		e.not("sed script cannot be checked: %v", err)
		return
	}
	for _, p := range fx.reads {
		e.read(p)
	}
	for _, p := range fx.writes {
		e.write(p)
	}
	if fx.why != "" {
		e.not("%s", fx.why)
	}
}

// sedScan walks a sed script the way GNU sed reads it (delimiters are
// found without regard to bracket expressions, as sed's own match_slash
// does).
type sedScan struct {
	s   string
	i   int
	out effects
}

// scanSed reports what a sed script reads, writes and runs. An error
// means the script could not be read with certainty.
func scanSed(script string) (effects, error) {
	p := &sedScan{s: script}
	depth := 0
	for {
		p.skip(" \t\n;")
		if p.i >= len(p.s) {
			break
		}
		if p.s[p.i] == '#' {
			p.toEOL()
			continue
		}
		if err := p.address(); err != nil {
			return effects{}, err
		}
		p.skip(" \t")
		for p.i < len(p.s) && p.s[p.i] == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.i >= len(p.s) {
			return effects{}, fmt.Errorf("missing command")
		}
		c := p.s[p.i]
		p.i++
		switch c {
		case '{':
			depth++
			continue
		case '}':
			depth--
			if depth < 0 {
				return effects{}, fmt.Errorf("unexpected }")
			}
		case '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z':
		case 'l', 'L', 'q', 'Q':
			p.skip(" \t")
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
		case 'a', 'i', 'c':
			p.text()
			continue
		case ':', 'b', 't', 'T', 'v':
			p.label()
		case 'r', 'R':
			p.out.read(p.fileName())
			continue
		case 'w', 'W':
			f := p.fileName()
			p.out.write(f)
			p.out.not("the sed command %c writes %s", c, quoteOr(f, "a file"))
			continue
		case 'e':
			p.out.not("the sed command e runs a program")
			p.toEOL()
			continue
		case 's':
			toEOL, err := p.substitute()
			if err != nil {
				return effects{}, err
			}
			if toEOL {
				continue
			}
		case 'y':
			if err := p.delimited(2); err != nil {
				return effects{}, err
			}
		default:
			return effects{}, fmt.Errorf("unknown command %q", string(c))
		}
		p.skip(" \t")
		if p.i < len(p.s) && !strings.ContainsRune(";\n}#", rune(p.s[p.i])) {
			return effects{}, fmt.Errorf("unexpected %q after a command", string(p.s[p.i]))
		}
	}
	if depth != 0 {
		return effects{}, fmt.Errorf("unmatched {")
	}
	return p.out, nil
}

func (p *sedScan) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedScan) toEOL() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
}

// address reads up to two addresses.
func (p *sedScan) address() error {
	if err := p.oneAddress(); err != nil {
		return err
	}
	p.skip(" \t")
	if p.i < len(p.s) && p.s[p.i] == ',' {
		p.i++
		p.skip(" \t")
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '~') {
			p.i++
		}
		return p.oneAddress()
	}
	return nil
}

func (p *sedScan) oneAddress() error {
	if p.i >= len(p.s) {
		return nil
	}
	switch c := p.s[p.i]; {
	case c >= '0' && c <= '9':
		for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '~') {
			p.i++
		}
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
		}
		if err := p.delimited(1); err != nil {
			return err
		}
		for p.i < len(p.s) && (p.s[p.i] == 'I' || p.s[p.i] == 'M') {
			p.i++
		}
	}
	return nil
}

// delimited reads n delimited parts: the delimiter is the next character.
func (p *sedScan) delimited(n int) error {
	if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return fmt.Errorf("bad delimiter")
	}
	d := p.s[p.i]
	p.i++
	for k := 0; k < n; k++ {
		for {
			if p.i >= len(p.s) {
				return fmt.Errorf("unterminated expression")
			}
			c := p.s[p.i]
			p.i++
			if c == '\\' {
				p.i++
				continue
			}
			if c == d {
				break
			}
		}
	}
	return nil
}

// substitute reads s/regex/replacement/flags; toEOL is set when a w flag
// took the rest of the line as its file name.
func (p *sedScan) substitute() (toEOL bool, err error) {
	if err := p.delimited(2); err != nil {
		return false, err
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || (c >= '0' && c <= '9'):
			p.i++
		case c == 'e':
			p.i++
			p.out.not("the sed flag s///e runs the pattern space as a command")
		case c == 'w':
			p.i++
			f := p.fileName()
			p.out.write(f)
			p.out.not("the sed flag s///w writes %s", quoteOr(f, "a file"))
			return true, nil
		default:
			return false, nil
		}
	}
	return false, nil
}

// text skips the text of a, i and c (to the end of the line, with
// backslash-newline continuing it).
func (p *sedScan) text() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c == '\\' && p.i < len(p.s) {
			p.i++
			continue
		}
		if c == '\n' {
			return
		}
	}
}

// label skips a label, which ends at a semicolon or newline.
func (p *sedScan) label() {
	for p.i < len(p.s) && p.s[p.i] != ';' && p.s[p.i] != '\n' {
		p.i++
	}
}

// fileName reads the file name of r, R, w, W and s///w: the rest of the
// line, leading blanks skipped.
func (p *sedScan) fileName() string {
	p.skip(" \t")
	start := p.i
	p.toEOL()
	return p.s[start:p.i]
}
