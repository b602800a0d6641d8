package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// gitHarmless are git's global options that change neither what runs nor
// where.
func gitHarmless(w string) bool {
	switch w {
	case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
		"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--no-advice":
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
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path":
			i++
		}
	}
	return i, clean
}

// git judges git: a subcommand from gitSubcommands with harmless global
// options, every option known, every file it reads reported, and no
// repository configuration that would make it run a program.
func (c *checker) git(r *report, a []arg) bool {
	c.gitPlaces(r, a)
	i, clean := gitSub(a)
	if i >= len(a) || !a[i].known() || !clean || !allKnown(a) {
		return false
	}
	sub := a[i].val
	spec, ok := gitSubcommands()[sub]
	if !ok {
		return false
	}
	words := vals(a[i+1:])
	cl := spec.opts.parseLine(words)
	var e effects
	if cl.unknown != "" {
		e.not("git %s: option %s is not one agentls knows to be safe", sub, cl.unknown)
	}
	for _, o := range cl.opts {
		switch o.def.eff {
		case effRead:
			e.read(o.val)
		case effSafe:
		default:
			e.not("git %s %s %s", sub, o.name, o.def.eff)
			if o.def.eff == effWrite {
				e.write(o.val)
			}
		}
	}
	if spec.check != nil {
		spec.check(cl, &e)
	}
	if sub == "config" && !cl.has("--local", "--worktree", "-f", "--file", "--blob") {
		// Every scope: the person's ~/.gitconfig (tokens in
		// url.*.insteadOf) and the system's are read outside.
		for _, f := range c.globalGitConfigs() {
			e.read(f)
		}
	}
	c.gitOperands(spec.paths, cl, &e)
	c.record(r, e)
	if e.why != "" {
		return false
	}
	if why := c.gitConfigWhy(r); why != "" {
		r.note(why)
		return false
	}
	return true
}

// gitPlaces records the repositories and work trees git is pointed at by
// -C, --git-dir and --work-tree: read by a read-only subcommand, changed
// by any other.
func (c *checker) gitPlaces(r *report, a []arg) {
	i, _ := gitSub(a)
	readOnly := false
	if i < len(a) {
		_, readOnly = gitSubcommands()[a[i].val]
	}
	for k := 1; k < i && k < len(a); k++ {
		w := a[k].val
		val, ok := "", false
		switch {
		case w == "-C" || w == "--git-dir" || w == "--work-tree":
			if k+1 < len(a) && a[k+1].known() {
				val, ok = a[k+1].val, true
			}
		case strings.HasPrefix(w, "--git-dir=") || strings.HasPrefix(w, "--work-tree="):
			_, val, ok = strings.Cut(w, "=")
		}
		if !ok {
			continue
		}
		if readOnly {
			c.addPath(r, &r.reads, val)
		} else {
			c.addPath(r, &r.writes, val)
		}
	}
}

// gitOperands reports the operands git will read as files. Revisions and
// paths share the command line, and git diff compares two files outside
// any repository by itself (an implicit --no-index), so anything that
// looks like a path is counted as one.
func (c *checker) gitOperands(kind gitPaths, cl cmdLine, e *effects) {
	ops := cl.operands
	if kind == gitPathsGrep {
		if !cl.has("-e", "-f") && len(ops) > 0 {
			ops = ops[1:]
		}
		kind = gitPathsAny
	}
	for k, o := range ops {
		after := cl.dashes >= 0 && k+len(cl.operands)-len(ops) >= cl.dashes
		switch {
		case kind == gitPathsAll || after:
			e.read(o)
		case kind == gitPathsNone:
		case c.pathLike(o):
			e.read(o)
		}
	}
}

// pathLike reports whether a git operand may name a file: it is absolute,
// starts at home, climbs with "..", or exists in the working folder.
// "HEAD~1..main" and "origin/main" that do not exist are revisions.
func (c *checker) pathLike(o string) bool {
	switch {
	case strings.HasPrefix(o, ":"): // :/message, :0:path
		return false
	case filepath.IsAbs(o), strings.HasPrefix(o, "/"), strings.HasPrefix(o, "~"):
		return true
	case o == "..", strings.HasPrefix(o, "../"), strings.Contains(o, "/../"), strings.HasSuffix(o, "/.."):
		return true
	}
	if i := strings.IndexByte(o, ':'); i > 0 {
		return false // REV:path names a blob, not a file
	}
	if c.dir == "" {
		return true // cannot look: count it
	}
	_, err := os.Lstat(filepath.Join(c.dir, o))
	return err == nil
}

// gitListing: branch and tag list only with no name, or with -l/--list.
func gitListing(sub string) func(cl cmdLine, e *effects) {
	return func(cl cmdLine, e *effects) {
		if len(cl.operands) > 0 && !cl.has("-l", "--list") {
			e.not("git %s %s creates or changes a %s", sub, cl.operands[0], sub)
		}
	}
}

func noGitOperands(sub string) func(cl cmdLine, e *effects) {
	return func(cl cmdLine, e *effects) {
		if len(cl.operands) > 0 {
			e.not("git %s takes no operand", sub)
		}
	}
}

// gitRemoteCheck: git remote [-v] lists; git remote get-url NAME reads;
// every other form changes or contacts a remote.
func gitRemoteCheck(cl cmdLine, e *effects) {
	switch {
	case len(cl.operands) == 0:
		if cl.has("--push", "--all") {
			e.not("git remote --push/--all only apply to get-url")
		}
	case cl.operands[0] == "get-url":
	default:
		e.not("git remote %s changes or contacts a remote", cl.operands[0])
	}
}

// gitConfigCheck: reading forms only.
func gitConfigCheck(cl cmdLine, e *effects) {
	if len(cl.operands) > 0 && (cl.operands[0] == "get" || cl.operands[0] == "list") {
		return
	}
	if cl.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list") {
		return
	}
	e.not("git config without --get or --list changes the configuration")
}

func gitStashCheck(cl cmdLine, e *effects) {
	if len(cl.operands) == 0 || (cl.operands[0] != "list" && cl.operands[0] != "show") {
		e.not("git stash without list or show changes the stash or the work tree")
	}
}

func gitWorktreeCheck(cl cmdLine, e *effects) {
	if len(cl.operands) == 0 || cl.operands[0] != "list" {
		e.not("git worktree without list changes worktrees")
	}
}

func gitReflogCheck(cl cmdLine, e *effects) {
	if len(cl.operands) > 0 && slices.Contains([]string{"expire", "delete", "drop"}, cl.operands[0]) {
		e.not("git reflog %s changes the reflog", cl.operands[0])
	}
}

// globalGitConfigs are the configuration files git reads besides the
// repository's: the person's and the system's.
func (c *checker) globalGitConfigs() []string {
	out := []string{"/etc/gitconfig"}
	if c.home != "" {
		out = append(out, filepath.Join(c.home, ".gitconfig"), filepath.Join(c.home, ".config", "git", "config"))
	} else {
		out = append(out, "~/.gitconfig") // unknown: the call is not read-only
	}
	return out
}
