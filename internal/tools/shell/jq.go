package shell

import (
	"strings"

	"github.com/agentls/agentls/internal/tools/confine"
)

// jq reads its command line its own way (jq 1.6 and 1.7, src/main.c), not
// getopt's: long options match exactly (no abbreviations: --arg is not
// --args), --arg/--argjson take two values and --rawfile/--slurpfile/
// --argfile a name and a FILE it reads, short options stack in one word
// (-nr), -L takes a library folder, "--" ends the options, and
// --args/--jsonargs turn only the positional words AFTER them into
// values: a file named before stays a file.

// jqFlags are jq's options that take no value and only shape the output.
var jqFlags = map[string]bool{
	"--slurp": true, "--raw-output": true, "--raw-output0": true, "--join-output": true,
	"--compact-output": true, "--color-output": true, "--monochrome-output": true,
	"--ascii-output": true, "--unbuffered": true, "--sort-keys": true, "--raw-input": true,
	"--null-input": true, "--binary": true, "--tab": true, "--seq": true, "--stream": true,
	"--stream-errors": true, "--exit-status": true, "--debug-dump-disasm": true,
	"--debug-trace": true, "--debug-trace=all": true, "--help": true, "--version": true,
	"--build-configuration": true,
}

// jqShort are the stackable one-letter options: all flags but -f, which
// makes the program a file.
const jqShort = "srjcCMaSRnfbehV"

// jqRisky are the filter's builtins that reach past the input: the
// environment, the input's file name, modules loaded from the file system.
var jqRisky = map[string]string{
	"env": "reads the environment", "$ENV": "reads the environment",
	"input_filename": "prints the input's file name", "import": "loads a module from a file",
	"include": "loads a module from a file", "modulemeta": "reads a module's file",
	"get_search_list": "prints the module search path", "get_prog_origin": "prints where the program lives",
	"get_jq_origin": "prints where jq lives",
}

// jq judges a jq command line.
func (c *checker) jq(r *report, a []arg) bool {
	if !allKnown(a[1:]) {
		r.note("jq: some words are only known when it runs")
		return false
	}
	var e effects
	words := vals(a[1:])
	program, haveProgram, fromFile := "", false, false
	strs, done := false, false
	for i := 0; i < len(words); i++ {
		w := words[i]
		optish := len(w) > 1 && w[0] == '-' && (w[1] == '-' || isAlpha(w[1]))
		if done || !optish {
			switch {
			case !haveProgram:
				program, haveProgram = w, true
			case strs:
				// a value of $ARGS.positional
			default:
				e.read(w)
			}
			continue
		}
		if w == "--" {
			done = true
			continue
		}
		if w[1] == 'L' {
			e.not("jq -L loads modules from %s", quoteOr(strings.TrimPrefix(w, "-L"), "a folder"))
			if len(w) == 2 {
				i++
			}
			continue
		}
		if strings.HasPrefix(w, "--") {
			switch w {
			case "--args", "--jsonargs":
				strs = true
			case "--arg", "--argjson":
				i += 2
			case "--rawfile", "--slurpfile", "--argfile":
				if i+2 < len(words) {
					e.read(words[i+2])
				}
				i += 2
			case "--indent":
				i++
			case "--from-file":
				fromFile = true
			case "--run-tests":
				e.not("jq --run-tests runs the tests of a file")
			default:
				if !jqFlags[w] {
					e.not("jq: option %s is not one agentls knows to be safe", w)
				}
			}
			continue
		}
		for _, ch := range w[1:] {
			if !strings.ContainsRune(jqShort, ch) {
				e.not("jq: option %s is not one agentls knows to be safe", w)
				break
			}
			if ch == 'f' {
				fromFile = true
			}
		}
	}
	switch {
	case fromFile && haveProgram:
		e.read(program)
		if text, ok := c.smallFile(program); ok {
			c.jqFilter(&e, text)
		} else {
			e.not("jq -f %s: the program file cannot be read to check it", program)
		}
	case haveProgram:
		c.jqFilter(&e, program)
	}
	c.record(r, e)
	return e.why == ""
}

// jqFilter finds the builtins of jqRisky in a jq program: called by name,
// not as a field (.env) or a variable ($env), and not inside a string —
// but inside a string's \(…) interpolation, which is code.
func (c *checker) jqFilter(e *effects, text string) {
	for _, id := range jqIdentifiers(text) {
		if why, ok := jqRisky[id]; ok {
			e.not("jq %s %s", id, why)
			return
		}
	}
}

// jqIdentifiers lists the names a jq program uses as functions, keywords
// or $variables (a field's name after "." is left out).
func jqIdentifiers(text string) []string {
	var out []string
	var code func(i int, stopAtParen bool) int
	str := func(i int) int { // i after the opening quote; returns after the closing one
		for i < len(text) {
			switch text[i] {
			case '\\':
				if i+1 < len(text) && text[i+1] == '(' {
					i = code(i+2, true)
					continue
				}
				i += 2
			case '"':
				return i + 1
			default:
				i++
			}
		}
		return i
	}
	code = func(i int, stopAtParen bool) int {
		depth := 0
		prev := byte(0) // the last character that is not a space
		for i < len(text) {
			ch := text[i]
			switch {
			case ch == '"':
				i = str(i + 1)
				prev = '"'
				continue
			case ch == '#':
				for i < len(text) && text[i] != '\n' {
					i++
				}
				continue
			case ch == '(':
				depth++
			case ch == ')':
				if depth == 0 && stopAtParen {
					return i + 1
				}
				depth--
			case ch == '$' || ch == '_' || isAlpha(ch):
				j := i + 1
				for j < len(text) && (text[j] == '_' || isAlpha(text[j]) || (text[j] >= '0' && text[j] <= '9') || text[j] == ':' && j+1 < len(text) && text[j+1] == ':') {
					if text[j] == ':' {
						j++
					}
					j++
				}
				if prev != '.' {
					out = append(out, text[i:j])
				}
				i = j
				prev = 'a'
				continue
			}
			if ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' {
				prev = ch
			}
			i++
		}
		return i
	}
	code(0, false)
	return out
}

func isAlpha(ch byte) bool { return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' }

// smallFile reads a program file the judge may look into: inside the
// workspace and at most maxScript bytes.
func (c *checker) smallFile(p string) (string, bool) {
	abs, ok := c.place(p)
	if !ok || c.roots == nil || !confine.Inside(c.roots, "", abs) {
		return "", false
	}
	b, err := readLimited(abs, maxScript)
	if err != nil {
		return "", false
	}
	return string(b), true
}
