package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/agentls/agentls/internal/tools/confine"
)

// lookPathFunc finds the file a bare program name runs, the way the
// interpreter will (PATH, relative entries included, from dir).
type lookPathFunc func(dir, name string) (string, error)

// envLookPath resolves names through the PATH of env, as the interpreter's
// exec handler does.
func envLookPath(env expand.Environ) lookPathFunc {
	return func(dir, name string) (string, error) { return interp.LookPathDir(dir, env, name) }
}

// resolvedWhy says why a program name cannot count as a trusted system
// program, or "" when it can: a bare name (no path), found through PATH,
// at a location outside every workspace root. Names are compared
// case-sensitively by the caller: "LS" is not "ls", even where a
// case-folding file system would run the same file.
func (c *checker) resolvedWhy(name string) string {
	if strings.ContainsAny(name, `/\`) {
		return fmt.Sprintf("%s is named by a path, so it may be a program the workspace ships", name)
	}
	if c.lookPath == nil {
		return fmt.Sprintf("where %s comes from cannot be checked here", name)
	}
	p, err := c.lookPath(c.dir, name)
	if err != nil {
		return fmt.Sprintf("%s is not found in PATH", name)
	}
	real, ok := confine.Resolve(c.dir, p)
	if !ok {
		return fmt.Sprintf("%s (%s) cannot be resolved", name, p)
	}
	for _, r := range c.roots {
		if confine.Within(r, real) {
			return fmt.Sprintf("%s resolves to %s, inside the workspace", name, real)
		}
	}
	return ""
}

// builtin judges the interpreter's own builtins that change nothing
// outside the shell. handled is false for names that are not such a
// builtin (they are judged as programs or wrappers).
func (c *checker) builtin(r *report, a []arg) (handled, ro bool) {
	name := a[0].val
	switch name {
	case "echo", "true", "false", ":", "exit", "return", "break", "continue", "wait", "dirs":
		return true, true // arguments are data, whatever they expand to
	case "test", "[":
		// test -e ~/.ssh/id_rsa probes a file: a read of it.
		for i := 1; i+1 < len(a); i++ {
			if a[i].known() && fileTest(a[i].val) {
				if a[i+1].known() {
					c.addPath(r, &r.reads, a[i+1].val)
				} else {
					r.unplaced = true
				}
			}
		}
		for i := 2; i+1 < len(a); i++ {
			if a[i].known() && (a[i].val == "-nt" || a[i].val == "-ot" || a[i].val == "-ef") {
				for _, w := range []arg{a[i-1], a[i+1]} {
					if w.known() {
						c.addPath(r, &r.reads, w.val)
					}
				}
			}
		}
		return true, true
	case "printf":
		for _, w := range a[1:] {
			if !w.known() || w.val == "-v" {
				return true, false // -v assigns a variable
			}
		}
		return true, true
	case "pwd":
		for _, w := range a[1:] {
			if w.val != "-L" && w.val != "-P" {
				return true, false
			}
		}
		return true, true
	case "type":
		for _, w := range a[1:] {
			if !w.known() {
				return true, false
			}
		}
		return true, true
	case "set":
		return true, setReadOnly(a[1:])
	case "cd":
		c.cd(r, a[1:])
		return true, true
	}
	return false, false
}

// setReadOnly allows the shell options scripts start with (set -euo
// pipefail, set -x); anything else may change how later words expand.
func setReadOnly(words []arg) bool {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.known() {
			return false
		}
		switch {
		case w.val == "-o" || w.val == "+o":
			if i+1 >= len(words) {
				return true // prints the options
			}
			i++
			switch words[i].val {
			case "pipefail", "errexit", "nounset", "xtrace", "verbose":
			default:
				return false
			}
		case (strings.HasPrefix(w.val, "-") || strings.HasPrefix(w.val, "+")) && len(w.val) > 1:
			for _, ch := range w.val[1:] {
				if !strings.ContainsRune("euxvo", ch) {
					return false
				}
				if ch == 'o' {
					if i+1 >= len(words) {
						return false
					}
					i++
					switch words[i].val {
					case "pipefail", "errexit", "nounset", "xtrace", "verbose":
					default:
						return false
					}
				}
			}
		default:
			return false // set -- args, set with names
		}
	}
	return true
}

// cd follows the working folder for the commands after it, when its
// target is known; otherwise later relative paths become unknown.
func (c *checker) cd(r *report, words []arg) {
	var target string
	switch {
	case len(words) == 0:
		target = c.home
	case len(words) == 1 && words[0].known() && words[0].val != "-":
		target = words[0].val
	case len(words) == 2 && (words[0].val == "-P" || words[0].val == "-L") && words[1].known():
		target = words[1].val
	}
	if target == "" {
		c.dir = ""
		return
	}
	if c.dir == "" && !strings.HasPrefix(target, "/") {
		return
	}
	abs, ok := confine.Resolve(c.dir, target)
	if !ok {
		c.dir = ""
		return
	}
	c.dir = abs
}

// fileTest reports whether a test operator probes a file (-e, -f, -d …).
func fileTest(op string) bool {
	if len(op) != 2 || op[0] != '-' {
		return false
	}
	return strings.IndexByte("abcdefghkprsuwxGLNOS", op[1]) >= 0
}

// probe records the file a [[ -e FILE ]] test looks at as a read.
func (c *checker) probe(r *report, w *syntax.Word) {
	if fields, ok := c.expandArgs([]*syntax.Word{w}, r); ok && len(fields) == 1 {
		c.addPath(r, &r.reads, fields[0].val)
		return
	}
	if a := wordArg(w); a.known() {
		c.addPath(r, &r.reads, a.val)
		return
	}
	r.unplaced = true
}
