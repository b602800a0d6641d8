package shell

import (
	"slices"
	"strings"
)

// gitHarmless are git's global options that change neither what runs nor
// where.
func gitHarmless(w string) bool {
	switch w {
	case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
		"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects":
		return true
	}
	return false
}

// gitSub finds git's subcommand: its index, and whether every global option
// before it is harmless.
func gitSub(a []arg) (int, bool) {
	clean := true
	i := 1
	for ; i < len(a); i++ {
		w := a[i].val
		if !a[i].lit || !strings.HasPrefix(w, "-") {
			break
		}
		if gitHarmless(w) {
			continue
		}
		clean = false
		switch w {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix":
			i++
		}
	}
	return i, clean
}

// git judges git: read-only subcommands with harmless global options only.
func (c *checker) git(r *report, a []arg) bool {
	i, clean := gitSub(a)
	if i >= len(a) || !a[i].known() {
		return false
	}
	sub, rest := a[i].val, a[i+1:]
	ro := clean && gitReadOnly(sub, rest)
	for _, w := range rest {
		if !w.known() && !(w.glob && !globOptionRisk(w)) {
			ro = false
		}
	}
	if ro && sub == "diff" && slices.ContainsFunc(rest, func(w arg) bool { return w.val == "--no-index" }) {
		for _, o := range parseOpts(rest, optSpec{}).operands {
			r.path(o.val)
		}
	}
	return ro
}

// gitReadOnly reports whether a git subcommand with these arguments only
// reads the repository.
func gitReadOnly(sub string, rest []arg) bool {
	p := parseOpts(rest, optSpec{})
	switch sub {
	case "status", "log", "diff", "show", "blame", "annotate", "rev-parse", "ls-files", "ls-tree",
		"shortlog", "describe", "cat-file", "rev-list", "whatchanged", "name-rev", "merge-base",
		"show-ref", "count-objects", "for-each-ref", "cherry", "check-ignore", "check-attr",
		"diff-tree", "diff-files", "diff-index", "version", "--version":
		return !p.has("--output")
	case "grep":
		for _, o := range p.opts {
			if o.name == "-O" || strings.HasPrefix(o.name, "--open-files-in-pager") {
				return false
			}
		}
		return true
	case "branch", "tag":
		valued := []string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
		listing := false
		positional := 0
		for k := 0; k < len(rest); k++ {
			w := rest[k].val
			name, _, hasEq := strings.Cut(w, "=")
			switch {
			case w == "-l" || w == "--list":
				listing = true
			case slices.Contains(valued, name):
				if !hasEq && k+1 < len(rest) && !strings.HasPrefix(rest[k+1].val, "-") {
					k++
				}
			case slices.Contains([]string{"-a", "-r", "-v", "-vv", "--verbose", "--all", "--remotes",
				"--show-current", "--color", "--no-color", "--column", "--no-column", "-q", "--quiet",
				"--abbrev", "--no-abbrev", "-i", "--ignore-case", "--omit-empty"}, name):
			case sub == "tag" && strings.HasPrefix(w, "-n") && allDigits(w[2:]+"0"):
			case strings.HasPrefix(w, "-"):
				return false // -d, -D, -m, -M, -c, -C, -f, -u, --delete, --edit-description, …
			default:
				positional++
			}
		}
		return positional == 0 || listing
	case "remote":
		if len(p.operands) == 0 {
			return p.onlyOpts("-v", "--verbose")
		}
		return p.operands[0].val == "get-url"
	case "config":
		if len(p.operands) > 0 && (p.operands[0].val == "get" || p.operands[0].val == "list") {
			return !p.has("--edit", "-e")
		}
		reading := p.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l")
		writing := p.has("--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
			"--remove-section", "--edit", "-e")
		return reading && !writing
	case "stash":
		return len(p.operands) > 0 && (p.operands[0].val == "list" || p.operands[0].val == "show")
	case "worktree":
		return len(p.operands) > 0 && p.operands[0].val == "list"
	case "reflog":
		return len(p.operands) == 0 || p.operands[0].val == "show"
	}
	return false
}

// allKnown reports whether every word's value is known.
func allKnown(a []arg) bool {
	for _, w := range a {
		if !w.known() {
			return false
		}
	}
	return true
}

// globOptionRisk reports whether a pattern may expand to a name starting
// with "-", which a command would read as an option ("--pre=sh" is a valid
// file name). A pattern starting with a literal other than "-" cannot.
func globOptionRisk(w arg) bool {
	if !w.glob || w.val == "" {
		return false
	}
	switch w.val[0] {
	case '*', '?', '[', '-':
		return true
	}
	return false
}

