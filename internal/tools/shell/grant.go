package shell

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/internal/tools/confine"
)

// grant computes the Fingerprint: only a single simple command, with no
// substitutions, assignments, background or redirection to files, can be
// remembered, because a grant must cover exactly what the person saw. why
// says what stops it when fp is empty.
func (c *checker) grant(f *syntax.File) (fp, why string) {
	if len(f.Stmts) != 1 {
		return "", "several commands cannot be remembered as one"
	}
	st := f.Stmts[0]
	for {
		if st.Background || st.Coprocess || st.Negated {
			return "", "background or negated commands are asked every time"
		}
		for _, rd := range st.Redirs {
			if !c.redirect(&report{}, rd) {
				return "", "a redirection to a file is asked every time"
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
		return "", "only a plain command without assignments can be remembered"
	}
	nested := false // other commands, or assignments hidden in expansions
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp:
			nested = true // what the grant would remember depends on a value the person may not see
		case *syntax.BinaryArithm:
			nested = nested || arithAssign(n.Op)
		case *syntax.UnaryArithm:
			nested = nested || n.Op == syntax.Inc || n.Op == syntax.Dec
		}
		return !nested
	})
	if nested {
		return "", "a command with variables or substitutions is asked every time"
	}
	c.vars = assignedVars(f)
	args, ok := c.expandArgs(ce.Args, nil)
	if !ok {
		return "", "its words are only known when it runs"
	}
	fp, why = c.fingerprint(args)
	if fp == "" && why == "" {
		why = "it cannot be named for a grant"
	}
	return fp, why
}

// neverGranted are programs no grant may cover: each call can destroy or
// reconfigure something the person did not see.
func neverGranted(fam string, a []arg) string {
	switch fam {
	case "rm", "rmdir", "unlink", "cp", "mv", "chmod", "chown", "chgrp", "ln", "install", "rsync", "tee":
		return fam + " is asked every time: a grant would cover any file"
	case "eval", "source", ".", "trap", "xargs", "builtin", "watch", "flock", "strace", "ltrace",
		"busybox", "toybox", "alias", "command", "setsid", "nohup", "env":
		return fam + " runs code the grant would not name"
	}
	if fam == "go" && len(a) > 1 && a[1].val == "env" && slices.ContainsFunc(a[2:], func(w arg) bool {
		return w.val == "-w" || w.val == "-u"
	}) {
		return "go env -w changes what every later go command does; it is asked every time"
	}
	return ""
}

// fingerprint names what an argv runs, for "allow for this session", or
// says why it cannot be remembered.
func (c *checker) fingerprint(a []arg) (string, string) {
	if len(a) == 0 || !a[0].known() || a[0].val == "" {
		return "", "the program is only known when it runs"
	}
	fam := family(cmdName(a[0].val))
	switch {
	case isShell(fam):
		return "", "a shell runs any code"
	case bannedWhy(fam) != "":
		return "", "the command is blocked"
	case inlineCode(fam, a):
		return "", "it runs code given on the command line"
	case runsPrograms(fam, a):
		return "", "an option makes it run another program"
	}
	switch fam {
	case "nice", "timeout", "stdbuf", "ionice", "unbuffer", "time", "exec",
		"caffeinate", "chrt", "taskset", "prlimit":
		spec, skip := wrapperSpec(fam)
		p := parseOpts(a[1:], spec)
		if p.has("-o", "--output", "-p", "--pid") || len(p.operands) <= skip {
			return "", fam + " with these options is asked every time"
		}
		return c.fingerprint(p.operands[skip:])
	case "find":
		if !(&checker{}).find(&report{}, a) {
			return "", "find -exec or -delete is asked every time" // a grant for "find" would cover them
		}
	}
	if why := neverGranted(fam, a); why != "" {
		return "", why
	}
	if destructive(fam, a) {
		return "", "forced or recursive forms are asked every time" // "allow rm this session" must not cover rm -rf
	}
	base := grantName(a[0].val)
	if cc := *c; cc.readOnly(a) {
		// A read-only command's options only choose what it prints, and
		// every file it reads is inside (or it would be asked anyway).
		if _, sub := subcommandPreFlags(fam); sub {
			if i, _ := gitSub(a); fam == "git" && i < len(a) {
				return base + " " + a[i].val, ""
			}
			if len(a) > 1 && plainWord(a[1].val) {
				return base + " " + a[1].val, ""
			}
		}
		return base, ""
	}
	if why := c.outsideWord(a[1:]); why != "" {
		return "", why
	}
	if why := c.effectsOutside(a); why != "" {
		return "", why
	}
	if spec, ok := grantSpecs()[fam]; ok {
		return c.specFingerprint(base, fam, spec, vals(a[1:]))
	}
	return wordsFingerprint(base, a[1:]), ""
}

