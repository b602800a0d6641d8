package tools

// The rules of one ignore file (.gitignore, .ignore, .rgignore, git's
// exclude files) or of a tool's ignore parameter, read as git and ripgrep
// read them.
//
// Patterns are matched with doublestar rather than
// github.com/sabhiram/go-gitignore: that library turns patterns into
// regular expressions without escaping them ("a+b" matches "aab"), treats
// "?" as a literal and does not anchor patterns with an inner slash
// ("docs/build" matches "x/docs/build"), which would hide or show the wrong
// files. The common shapes (a name at any depth, "*.ext", a plain path)
// are compared as strings: every walked entry is matched against every
// rule that applies to it.

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ruleKind is how a rule is matched.
type ruleKind uint8

const (
	ruleGlob   ruleKind = iota // doublestar on the relative path
	ruleName                   // "name" at any depth: the last element equals lit
	ruleSuffix                 // "*.ext" at any depth: the last element ends with lit
	rulePath                   // a path without wildcards: the relative path equals lit
)

// ignoreRule is one ignore-file line turned into a doublestar pattern.
type ignoreRule struct {
	glob    string // relative to the folder of the ignore file
	negate  bool   // "!pattern" re-includes
	dirOnly bool   // "pattern/" matches folders only
	// inside is set for "dir/**": it matches below dir, not dir itself.
	inside string
	kind   ruleKind
	lit    string // the literal part for ruleName, ruleSuffix and rulePath
}

// ignoreList is the rules of one ignore file (or of a tool's ignore
// parameter), relative to dir.
type ignoreList struct {
	dir   string
	rules []ignoreRule
}

// parseIgnoreLine turns one gitignore line into a rule. ok is false for
// blank lines and comments; err is set for a pattern doublestar rejects.
func parseIgnoreLine(line string) (r ignoreRule, ok bool, err error) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || strings.HasPrefix(line, "#") {
		return r, false, nil
	}
	// Trailing white space is dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
		if strings.HasSuffix(line, `\ `) {
			break
		}
		line = line[:len(line)-1]
	}
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false, nil
	}
	// A slash at the start or in the middle anchors the pattern to the
	// ignore file's folder; otherwise it matches at any depth.
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	line = escapeBraces(line)
	if !anchored && !strings.HasPrefix(line, "**/") {
		line = "**/" + line
	}
	if !doublestar.ValidatePattern(line) {
		return r, false, fmt.Errorf("invalid pattern %q", line)
	}
	if strings.HasSuffix(line, "/**") {
		r.inside = strings.TrimSuffix(line, "/**")
	}
	r.glob = line
	r.kind, r.lit = classifyGlob(line)
	return r, true, nil
}

// classifyGlob finds the shapes of pattern that a string comparison
// decides exactly as doublestar would.
func classifyGlob(pattern string) (ruleKind, string) {
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok && !strings.Contains(rest, "/") {
		if !hasGlobMeta(rest) {
			return ruleName, rest
		}
		if suffix, ok := strings.CutPrefix(rest, "*"); ok && suffix != "" && !hasGlobMeta(suffix) {
			return ruleSuffix, suffix
		}
	}
	if !hasGlobMeta(pattern) {
		return rulePath, pattern
	}
	return ruleGlob, ""
}

// hasGlobMeta reports whether s has a character doublestar treats
// specially (an escaped character counts: the string is not its text).
func hasGlobMeta(s string) bool { return strings.ContainsAny(s, `*?[]{}\`) }

// escapeBraces makes { and } literal: gitignore has no alternation.
func escapeBraces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
			continue
		case c == '{' || c == '}':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// newIgnoreList compiles lines relative to dir. Invalid lines are skipped
// when lenient (a project's .gitignore); otherwise they are an error (a
// pattern the model passed).
func newIgnoreList(dir string, lines []string, lenient bool) (*ignoreList, error) {
	l := &ignoreList{dir: dir}
	for _, line := range lines {
		r, ok, err := parseIgnoreLine(line)
		if err != nil && !lenient {
			return nil, err
		}
		if ok {
			l.rules = append(l.rules, r)
		}
	}
	return l, nil
}

// match decides the entry name in the folder dir (slash-separated,
// relative to l.dir, "" for l.dir itself). decided is false when no rule
// matches; otherwise the last matching rule wins.
func (l *ignoreList) match(dir, name string, isDir bool) (ignored, decided bool) {
	rel := "" // dir/name, made once a rule needs it
	for i := len(l.rules) - 1; i >= 0; i-- {
		r := &l.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		var hit bool
		switch r.kind {
		case ruleName:
			hit = name == r.lit
		case ruleSuffix:
			hit = strings.HasSuffix(name, r.lit)
		case rulePath:
			hit = pathIs(dir, name, r.lit)
		default:
			if rel == "" {
				rel = joinRel(dir, name)
			}
			hit = r.matches(rel, name)
		}
		if hit {
			return !r.negate, true
		}
	}
	return false, false
}

// pathIs reports whether dir/name (name alone when dir is "") is p.
func pathIs(dir, name, p string) bool {
	if dir == "" {
		return name == p
	}
	return len(p) == len(dir)+1+len(name) && strings.HasPrefix(p, dir) && p[len(dir)] == '/' && strings.HasSuffix(p, name)
}

// matches reports whether the rule matches rel, whose last element is name.
func (r *ignoreRule) matches(rel, name string) bool {
	if r.kind == ruleGlob && r.inside != "" && doublestar.MatchUnvalidated(r.inside, rel) {
		return false // "dir/**" does not match dir itself
	}
	return matchGlob(r.kind, r.glob, r.lit, rel, name)
}

// matchGlob matches pattern, of the kind and literal classifyGlob found,
// against rel, whose last element is name.
func matchGlob(kind ruleKind, pattern, lit, rel, name string) bool {
	switch kind {
	case ruleName:
		return name == lit
	case ruleSuffix:
		return strings.HasSuffix(name, lit)
	case rulePath:
		return rel == lit
	}
	return doublestar.MatchUnvalidated(pattern, rel)
}
