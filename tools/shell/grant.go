package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// grant computes the Fingerprint: only a single simple command, with no
// substitutions, assignments, background or redirection to files, can be
// remembered, because a grant must cover exactly what the person saw.
func (c *checker) grant(f *syntax.File) string {
	if len(f.Stmts) != 1 {
		return ""
	}
	st := f.Stmts[0]
	for {
		if st.Background || st.Coprocess || st.Negated {
			return ""
		}
		for _, rd := range st.Redirs {
			if !c.redirect(&report{}, rd) {
				return ""
			}
		}
		tc, ok := st.Cmd.(*syntax.TimeClause)
		if !ok || tc.Stmt == nil {
			break
		}
		st = tc.Stmt // time is transparent
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return ""
	}
	nested := false // other commands, or assignments hidden in expansions
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			nested = true
		case *syntax.ParamExp:
			nested = nested || (n.Exp != nil && (n.Exp.Op == syntax.AssignUnset ||
				n.Exp.Op == syntax.AssignUnsetOrNull || n.Exp.Op == syntax.OtherParamOps))
		case *syntax.BinaryArithm:
			nested = nested || arithAssign(n.Op)
		case *syntax.UnaryArithm:
			nested = nested || n.Op == syntax.Inc || n.Op == syntax.Dec
		}
		return !nested
	})
	if nested {
		return ""
	}
	var args []arg
	for _, w := range ce.Args {
		args = append(args, wordArgs(w)...)
	}
	return fingerprint(args)
}

// fingerprint names what an argv runs, for "allow for this session".
func fingerprint(a []arg) string {
	if len(a) == 0 || !a[0].known() {
		return ""
	}
	fam := family(cmdName(a[0].val))
	if isShell(fam) || bannedWhy(fam) != "" || inlineCode(fam, a) || runsPrograms(fam, a) {
		return ""
	}
	switch fam {
	case "eval", "source", ".", "trap", "xargs", "builtin", "watch", "flock", "strace", "ltrace",
		"busybox", "toybox", "alias", "command":
		return "" // they run code that the grant would not name
	case "env":
		// Transparent only when it changes nothing.
		if len(a) > 1 && a[1].known() && !strings.HasPrefix(a[1].val, "-") && !strings.Contains(a[1].val, "=") {
			return fingerprint(a[1:])
		}
		return ""
	case "nice", "nohup", "timeout", "stdbuf", "ionice", "unbuffer", "time", "exec",
		"caffeinate", "chrt", "taskset", "prlimit":
		spec, skip := wrapperSpec(fam)
		p := parseOpts(a[1:], spec)
		if p.has("-o", "--output", "-p", "--pid") || len(p.operands) <= skip {
			return ""
		}
		return fingerprint(p.operands[skip:])
	case "find":
		if !(&checker{}).find(&report{}, a) {
			return "" // -exec/-delete: a grant for "find" would cover them
		}
	}
	if destructive(fam, a) {
		return "" // "allow rm this session" must not cover rm -rf
	}
	base := grantName(a[0].val)
	pre, ok := subcommandPreFlags(fam)
	if !ok {
		return base
	}
	if fam == "make" || fam == "gmake" {
		for _, w := range a[1:] {
			if !w.lit || strings.Contains(w.val, "=") {
				return "" // make VAR=value can replace any recipe's commands
			}
		}
	}
	for _, w := range a[1:] {
		if !w.known() {
			return ""
		}
		v := w.val
		switch {
		case slices.Contains(pre, v):
		case (fam == "make" || fam == "gmake") && strings.HasPrefix(v, "-j") && (v == "-j" || allDigits(v[2:])):
		case fam == "cargo" && strings.HasPrefix(v, "+") && plainWord(v[1:]):
		case strings.HasPrefix(v, "-"):
			return "" // an option we do not know may take the next word
		case plainWord(v):
			return base + " " + v
		default:
			return ""
		}
	}
	return base
}

// grantName is the program part of a fingerprint: the basename for a
// command found on PATH, the cleaned path for one named by path, so that a
// grant for "go test" never covers "/tmp/x/go test".
func grantName(argv0 string) string {
	p := strings.ReplaceAll(argv0, `\`, "/")
	if !strings.Contains(p, "/") {
		return argv0
	}
	clean := path.Clean(p)
	if !strings.HasPrefix(clean, "/") && !strings.HasPrefix(clean, "../") && clean != ".." {
		clean = "./" + clean
	}
	return clean
}

// plainWord reports whether w can name a subcommand: no paths that climb,
// no shell-looking characters.
func plainWord(w string) bool {
	if w == "" || w[0] == '.' || w[0] == '/' || strings.Contains(w, "..") {
		return false
	}
	for _, ch := range w {
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9':
		case strings.ContainsRune("._:@+/-", ch):
		default:
			return false
		}
	}
	return true
}

// runsPrograms reports options that make an otherwise ordinary tool run a
// program named in its arguments (rg --pre, tar --to-command, sort
// --compress-program): a grant for the tool must not cover them.
func runsPrograms(fam string, a []arg) bool {
	var flags []string
	switch fam {
	case "rg":
		flags = []string{"--pre", "--hostname-bin"}
	case "sort":
		flags = []string{"--compress-program"}
	case "tar", "gtar", "bsdtar":
		flags = []string{"--to-command", "--use-compress-program", "-I", "--checkpoint-action",
			"--info-script", "--new-volume-script", "-F", "--rsh-command", "--rmt-command"}
	case "rsync":
		flags = []string{"-e", "--rsh", "--rsync-path"}
	case "zip":
		flags = []string{"-TT", "--unzip-command"}
	case "man":
		flags = []string{"-P", "--pager", "-H", "--html"}
	case "git":
		flags = []string{"-O", "--open-files-in-pager", "--upload-pack", "--receive-pack", "--exec"}
	default:
		return false
	}
	for _, w := range a[1:] {
		if !w.lit {
			continue
		}
		name, _, _ := strings.Cut(w.val, "=")
		for _, f := range flags {
			if name == f || (strings.HasPrefix(f, "--") && len(name) > 3 && strings.HasPrefix(f, name)) ||
				(len(f) == 2 && !strings.HasPrefix(name, "--") && strings.HasPrefix(name, "-") &&
					strings.ContainsRune(name[1:], rune(f[1]))) {
				return true
			}
		}
	}
	return false
}

// destructive reports commands whose harm does not depend on their
// subcommand alone: recursive or forced deletes, raw disk writes, history
// rewrites. A session grant for their program would cover far more than
// the person approved, so they are never grantable (each one is asked).
func destructive(fam string, a []arg) bool {
	hasFlag := func(short string, long ...string) bool {
		for _, w := range a[1:] {
			v := w.val
			if slices.Contains(long, v) {
				return true
			}
			if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], short) {
				return true
			}
		}
		return false
	}
	hasWord := func(words ...string) bool {
		for _, w := range a[1:] {
			if slices.Contains(words, w.val) {
				return true
			}
		}
		return false
	}
	switch fam {
	case "rm":
		return hasFlag("rRf", "--recursive", "--force")
	case "dd", "shred", "mkfs", "wipefs", "truncate":
		return true
	case "chmod", "chown", "chgrp":
		return hasFlag("R", "--recursive")
	case "git":
		return hasWord("--force", "-f", "--force-with-lease", "--hard", "--mirror", "--delete") ||
			hasWord("clean", "filter-branch", "filter-repo", "gc", "prune", "reflog")
	}
	return false
}