// pathOperand records a path a read-only command reads; false when it
// cannot be known (then the command is not read-only).
func (c *checker) pathOperand(r *report, w arg, optionSafe bool) bool {
	switch {
	case w.known():
	case w.lit && w.glob && !w.tilde:
		if !optionSafe && globOptionRisk(w) {
			return false
		}
		// A component like .* may match "..": refuse patterns that can climb.
		for _, part := range strings.Split(w.val, "/") {
			if unquotedGlob(part) && (strings.HasPrefix(part, ".") || strings.HasPrefix(part, "[")) {
				return false
			}
		}
	default:
		return false
	}
	if w.val != "-" {
		r.path(w.val)
	}
	return true
}

// pathTool describes a read-only command that reads files.
type pathTool struct {
	spec       optSpec
	deny       []string // options that make it write or run programs
	pathOpts   []string // options whose value is a file it reads
	pattern    bool     // the first operand is a pattern unless given by -e/-f
	patOpts    []string // options that supply the pattern
	maxOps     int      // more operands than this makes it write (uniq in out); 0 = any
	optionSafe bool     // injected options are harmless (globs may start with *)
	defaultDot bool     // with no path operand it reads the working directory
}

// pathToolFor returns the description of a safe-list command that reads
// files.
func pathToolFor(fam string) (pathTool, bool) {
	switch fam {
	case "ls", "dir", "vdir":
		return pathTool{spec: optSpec{shortVal: "ITw", longVal: []string{"ignore", "tabsize", "width", "hide",
			"block-size", "format", "sort", "time", "time-style", "quoting-style", "indicator-style"}},
			optionSafe: true, defaultDot: true}, true
	case "cat", "comm", "readlink", "realpath":
		return pathTool{optionSafe: fam == "cat" || fam == "comm"}, true
	case "head":
		return pathTool{spec: optSpec{shortVal: "nc", longVal: []string{"lines", "bytes"}, digits: true}, optionSafe: true}, true
	case "tail":
		return pathTool{spec: optSpec{shortVal: "ncs", longVal: []string{"lines", "bytes", "pid", "sleep-interval",
			"max-unchanged-stats"}, digits: true}, optionSafe: true}, true
	case "wc":
		return pathTool{pathOpts: []string{"--files0-from"}, optionSafe: true}, true
	case "stat":
		return pathTool{spec: optSpec{shortVal: "c", longVal: []string{"format", "printf"}}, optionSafe: true}, true
	case "file":
		return pathTool{spec: optSpec{shortVal: "mfeFP", longVal: []string{"magic-file", "files-from", "exclude",
			"separator", "parameter"}}, deny: []string{"-C", "--compile"},
			pathOpts: []string{"-m", "--magic-file", "-f", "--files-from"}}, true
	case "du":
		return pathTool{spec: optSpec{shortVal: "BdtX", longVal: []string{"block-size", "max-depth", "threshold",
			"exclude-from", "exclude", "files0-from", "time-style"}},
			pathOpts: []string{"-X", "--exclude-from", "--files0-from"}, optionSafe: true, defaultDot: true}, true
	case "df":
		return pathTool{spec: optSpec{shortVal: "Btx", longVal: []string{"block-size", "type", "exclude-type"}}, optionSafe: true}, true
	case "nl":
		return pathTool{spec: optSpec{shortVal: "bdfhilnsvw"}, optionSafe: true}, true
	case "cut":
		return pathTool{spec: optSpec{shortVal: "bcdf", longVal: []string{"bytes", "characters", "delimiter",
			"fields", "output-delimiter"}}, optionSafe: true}, true
	case "sort":
		return pathTool{spec: optSpec{shortVal: "kotST", longVal: []string{"key", "output", "field-separator",
			"buffer-size", "temporary-directory", "files0-from", "parallel", "batch-size", "random-source",
			"compress-program", "sort"}}, deny: []string{"-o", "--output", "--compress-program"},
			pathOpts: []string{"--files0-from", "--random-source"}}, true
	case "uniq":
		return pathTool{spec: optSpec{shortVal: "fsw", longVal: []string{"skip-fields", "skip-chars", "check-chars"}}, maxOps: 1}, true
	case "diff":
		return pathTool{spec: optSpec{shortVal: "CUFIxXSDWL", longVal: []string{"ignore-matching-lines", "exclude",
			"exclude-from", "starting-file", "label", "from-file", "to-file", "width", "tabsize",
			"show-function-line", "ifdef", "line-format", "old-line-format", "new-line-format",
			"unchanged-line-format"}},
			pathOpts: []string{"-X", "--exclude-from", "--from-file", "--to-file"}, optionSafe: true}, true
	case "cmp":
		return pathTool{spec: optSpec{shortVal: "in", longVal: []string{"ignore-initial", "bytes"}}, optionSafe: true}, true
	case "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "shasum":
		return pathTool{spec: optSpec{shortVal: "al"}, deny: []string{"-c", "--check"}}, true
	case "grep", "egrep", "fgrep":
		return pathTool{
			spec: optSpec{shortVal: "efmABCdD", longVal: []string{"regexp", "file", "max-count", "after-context",
				"before-context", "context", "directories", "devices", "include", "exclude", "exclude-dir",
				"exclude-from", "label", "binary-files", "group-separator"}},
			pathOpts: []string{"-f", "--file", "--exclude-from"}, pattern: true,
			patOpts: []string{"-e", "-f", "--regexp", "--file"}, optionSafe: true,
		}, true
	case "rg":
		return pathTool{
			spec: optSpec{shortVal: "efgtTmABCMjEdr", longVal: []string{"regexp", "file", "glob", "iglob", "type",
				"type-not", "type-add", "type-clear", "max-count", "after-context", "before-context", "context",
				"max-columns", "threads", "encoding", "max-depth", "maxdepth", "replace", "color", "colors",
				"sort", "sortr", "max-filesize", "path-separator", "context-separator", "field-match-separator",
				"field-context-separator", "engine", "dfa-size-limit", "regex-size-limit", "ignore-file", "pre",
				"pre-glob", "hostname-bin", "hyperlink-format", "generate"}},
			deny:     []string{"--pre", "--hostname-bin"},
			pathOpts: []string{"-f", "--file", "--ignore-file"}, pattern: true,
			patOpts: []string{"-e", "-f", "--regexp", "--file", "--files", "--type-list"}, defaultDot: true,
		}, true
	}
	return pathTool{}, false
}

