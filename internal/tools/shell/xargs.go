package shell

import (
	"io/fs"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// xargs reads file names from a command before it in a pipeline and
// hands them to a program. `find . -name '*.go' | xargs grep -n main` is
// read-only when the names can only be files of the workspace: the
// command before lists paths below folders of the workspace (find
// without links followed, git ls-files, grep -l, rg --files, ls, through
// filters that only drop or reorder lines), every name below those
// folders reaches xargs as one argument (NUL-separated, or with no
// blank, quote, backslash or leading dash in any name: a repository can
// commit a file named "x /etc/passwd" or "--pre=./evil.sh"), and the
// program is read-only with one more file to read.

// xargsRO judges xargs's read-only form; a is xargs's words, inner the
// program's words (after xargs's options), repl the -I text ("" for
// names appended) and nul whether xargs reads NUL-separated names.
func (c *checker) xargsRO(r *report, inner []arg, repl string, nul, safeOpts bool) bool {
	if c.from == nil || !safeOpts {
		return false
	}
	src, ok := c.pathSource(c.from)
	if !ok {
		r.note("xargs: the names it reads do not come from a command that lists workspace files")
		return false
	}
	if src.nul != nul {
		r.note("xargs: the names are not separated the way xargs reads them (use -print0 with -0, or neither)")
		return false
	}
	for _, s := range src.scopes {
		c.addPath(r, &r.reads, s)
		if why := c.unsafeNames(s, nul, src.dotted); why != "" {
			r.note("xargs: " + why)
			return false
		}
	}
	// The program, with one of those names where xargs puts it.
	const placeholder = "./xargs-input"
	args := make([]arg, 0, len(inner)+1)
	for _, w := range inner {
		if repl != "" && w.known() && strings.Contains(w.val, repl) {
			w = arg{val: strings.ReplaceAll(w.val, repl, placeholder), lit: true}
		}
		args = append(args, w)
	}
	if repl == "" {
		args = append(args, arg{val: placeholder, lit: true})
	}
	if len(args) == 0 {
		return false
	}
	cc := *c
	cc.from = nil
	sub := &report{}
	ro := cc.argv(sub, args, nil)
	r.reads = append(r.reads, dropPlaceholder(sub.reads, placeholder)...)
	r.writes = append(r.writes, sub.writes...)
	r.dests = append(r.dests, sub.dests...)
	r.sends = append(r.sends, sub.sends...)
	if sub.blocked != "" {
		r.block("%s", sub.blocked)
	}
	if sub.why != "" {
		r.note(sub.why)
	}
	r.unplaced = r.unplaced || sub.unplaced
	return ro && sub.blocked == ""
}

// dropPlaceholder removes the stand-in for xargs's names from reads.
func dropPlaceholder(reads []string, placeholder string) []string {
	var out []string
	for _, p := range reads {
		if filepath.Base(p) != strings.TrimPrefix(placeholder, "./") {
			out = append(out, p)
		}
	}
	return out
}

// pathSource is what a command writes on its standard output when it
// only lists files: below which folders, NUL-separated or not, and
// whether every name starts with the folder it was found in ("./x").
type pathSource struct {
	scopes []string
	nul    bool
	dotted bool
}

// pathSource reads the command before xargs in a pipeline.
func (c *checker) pathSource(cmd syntax.Command) (pathSource, bool) {
	switch n := cmd.(type) {
	case *syntax.BinaryCmd:
		if n.Op != syntax.Pipe {
			return pathSource{}, false
		}
		if ce, ok := n.Y.Cmd.(*syntax.CallExpr); ok && len(n.Y.Redirs) == 0 && c.passthrough(ce) {
			return c.pathSource(n.X.Cmd)
		}
		return pathSource{}, false
	case *syntax.CallExpr:
		if len(n.Assigns) > 0 {
			return pathSource{}, false
		}
		words, ok := c.expandWords(n.Args)
		if !ok || len(words) == 0 || !allKnown(words) {
			return pathSource{}, false
		}
		return c.lister(vals(words))
	}
	return pathSource{}, false
}

// lister recognises the commands that list workspace files.
func (c *checker) lister(w []string) (pathSource, bool) {
	if c.resolvedWhy(w[0]) != "" {
		return pathSource{}, false
	}
	switch w[0] {
	case "find":
		return findLister(w[1:])
	case "git":
		if len(w) < 2 {
			return pathSource{}, false
		}
		return gitLister(w[1], w[2:])
	case "grep", "rg":
		return grepLister(w[0], w[1:])
	case "ls":
		return lsLister(w[1:])
	}
	return pathSource{}, false
}

// findLister: find START… with tests only and -print/-print0 (no links
// followed, nothing else printed).
func findLister(w []string) (pathSource, bool) {
	src := pathSource{dotted: true}
	i := 0
	for ; i < len(w) && !strings.HasPrefix(w[i], "-") && w[i] != "(" && w[i] != "!"; i++ {
		src.scopes = append(src.scopes, w[i])
	}
	if len(src.scopes) == 0 {
		src.scopes = []string{"."}
	}
	for ; i < len(w); i++ {
		switch v := w[i]; {
		case v == "-print0":
			src.nul = true
		case v == "-print":
		case findTakesValue(v) && v != "-printf":
			i++
		case findFlag(v) && v != "-follow" && v != "-ls" && v != "-print0" && v != "-help" && v != "-version":
		default:
			return pathSource{}, false
		}
	}
	for _, s := range src.scopes {
		if strings.HasPrefix(s, "-") {
			return pathSource{}, false
		}
	}
	return src, true
}

// gitLister: git ls-files, git diff --name-only, git grep -l.
func gitLister(sub string, w []string) (pathSource, bool) {
	src := pathSource{}
	named, dashes := false, false
	for _, v := range w {
		switch {
		case v == "-z":
			src.nul = true
		case v == "--":
			dashes = true
		case !strings.HasPrefix(v, "-") || dashes:
			// Paths limit what git lists; for diff and grep only after
			// "--" (before it a word may be a revision).
			if sub == "ls-files" || dashes {
				src.scopes = append(src.scopes, v)
			} else {
				return pathSource{}, false
			}
		case sub == "ls-files" && (v == "-c" || v == "--cached" || v == "-m" || v == "--modified" || v == "-o" || v == "--others" ||
			v == "--exclude-standard" || v == "-d" || v == "--deleted"):
		case sub == "diff" && (v == "--cached" || v == "--staged"):
		case sub == "diff" && v == "--name-only":
			named = true
		case sub == "grep" && (v == "-l" || v == "--files-with-matches" || v == "-i" || v == "-w" || v == "-E" || v == "-F"):
			named = named || v == "-l" || v == "--files-with-matches"
		default:
			return pathSource{}, false
		}
	}
	if len(src.scopes) == 0 {
		src.scopes = []string{"."}
	}
	switch sub {
	case "ls-files":
		return src, true
	case "diff", "grep":
		return src, named
	}
	return pathSource{}, false
}

// grepLister: grep -l/-L (recursive or over named files), rg -l or
// --files; -Z/--null (grep) and -0/--null (rg) separate with NUL.
func grepLister(prog string, w []string) (pathSource, bool) {
	src := pathSource{}
	listing := false
	var operands []string
	for _, v := range w {
		switch {
		case v == "-l" || v == "-L" || v == "--files-with-matches" || v == "--files-without-match" || (prog == "rg" && v == "--files"):
			listing = true
		case (prog == "grep" && (v == "-Z" || v == "--null")) || (prog == "rg" && (v == "-0" || v == "--null")):
			src.nul = true
		case v == "-r" || v == "-i" || v == "-w" || v == "-E" || v == "-F" || v == "-s" || v == "--hidden":
		case prog == "grep" && v == "-rl" || prog == "grep" && v == "-lr":
			listing = true
		case strings.HasPrefix(v, "--include=") || strings.HasPrefix(v, "--exclude=") || strings.HasPrefix(v, "--exclude-dir=") ||
			(prog == "rg" && (strings.HasPrefix(v, "--glob=") || strings.HasPrefix(v, "--type=") || strings.HasPrefix(v, "-t"))):
		case strings.HasPrefix(v, "-"):
			return pathSource{}, false
		default:
			operands = append(operands, v)
		}
	}
	if !listing {
		return pathSource{}, false
	}
	if prog == "grep" && len(operands) > 0 {
		operands = operands[1:] // the pattern
	}
	if prog == "rg" && len(operands) > 0 && !containsWord(w, "--files") {
		operands = operands[1:]
	}
	src.scopes = operands
	if len(src.scopes) == 0 {
		src.scopes = []string{"."}
	}
	for _, s := range src.scopes {
		if strings.HasPrefix(s, "-") {
			return pathSource{}, false
		}
	}
	return src, true
}

// lsLister: plain ls (or ls -1, -a, -A) of folders: their names.
func lsLister(w []string) (pathSource, bool) {
	src := pathSource{}
	for _, v := range w {
		switch {
		case v == "-1" || v == "-a" || v == "-A":
		case strings.HasPrefix(v, "-"):
			return pathSource{}, false
		default:
			src.scopes = append(src.scopes, v)
		}
	}
	if len(src.scopes) == 0 {
		src.scopes = []string{"."}
	}
	return src, true
}

func containsWord(w []string, s string) bool {
	for _, v := range w {
		if v == s {
			return true
		}
	}
	return false
}

// passthrough reports whether a command in a pipeline only drops or
// reorders the lines it reads (grep without -o, head, tail, sort, uniq,
// cat, tac): every line it writes is one it read.
func (c *checker) passthrough(ce *syntax.CallExpr) bool {
	if len(ce.Assigns) > 0 {
		return false
	}
	words, ok := c.expandWords(ce.Args)
	if !ok || len(words) == 0 || !allKnown(words) || c.resolvedWhy(words[0].val) != "" {
		return false
	}
	w := vals(words)
	opts := func(allowed string) bool {
		for _, v := range w[1:] {
			if !strings.HasPrefix(v, "-") {
				continue
			}
			for _, ch := range v[1:] {
				if !strings.ContainsRune(allowed, ch) {
					return false
				}
			}
		}
		return true
	}
	switch w[0] {
	case "grep":
		// a pattern, no file: it reads the names on its input
		ops := 0
		for _, v := range w[1:] {
			if !strings.HasPrefix(v, "-") {
				ops++
			}
		}
		return ops == 1 && opts("vivEFwx")
	case "head", "tail":
		return len(w) <= 3 && opts("n0123456789")
	case "sort":
		return opts("ruV") && len(w) <= 3
	case "uniq", "cat", "tac":
		return len(w) == 1
	}
	return false
}

// maxNames bounds the names unsafeNames looks at.
const maxNames = 50000

// unsafeNames says why a name below folder p would not reach xargs as one
// whole argument naming a file there: a blank, a quote, a backslash or a
// line break in it (without NUL separation), or a leading dash where the
// listing does not prefix the folder ("--pre=./x" read as an option).
func (c *checker) unsafeNames(p string, nul, dotted bool) string {
	abs, ok := c.place(p)
	if !ok {
		return "the folder " + p + " cannot be placed"
	}
	seen := 0
	why := ""
	_ = filepath.WalkDir(abs, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		seen++
		if seen > maxNames {
			why = "too many files below " + p + " to check their names"
			return filepath.SkipAll
		}
		name := d.Name()
		if q == abs {
			return nil
		}
		if !nul && strings.ContainsAny(name, " \t\n\r\v\f'\"\\") {
			why = "a file name below " + p + " holds a blank, quote or backslash: " + q
			return filepath.SkipAll
		}
		if !dotted && strings.HasPrefix(name, "-") {
			why = "a file name below " + p + " starts with a dash: " + q
			return filepath.SkipAll
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		return nil
	})
	return why
}
