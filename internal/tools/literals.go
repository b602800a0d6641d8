package tools

// Required literals of a regular expression: a set of strings one of
// which every match contains, so grep can look for them with a fast
// substring search and run the regexp only on the lines that have one
// (ripgrep's inner-literal prefilter).

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// maxLiterals bounds a literal set (the multi-literal matcher's
	// patterns, the case variants of a case-insensitive literal).
	maxLiterals = 64
	// maxClassLiterals bounds the characters of a class taken as literals
	// ([ab] is two literals; \w is none).
	maxClassLiterals = 16
)

// litInfo is what is known of the strings a part of a regexp matches.
type litInfo struct {
	// exact, when isExact, is every string the part matches ("" included
	// when it can match nothing).
	exact   []string
	isExact bool
	// req, when not nil, holds non-empty strings one of which every
	// match of the part contains.
	req []string
}

// requiredLiterals returns non-empty strings one of which every match of
// re contains, or nil when none are known.
func requiredLiterals(re *syntax.Regexp) []string {
	return literalInfo(re).req
}

func literalInfo(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		return literalRunes(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return classLiterals(re.Rune)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactly([]string{""})
	case syntax.OpCapture:
		return literalInfo(re.Sub[0])
	case syntax.OpQuest:
		return optional(literalInfo(re.Sub[0]))
	case syntax.OpPlus:
		return litInfo{req: literalInfo(re.Sub[0]).req}
	case syntax.OpRepeat:
		return repeated(literalInfo(re.Sub[0]), re.Min, re.Max)
	case syntax.OpConcat:
		return concatenated(re.Sub)
	case syntax.OpAlternate:
		return alternated(re.Sub)
	}
	// Any character, a star, no match: nothing is known.
	return litInfo{}
}

// exactly is a part that matches exactly set; it is also its own
// requirement unless it can match the empty string.
func exactly(set []string) litInfo {
	in := litInfo{exact: set, isExact: true}
	if !slices.Contains(set, "") {
		in.req = set
	}
	return in
}

// literalRunes is a literal, or the case variants of one (a prefix of it
// when all its variants are too many).
func literalRunes(runes []rune, fold bool) litInfo {
	if i := slices.Index(runes, utf8.RuneError); i >= 0 {
		// U+FFFD in a pattern also matches invalid UTF-8 in the text,
		// which a byte search for its encoding would miss: the longer
		// side of it is required.
		before, after := literalRunes(runes[:i], fold), literalRunes(runes[i+1:], fold)
		return litInfo{req: bestLiterals([][]string{before.req, after.req})}
	}
	if len(runes) == 0 {
		return exactly([]string{""})
	}
	if !fold {
		return exactly([]string{string(runes)})
	}
	variants, used := foldVariants(runes)
	if used == len(runes) {
		return exactly(variants)
	}
	return litInfo{req: variants}
}

// foldVariants spells the longest prefix of runes whose case variants
// (every rune of its simple case folding orbit, as regexp's (?i) matches)
// number at most maxLiterals, and returns them and the prefix's length.
func foldVariants(runes []rune) ([]string, int) {
	variants := []string{""}
	for i, r := range runes {
		orbit := []rune{r}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
		}
		if len(variants)*len(orbit) > maxLiterals {
			return variants, i
		}
		next := make([]string, 0, len(variants)*len(orbit))
		for _, v := range variants {
			for _, o := range orbit {
				next = append(next, v+string(o))
			}
		}
		variants = next
	}
	return variants, len(runes)
}

// classLiterals is a small character class as its characters.
func classLiterals(ranges []rune) litInfo {
	var set []string
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if hi-lo+1 > maxClassLiterals || len(set)+int(hi-lo+1) > maxClassLiterals || (lo <= utf8.RuneError && utf8.RuneError <= hi) {
			return litInfo{}
		}
		for r := lo; r <= hi; r++ {
			set = append(set, string(r))
		}
	}
	if len(set) == 0 {
		return litInfo{}
	}
	return exactly(set)
}

// optional is x?: x's strings or the empty one.
func optional(x litInfo) litInfo {
	if !x.isExact || len(x.exact)+1 > maxLiterals {
		return litInfo{}
	}
	return exactly(dedupe(append(slices.Clone(x.exact), "")))
}

// repeated is x{min,max} (max -1: no bound).
func repeated(x litInfo, lo, hi int) litInfo {
	switch {
	case lo == 0 && hi == 1:
		return optional(x)
	case lo == 0:
		return litInfo{}
	case lo == hi && x.isExact:
		set := []string{""}
		for range lo {
			if set = product(set, x.exact); set == nil {
				return litInfo{req: x.req}
			}
		}
		return exactly(set)
	}
	return litInfo{req: x.req}
}

// product is every a+b, or nil when they are more than maxLiterals.
func product(as, bs []string) []string {
	if len(as)*len(bs) > maxLiterals {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	return dedupe(out)
}

// concatenated joins the exact parts that follow each other into longer
// literals, and keeps the best requirement of the runs and the parts.
func concatenated(subs []*syntax.Regexp) litInfo {
	var candidates [][]string
	run, exact := []string{""}, true
	endRun := func() {
		if !slices.Contains(run, "") {
			candidates = append(candidates, run)
		}
		run = []string{""}
	}
	for _, sub := range subs {
		in := literalInfo(sub)
		if in.req != nil {
			candidates = append(candidates, in.req)
		}
		if !in.isExact {
			endRun()
			exact = false
			continue
		}
		if p := product(run, in.exact); p != nil {
			run = p
			continue
		}
		endRun()
		run, exact = in.exact, false
	}
	out := litInfo{}
	if exact {
		out = exactly(run)
	}
	endRun()
	if best := bestLiterals(candidates); best != nil {
		out.req = best
	}
	return out
}

// alternated is a|b: every branch's strings, and a requirement only when
// every branch has one.
func alternated(subs []*syntax.Regexp) litInfo {
	var exact, req []string
	isExact, hasReq := true, true
	for _, sub := range subs {
		in := literalInfo(sub)
		isExact = isExact && in.isExact
		hasReq = hasReq && in.req != nil
		exact = append(exact, in.exact...)
		req = append(req, in.req...)
	}
	exact, req = dedupe(exact), dedupe(req)
	if isExact && len(exact) <= maxLiterals {
		return exactly(exact)
	}
	if hasReq && len(req) <= maxLiterals {
		return litInfo{req: req}
	}
	return litInfo{}
}

// bestLiterals picks the set whose shortest string is longest (fewer
// strings on a tie): the rarer its strings, the fewer lines the regexp
// has to check.
func bestLiterals(sets [][]string) []string {
	var best []string
	bestLen := 0
	for _, s := range sets {
		if len(s) == 0 {
			continue
		}
		short := shortest(s)
		if best == nil || short > bestLen || (short == bestLen && len(s) < len(best)) {
			best, bestLen = s, short
		}
	}
	return best
}

// dedupe sorts and removes repeats.
func dedupe(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// shortest is the length of the shortest string of a non-empty set.
func shortest(set []string) int {
	return len(slices.MinFunc(set, func(a, b string) int { return len(a) - len(b) }))
}

// withoutNewline drops the literals that hold a line break: grep matches
// one line at a time, so no match can contain them.
func withoutNewline(set []string) []string {
	return slices.DeleteFunc(slices.Clone(set), func(s string) bool { return strings.Contains(s, "\n") })
}
