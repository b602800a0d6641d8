package permission

import "strings"

// hasWordPrefix reports whether words[i:] starts with want; the first word
// is compared by basename so /usr/bin/git matches git.
func hasWordPrefix(words, want []string, i int) bool {
	if len(want) == 0 || len(words)-i < len(want) {
		return false
	}
	if !sameProgram(words[i], want[0]) {
		return false
	}
	for j := 1; j < len(want); j++ {
		if words[i+j] != want[j] {
			return false
		}
	}
	return true
}

// sameProgram reports whether word names program name, possibly by path
// (/usr/bin/git is git), without allocating.
func sameProgram(word, name string) bool {
	if len(word) < len(name) || word[len(word)-len(name):] != name {
		return false
	}
	if len(word) == len(name) {
		return true
	}
	c := word[len(word)-len(name)-1]
	return c == '/' || c == '\\'
}

func baseName(w string) string {
	for i := len(w) - 2; i >= 0; i-- {
		if w[i] == '/' || w[i] == '\\' {
			return w[i+1:]
		}
	}
	return w
}

// unquote drops quote characters: the rough readings below only widen deny
// and ask matches, they never allow.
var unquote = strings.NewReplacer(`"`, "", `'`, "")

// commandTokens splits a command line into words at blanks and shell
// operators.
func commandTokens(cmd string) []string {
	if cmd == "" {
		return nil
	}
	return strings.FieldsFunc(unquote.Replace(cmd), func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '\r', ';', '&', '|', '(', ')', '<', '>', '`', '{', '}':
			return true
		}
		return false
	})
}

// splitCommands returns the simple commands of a line as word lists: a
// rough split at operators, used when the judge's argvs are missing.
func splitCommands(cmd string) [][]string {
	var out [][]string
	for _, part := range strings.FieldsFunc(cmd, func(c rune) bool {
		return c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')' || c == '`'
	}) {
		if f := strings.Fields(unquote.Replace(part)); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// view is a request plus what the chain derives from it, computed at most
// once per decision however many rules look at it.
type view struct {
	r     *Request
	roots []string

	fp, argv, toks []string
	lines          [][]string
	done           uint8
}

const (
	doneFP uint8 = 1 << iota
	doneArgv
	doneToks
	doneLines
)

func newView(r *Request, roots []string) *view { return &view{r: r, roots: roots} }

func (v *view) fpWords() []string {
	if v.done&doneFP == 0 {
		v.fp, v.done = strings.Fields(v.r.Fingerprint), v.done|doneFP
	}
	return v.fp
}

// singleArgv is the words of the only simple command, or nil.
func (v *view) singleArgv() []string {
	if v.done&doneArgv == 0 {
		switch len(v.r.Argvs) {
		case 0:
			v.argv = strings.Fields(v.r.Command)
		case 1:
			v.argv = v.r.Argvs[0]
		}
		v.done |= doneArgv
	}
	return v.argv
}

func (v *view) tokens() []string {
	if v.done&doneToks == 0 {
		v.toks, v.done = commandTokens(v.r.Command), v.done|doneToks
	}
	return v.toks
}

// commands returns the simple commands: the judge's argvs, else a split.
func (v *view) commands() [][]string {
	if v.done&doneLines == 0 {
		v.lines = v.r.Argvs
		if len(v.lines) == 0 {
			v.lines = splitCommands(v.r.Command)
		}
		v.done |= doneLines
	}
	return v.lines
}
