package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// arg is one word of a command line as the judge sees it before anything
// runs. The judge must tell words whose value it knows from words that only
// the interpreter can produce, because only the former can be trusted.
type arg struct {
	val   string // value after quote removal; the source text when !lit
	lit   bool   // the value is fully known without running anything
	glob  bool   // has unquoted pattern characters: val is a pattern
	tilde bool   // starts with an unquoted ~ that the shell will expand
}

// known reports whether the word's value is exactly val at run time.
func (a arg) known() bool { return a.lit && !a.glob && !a.tilde }

// lits wraps already-expanded words (what the interpreter hands the exec
// handler) so runtime checks share the static rules.
func lits(words []string) []arg {
	out := make([]arg, len(words))
	for i, w := range words {
		out[i] = arg{val: w, lit: true}
	}
	return out
}

// vals returns the words' values (source text for unknown words).
func vals(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.val
	}
	return out
}

// maxBraceWords bounds static brace expansion so a hostile {1..99999}
// cannot make judging expensive; beyond it the word counts as unknown.
const maxBraceWords = 256

// wordArgs turns one parsed word into the words it becomes after brace
// expansion, with as much of their values as is known statically.
func wordArgs(w *syntax.Word) []arg {
	if hasBraces(w) {
		cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
		if syntax.SplitBraces(cp) {
			var out []arg
			for bw, err := range expand.BracesSeq(nil, cp) {
				if err != nil || len(out) == maxBraceWords {
					return []arg{{val: source(w)}}
				}
				out = append(out, wordArg(bw))
			}
			return out
		}
	}
	return []arg{wordArg(w)}
}

func hasBraces(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// wordArg computes the static value of a word without brace expansion.
func wordArg(w *syntax.Word) arg {
	var b strings.Builder
	a := arg{lit: true}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				a.tilde = true
			}
			if unquotedGlob(v) {
				a.glob = true
			}
			b.WriteString(unescapeBare(v))
		case *syntax.SglQuoted:
			if p.Dollar {
				s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
				if err != nil {
					return arg{val: source(w)}
				}
				b.WriteString(s)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				l, ok := in.(*syntax.Lit)
				if !ok {
					return arg{val: source(w)}
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default: // parameter, command, arithmetic, process substitution, extglob
			return arg{val: source(w)}
		}
	}
	a.val = b.String()
	return a
}

// unescapeBare removes backslash quoting from an unquoted literal.
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslash quoting valid inside double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unquotedGlob reports whether an unquoted literal holds pattern characters
// the shell would expand against the file system.
func unquotedGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// source prints a node back as shell text, for display and for reasons.
func source(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

// hdocText returns a here-document body when it is fixed text.
func hdocText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return "", false
		}
	}
	s, err := expand.Document(nil, w)
	return s, err == nil
}
