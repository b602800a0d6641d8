package shell

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxFields bounds what static expansion may produce (a glob over a huge
// tree, {1..99999}): beyond it the words count as unknown.
const maxFields = 4096

// scriptVars are the variables a script may set itself: their values
// before it runs say nothing about their values when a command runs.
type scriptVars struct {
	names map[string]bool
	// all: the script may set any variable (eval, source, read, declare…).
	all bool
}

// assignedVars walks a script for every way it can set a variable.
func assignedVars(f *syntax.File) *scriptVars {
	sv := &scriptVars{names: map[string]bool{"PWD": true, "OLDPWD": true}}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				sv.names[n.Name.Value] = true
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok {
				sv.names[wi.Name.Value] = true
			} else {
				sv.all = true // C-style loops assign in arithmetic
			}
		case *syntax.DeclClause, *syntax.LetClause, *syntax.ArithmCmd:
			sv.all = true
		case *syntax.BinaryArithm:
			if arithAssign(n.Op) {
				sv.all = true
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				sv.all = true
			}
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				sv.names[n.Param.Value] = true
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				switch wordArg(n.Args[0]).val {
				case "read", "mapfile", "readarray", "getopts", "eval", "source", ".",
					"export", "declare", "typeset", "local", "readonly", "unset", "let":
					sv.all = true
				case "printf":
					for _, w := range n.Args[1:] {
						if a := wordArg(w); !a.lit || a.val == "-v" {
							sv.all = true
						}
					}
				}
			}
		}
		return true
	})
	return sv
}

// staticEnv is what the judge expands words with: the run's environment,
// except that a variable the script may set, or one only the running
// shell knows ($1, $?, $RANDOM), is reported as unknown.
type staticEnv struct {
	base    map[string]string
	vars    *scriptVars
	dir     string
	unknown *bool
}

func (e staticEnv) Get(name string) expand.Variable {
	switch {
	case name == "PWD":
		return strVar(e.dir)
	case shellOnly(name) || (e.vars != nil && (e.vars.all || e.vars.names[name])):
		*e.unknown = true
		return expand.Variable{}
	case strings.Contains(name, " "):
		return expand.Variable{} // "HOME user": let expand look the user up
	}
	if v, ok := e.base[name]; ok {
		return strVar(v)
	}
	return expand.Variable{} // unset: the interpreter expands it to "" too
}

func (e staticEnv) Each(f func(string, expand.Variable) bool) {
	for k, v := range e.base {
		if !f(k, strVar(v)) {
			return
		}
	}
}

func strVar(s string) expand.Variable {
	return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: s}
}

// shellOnly reports parameters whose value only the running shell knows.
func shellOnly(name string) bool {
	if len(name) == 1 && strings.ContainsAny(name, "@*#?-$!0123456789_") {
		return true
	}
	if allDigits(name) {
		return true
	}
	switch name {
	case "RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "EPOCHREALTIME", "EPOCHSECONDS",
		"BASH_REMATCH", "PIPESTATUS", "FUNCNAME", "DIRSTACK", "GLOBIGNORE", "BASH_COMMAND", "REPLY", "OPTARG", "OPTIND":
		return true
	}
	return false
}

var errTooMany = errors.New("expansion too large")

// expandArgs computes a simple command's words exactly as the interpreter
// will: braces, tilde, variables from the environment, arithmetic, quote
// removal and globbing against the file system in the current folder.
// ok is false when a word depends on something only known while the
// script runs (a command substitution, a variable the script sets).
// Every path a glob matched is recorded in r as a read (nil r: not
// recorded): `echo ~/.ssh/*` reads the names in ~/.ssh.
func (c *checker) expandArgs(words []*syntax.Word, r *report) (out []arg, ok bool) {
	out, ok = c.expandWords(words)
	if !ok || r == nil {
		return out, ok
	}
	for _, w := range words {
		if !globWord(w) {
			continue
		}
		fields, _ := c.expandWords([]*syntax.Word{w})
		for _, f := range fields {
			c.addPath(r, &r.reads, f.val)
		}
	}
	return out, ok
}

// globWord reports whether a word holds an unquoted glob character, so
// expanding it lists folders.
func globWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[") {
			return true
		}
	}
	return false
}

// expandWords is expandArgs without recording anything.
func (c *checker) expandWords(words []*syntax.Word) (out []arg, ok bool) {
	if c.dir == "" || c.base == nil {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			out, ok = nil, false // the expander failed on a form it does not support
		}
	}()
	unknown := false
	reads := 0
	cfg := &expand.Config{
		Env: staticEnv{base: c.base, vars: c.vars, dir: c.dir, unknown: &unknown},
		CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) error {
			if pwdSubst(cs) {
				_, err := io.WriteString(w, c.dir) // $(pwd): the folder the judge follows
				return err
			}
			return errors.New("a command substitution is only known when it runs")
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) {
			return "", errors.New("a process substitution is only known when it runs")
		},
		ReadDir2: func(dir string) ([]fs.DirEntry, error) {
			reads++
			if reads > maxFields {
				return nil, errTooMany
			}
			return os.ReadDir(dir)
		},
	}
	for s, err := range expand.FieldsSeq(cfg, words...) {
		if err != nil || unknown || len(out) >= maxFields {
			return nil, false
		}
		out = append(out, arg{val: s, lit: true})
	}
	if unknown {
		return nil, false
	}
	return out, true
}

// pwdSubst reports whether a command substitution is $(pwd) (or pwd -L,
// pwd -P), whose value the judge knows: the current folder.
func pwdSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	st := cs.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || len(st.Redirs) > 0 || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return false
	}
	for i, w := range ce.Args {
		a := wordArg(w)
		if !a.lit || i == 0 && a.val != "pwd" || i > 0 && a.val != "-L" && a.val != "-P" {
			return false
		}
	}
	return true
}