// effectsOutside says which file the argv is seen to read, write or
// delete outside the workspace (through a link, say), or "".
func (c *checker) effectsOutside(a []arg) string {
	cc := *c
	r := &report{}
	cc.argv(r, a, nil)
	for _, list := range [][]string{r.reads, r.writes, r.deletes} {
		for _, p := range list {
			if !c.insidePath(p) {
				return filepath.Clean(p) + " is outside the workspace"
			}
		}
	}
	return ""
}

// readOnly reports whether one argv is read-only with every file it reads
// inside the workspace.
func (c *checker) readOnly(a []arg) bool {
	r := &report{}
	if !c.argv(r, a, nil) || r.blocked != "" || r.unplaced {
		return false
	}
	for _, p := range r.reads {
		if !c.insidePath(p) {
			return false
		}
	}
	return true
}

// wordsFingerprint remembers a command word for word: a later call is
// covered only when it is the same command.
func wordsFingerprint(base string, rest []arg) string {
	words := []string{base}
	for _, w := range rest {
		words = append(words, quoteWord(w.val))
	}
	return strings.Join(words, " ")
}

// quoteWord quotes a word for a fingerprint when it needs it.
func quoteWord(w string) string {
	if w != "" && plainWord(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// specFingerprint reads words with a grant spec: the subcommand(s) form
// the fingerprint; every option must be on the table and must not run a
// program; files read or written must be inside the workspace.
func (c *checker) specFingerprint(base, fam string, spec grantSpec, words []string) (string, string) {
	pre, _ := subcommandPreFlags(fam)
	i := 0
	for i < len(words) && slices.Contains(pre, words[i]) {
		i++ // options before the subcommand that change nothing (git --no-pager)
	}
	if fam == "cargo" && i < len(words) && strings.HasPrefix(words[i], "+") && plainWord(words[i][1:]) {
		i++ // cargo +nightly test
	}
	if fam == "python" || fam == "node" {
		return c.scriptFingerprint(base, spec, words[i:], fam == "python")
	}
	if fam == "npx" {
		return c.toolFingerprint(base, spec, words[i:])
	}
	words = words[i:]
	sub := ""
	if spec.subs > 0 {
		if len(words) == 0 || strings.HasPrefix(words[0], "-") {
			return "", fam + " without a subcommand first (options before it) is asked every time"
		}
		sub = words[0]
	}
	if spec.check != nil {
		t, _ := spec.opts(sub)
		if t != nil {
			rest := words
			if sub != "" {
				rest = words[1:]
			}
			if why := spec.check(sub, t.parseLine(rest)); why != "" {
				return "", why
			}
		} else if why := spec.check(sub, cmdLine{}); why != "" {
			return "", why
		}
	}
	t, ok := spec.opts(sub)
	if !ok {
		return wordsFingerprint(base, lits(words)), ""
	}
	rest := words
	if sub != "" {
		rest = words[1:]
	}
	cl := t.parseLine(rest)
	if cl.unknown != "" {
		return "", "option " + cl.unknown + " is not one agentls can remember safely"
	}
	for _, o := range cl.opts {
		switch o.def.eff {
		case effExec, effChange, effList:
			return "", o.name + " " + o.def.eff.String()
		case effRead, effWrite:
			if o.hasVal && !c.insidePath(o.val) {
				return "", o.name + " names " + o.val + ", outside the workspace"
			}
		}
	}
	parts := []string{base}
	if sub != "" {
		parts = append(parts, sub)
	}
	ops := cl.operands
	switch {
	case spec.allSubs:
		for _, o := range ops {
			parts = append(parts, quoteWord(o))
		}
		ops = nil
	case spec.subs > 1 || (sub != "" && (fam == "go" && (sub == "mod" || sub == "work"))):
		if len(ops) > 0 {
			parts = append(parts, quoteWord(ops[0]))
			ops = ops[1:]
		}
	case fam == "npm" || fam == "pnpm" || fam == "yarn" || fam == "bun":
		if (sub == "run" || sub == "run-script") && len(ops) > 0 {
			parts = append(parts, quoteWord(ops[0])) // the script the person saw
			ops = ops[1:]
		}
	}
	if !spec.rest && len(ops) > 0 && cl.dashes < 0 {
		return "", "its operands are not remembered; it is asked every time"
	}
	for _, o := range ops {
		if c.pathLike(o) && !c.insidePath(o) {
			return "", o + " is outside the workspace"
		}
	}
	return strings.Join(parts, " "), ""
}

// scriptFingerprint: an interpreter with [options] SCRIPT args…, or for
// python -m MODULE args…: the script or module is what the person saw run.
func (c *checker) scriptFingerprint(base string, spec grantSpec, words []string, modules bool) (string, string) {
	t, _ := spec.opts("")
	var opts []string
	i := 0
	for ; i < len(words) && strings.HasPrefix(words[i], "-") && words[i] != "-"; i++ {
		if modules && strings.HasPrefix(words[i], "-m") {
			mod := strings.TrimPrefix(words[i], "-m")
			if mod == "" && i+1 < len(words) {
				i++
				mod = words[i]
			}
			if cl := t.parseLine(opts); cl.unknown != "" {
				return "", "option " + cl.unknown + " is not one agentls can remember safely"
			}
			return base + " -m " + quoteWord(mod), c.restOutside(words[i+1:])
		}
		opts = append(opts, words[i])
		if words[i] == "-W" || words[i] == "-X" {
			if i+1 < len(words) {
				i++
				opts = append(opts, words[i])
			}
		}
	}
	if cl := t.parseLine(opts); cl.unknown != "" {
		return "", "option " + cl.unknown + " is not one agentls can remember safely"
	}
	if i >= len(words) || words[i] == "-" {
		return "", "the program comes from standard input"
	}
	script := words[i]
	if !c.insidePath(script) {
		return "", script + " is outside the workspace"
	}
	if why := c.restOutside(words[i+1:]); why != "" {
		return "", why
	}
	return base + " " + quoteWord(script), ""
}

// toolFingerprint: npx [options] PACKAGE args…: the package is what runs;
// its own arguments are remembered only as far as staying inside the
// workspace.
func (c *checker) toolFingerprint(base string, spec grantSpec, words []string) (string, string) {
	t, _ := spec.opts("")
	i := 0
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		i++
	}
	if cl := t.parseLine(words[:i]); cl.unknown != "" {
		return "", "option " + cl.unknown + " is not one agentls can remember safely"
	}
	if i >= len(words) || !plainWord(words[i]) {
		return "", "the package to run is not a plain name"
	}
	if why := c.restOutside(words[i+1:]); why != "" {
		return "", why
	}
	return base + " " + words[i], ""
}

// restOutside says which argument names a path outside the workspace.
func (c *checker) restOutside(words []string) string {
	for _, w := range words {
		if c.pathLike(w) && !c.insidePath(w) {
			return w + " is outside the workspace"
		}
	}
	return ""
}

// outsideWord says which word (or option value) names a path outside the
// workspace: absolute, home-relative or climbing paths only, so plain
// words (test names, targets) are not taken for files.
func (c *checker) outsideWord(words []arg) string {
	for _, w := range words {
		v := w.val
		if _, val, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") {
			v = val
		}
		if !(filepath.IsAbs(v) || strings.HasPrefix(v, "~") || v == ".." || strings.HasPrefix(v, "../") ||
			strings.Contains(v, "/../") || strings.HasSuffix(v, "/..")) {
			continue
		}
		if !c.insidePath(v) {
			return v + " is outside the workspace"
		}
	}
	return ""
}

// insidePath reports whether p (relative to the checker's folder) lies
// inside the workspace. With no roots known nothing is inside.
func (c *checker) insidePath(p string) bool {
	if len(c.roots) == 0 || c.dir == "" {
		return false
	}
	return confine.Inside(c.roots, c.dir, p)
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