// safe decides read-only status for commands that are not wrappers,
// shells, git or go.
func (c *checker) safe(r *report, fam string, a []arg) bool {
	switch fam {
	case "echo", "true", "false", ":", "test", "[", "sleep", "seq", "expr", "basename", "dirname":
		return true // arguments are data, whatever they expand to
	case "printf":
		return len(a) < 2 || (a[1].known() && a[1].val != "-v") // -v assigns a variable
	case "pwd", "whoami", "id", "groups", "uname", "uptime", "nproc", "arch", "cal", "free", "tty",
		"which", "type", "whereis", "locale":
		return allKnown(a)
	case "hostname":
		for _, w := range a[1:] {
			if !w.known() || !strings.HasPrefix(w.val, "-") || w.val == "-F" || w.val == "-b" ||
				strings.HasPrefix(w.val, "--file") || strings.HasPrefix(w.val, "--boot") {
				return false // an operand sets the host name
			}
		}
		return true
	case "date":
		p := parseOpts(a[1:], optSpec{shortVal: "dfrsI", longVal: []string{"date", "file", "reference", "set"}})
		if p.has("-s", "--set") || !allKnown(a) {
			return false
		}
		for _, o := range p.operands {
			if !strings.HasPrefix(o.val, "+") {
				return false // MMDDhhmm sets the clock
			}
		}
		for _, o := range p.opts {
			if (o.name == "-f" || o.name == "-r" || o.name == "--file" || o.name == "--reference") && o.hasVal {
				r.path(o.val)
			}
		}
		return true
	case "ps":
		for _, w := range a[1:] {
			if !w.known() || (!strings.HasPrefix(w.val, "-") && strings.ContainsRune(w.val, 'e')) {
				return false // BSD "e" prints other processes' environments
			}
		}
		return true
	case "tr":
		return len(parseOpts(a[1:], optSpec{}).operands) <= 2
	}
	t, ok := pathToolFor(fam)
	if !ok {
		return false
	}
	return c.pathTool(r, t, a)
}

// pathTool judges a file-reading command against its description: no
// denied option, no option-injecting pattern, every path reported.
func (c *checker) pathTool(r *report, t pathTool, a []arg) bool {
	for _, w := range a[1:] {
		if !w.known() && !(w.lit && w.glob && !w.tilde) {
			return false // an unknown word may be any option
		}
		if w.glob && !t.optionSafe && globOptionRisk(w) {
			return false
		}
	}
	p := parseOpts(a[1:], t.spec)
	if p.has(t.deny...) {
		return false
	}
	for _, o := range p.opts {
		if slices.Contains(t.pathOpts, o.name) && o.hasVal {
			r.path(o.val)
		}
	}
	ops := p.operands
	if t.pattern && !p.has(t.patOpts...) && len(ops) > 0 {
		ops = ops[1:]
	}
	if t.maxOps > 0 && len(ops) > t.maxOps {
		return false
	}
	for _, o := range ops {
		if !c.pathOperand(r, o, t.optionSafe) {
			return false
		}
	}
	if len(ops) == 0 && (t.defaultDot || p.has("-r", "-R", "--recursive", "--dereference-recursive")) {
		r.path(".")
	}
	return true
}
