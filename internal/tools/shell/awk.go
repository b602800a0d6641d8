package shell

import (
	"fmt"
	"strings"
)

// awk programs are read-only when the program only reads its input files
// and prints to standard output: no system(), no pipe to or from a
// command (|, |&), no getline (it reads files and commands), no print or
// printf redirected into a file (> and >> inside a print statement, where
// outside one > compares), no ENVIRON or PROCINFO, no @include or @load,
// and options that change nothing else (-F, -v, -f with a program file
// inside the workspace, -e, --posix, --sandbox, -k/--csv). The program's
// text is read past its strings, regular expressions and comments.

// awk judges awk, gawk, mawk and nawk.
func (c *checker) awk(r *report, a []arg) bool {
	name := a[0].val
	if !allKnown(a[1:]) {
		r.note(name + ": some words are only known when it runs")
		return false
	}
	var e effects
	words := vals(a[1:])
	var programs []string
	haveProgram := false
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			break
		}
		val := func(short, long string) (string, bool) {
			switch {
			case w == short || w == long:
				if i+1 < len(words) {
					i++
					return words[i], true
				}
				return "", false
			case short != "" && strings.HasPrefix(w, short) && !strings.HasPrefix(w, "--"):
				return w[len(short):], true
			case long != "" && strings.HasPrefix(w, long+"="):
				return w[len(long)+1:], true
			}
			return "", false
		}
		if _, ok := val("-F", "--field-separator"); ok {
			continue
		}
		if _, ok := val("-v", "--assign"); ok {
			continue
		}
		if f, ok := val("-f", "--file"); ok {
			e.read(f)
			if text, ok := c.smallFile(f); ok {
				programs = append(programs, text)
			} else {
				e.not("%s -f %s: the program file cannot be read to check it", name, f)
			}
			haveProgram = true
			continue
		}
		if p, ok := val("-e", "--source"); ok {
			programs = append(programs, p)
			haveProgram = true
			continue
		}
		switch w {
		case "--posix", "--traditional", "--sandbox", "-k", "--csv", "--re-interval", "--characters-as-bytes", "--use-lc-numeric":
			continue
		}
		e.not("%s: option %s is not one agentls knows to be safe", name, w)
	}
	if !haveProgram {
		if i >= len(words) {
			e.not("%s: no program", name)
		} else {
			programs = append(programs, words[i])
			i++
		}
	}
	for _, w := range words[i:] {
		if k, _, ok := strings.Cut(w, "="); ok && awkName(k) {
			continue // a variable assignment, not a file
		}
		e.read(w)
	}
	for _, p := range programs {
		if why := awkProgramWhy(p); why != "" {
			e.not("%s: %s", name, why)
			break
		}
	}
	c.record(r, e)
	return e.why == ""
}

// awkName reports whether s is an awk variable name (so NAME=value on
// the command line assigns it).
func awkName(s string) bool {
	if s == "" || !(isAlpha(s[0]) || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !(isAlpha(s[i]) || s[i] == '_' || s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

// awkProgramWhy says what in an awk program is not read-only ("": all of
// it only reads its input and prints).
func awkProgramWhy(p string) string {
	depth := 0
	printDepth := -1 // the paren depth of the print statement being read, -1 outside one
	operand := false // the last token ends an operand: a / then divides
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case ch == '"':
			j := i + 1
			for j < len(p) && p[j] != '"' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			i, operand = j, true
		case ch == '/' && !operand:
			j := i + 1
			inClass := false
			for j < len(p) && (p[j] != '/' || inClass) {
				switch p[j] {
				case '\\':
					j++
				case '[':
					inClass = true
				case ']':
					inClass = false
				}
				j++
			}
			i, operand = j, true
		case ch == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			operand = false
		case ch == '@':
			return "an @ directive loads or includes code"
		case ch == '|':
			if i+1 < len(p) && p[i+1] == '|' {
				i++
				operand = false
				continue
			}
			return "| runs a command"
		case ch == '>':
			if printDepth >= 0 && depth == printDepth {
				return "print > writes a file"
			}
			operand = false
		case ch == '(':
			depth++
			operand = false
		case ch == ')':
			depth--
			operand = true
		case ch == ';' || ch == '\n' || ch == '{' || ch == '}':
			if depth <= printDepth || ch != ';' && ch != '\n' {
				printDepth = -1
			}
			operand = false
		case isAlpha(ch) || ch == '_':
			j := i
			for j < len(p) && (isAlpha(p[j]) || p[j] == '_' || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			word := p[i:j]
			switch word {
			case "system", "getline", "close", "ENVIRON", "PROCINFO":
				return fmt.Sprintf("%s reaches past the input", word)
			case "print", "printf":
				printDepth = depth
				operand = false
			default:
				operand = !awkKeyword(word)
			}
			i = j - 1
		case ch >= '0' && ch <= '9' || ch == '$' || ch == ']':
			operand = true
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\\':
		default:
			operand = false
		}
	}
	return ""
}

// awkKeyword are the words after which a / starts a regular expression.
func awkKeyword(w string) bool {
	switch w {
	case "if", "while", "for", "do", "else", "return", "in", "case", "BEGIN", "END":
		return true
	}
	return false
}
