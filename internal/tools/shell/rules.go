package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// argv judges one simple command given as words. It records blocks, paths
// and destinations in r and reports whether this command alone is
// read-only. in is the fixed text fed to the command's stdin, if known.
//
// The same function serves the static judge (words may be unknown) and the
// run-time guard (every word is known), so the two never disagree on a rule.
func (c *checker) argv(r *report, a []arg, in *string) bool {
	if len(a) == 0 {
		return true
	}
	a0 := a[0]
	if !a0.known() {
		if c.mode == modeExternal {
			r.block("command name %s is computed at run time by another shell, so it cannot be checked", a0.val)
		}
		return false
	}
	if c.subst != "" && strings.Contains(a0.val, c.subst) {
		r.block("command name %q would be replaced with run-time input, so it cannot be checked", a0.val)
		return false
	}
	name := cmdName(a0.val)
	fam := family(name)
	c.destinations(r, fam, a)
	c.egress(r, fam, a)
	if why := bannedWhy(fam); why != "" {
		r.block("%q is not allowed: %s", name, why)
		return false
	}
	c.blockRules(r, fam, a)
	if handled, ro := c.builtin(r, a); handled {
		return ro
	}

	switch fam {
	case "env":
		return c.envCmd(r, a, in)
	case "nice", "nohup", "timeout", "stdbuf", "setsid", "ionice", "chrt", "taskset",
		"unbuffer", "strace", "ltrace", "prlimit", "caffeinate", "time", "exec", "builtin",
		"command", "busybox", "toybox", "flock", "watch", "unshare", "nsenter":
		return c.wrapper(r, fam, a, in)
	case "xargs":
		return c.xargs(r, a, in)
	case "find":
		return c.find(r, a) && a0.val == "find" && c.trusted(r, "find")
	case "jq":
		return c.jq(r, a) && a0.val == "jq" && c.trusted(r, "jq")
	case "awk", "gawk", "mawk", "nawk":
		return c.awk(r, a) && a0.val == fam && c.trusted(r, fam)
	case "eval":
		return c.evalCode(r, a[1:], "eval")
	case "trap":
		t := a[1:]
		if len(t) > 0 && t[0].val == "--" {
			t = t[1:]
		}
		if len(t) > 1 && t[0].val != "-" && !strings.HasPrefix(t[0].val, "-") && !allDigits(t[0].val) {
			return c.evalCode(r, t[:1], "trap")
		}
		return false
	case "source", ".":
		return c.sourced(r, a)
	case "git":
		return c.git(r, a) && a0.val == "git" && c.trusted(r, "git")
	case "go":
		return c.goCmd(r, a) && a0.val == "go" && c.trusted(r, "go")
	case "gofmt":
		return c.gofmt(r, a) && a0.val == "gofmt" && c.trusted(r, "gofmt")
	case "python":
		if p, ok := pythonModule(a, "pip"); ok {
			c.pip(r, p)
		}
		return false
	}
	if isShell(fam) {
		return c.shell(r, fam, a, in)
	}
	return c.external(r, a)
}

// evalCode judges words that a shell builtin joins and runs as code.
func (c *checker) evalCode(r *report, words []arg, what string) bool {
	src := make([]string, 0, len(words))
	for _, w := range words {
		if !w.lit || w.tilde {
			if c.mode == modeExternal {
				r.block("%s runs code computed at run time by another shell, so it cannot be checked", what)
			}
			return false
		}
		src = append(src, w.val)
	}
	c.script(r, strings.Join(src, " "), what, c.mode)
	return false
}

// sourced judges a script read into the current shell. Our interpreter
// reads it itself (and the guard sees its commands); another shell's
// source is judged from the file when it can be read.
func (c *checker) sourced(r *report, a []arg) bool {
	if c.mode == modeInterp || len(a) < 2 || !a[1].known() {
		return false
	}
	c.scriptFile(r, a[1].val, "sourced file "+a[1].val)
	return false
}

// scriptFile judges a script file run by another shell (best effort).
func (c *checker) scriptFile(r *report, name, what string) {
	if c.readFile == nil {
		return
	}
	p, ok := cleanAbs(c.dir, name)
	if !ok {
		return
	}
	b, err := c.readFile(p)
	if err != nil {
		return // the shell will not run it either
	}
	if len(b) > maxScript {
		r.block("%s is too large to check", what)
		return
	}
	c.script(r, string(b), what, modeFile)
}

// envCmd unwraps env [options] [NAME=VALUE…] [command…].
func (c *checker) envCmd(r *report, a []arg, in *string) bool {
	p := parseOpts(a[1:], optSpec{shortVal: "uCSP", longVal: []string{"unset", "chdir", "split-string"}, stop: true})
	inner := p.operands
	kv := map[string]string{}
	for len(inner) > 0 && inner[0].lit {
		k, v, ok := strings.Cut(inner[0].val, "=")
		if !ok || k == "" {
			break
		}
		kv[k] = v
		if why := envWhy(k, v); why != "" {
			r.block("env %s=… is not allowed: %s", k, why)
		}
		inner = inner[1:]
	}
	if s, ok := p.get("-S", "--split-string"); ok {
		// env -S splits its string much like a shell; anything beyond plain
		// words and quotes cannot be predicted.
		words, ok := simpleWords(s)
		if !ok {
			if c.mode == modeExternal || (c.mode == modeInterp && c.readFile != nil) {
				r.block("env -S %q cannot be checked", s)
			}
			return false
		}
		inner = append(words, inner...)
	}
	if len(inner) == 0 && len(kv) == 0 {
		// env alone prints the environment agentls gives commands (the
		// sandbox's allow-list): read-only with the options that only
		// shape the output.
		return p.onlyOpts("-0", "--null") && a[0].val == "env" && c.trusted(r, "env")
	}
	c.withEnv(kv).argv(r, inner, in)
	return false
}

// wrapperSpec describes wrappers that run their operands as a command:
// the options they take and how many operands come before the command.
func wrapperSpec(fam string) (optSpec, int) {
	switch fam {
	case "nice":
		return optSpec{shortVal: "n", longVal: []string{"adjustment"}, digits: true, stop: true}, 0
	case "timeout":
		return optSpec{shortVal: "sk", longVal: []string{"signal", "kill-after"}, stop: true}, 1
	case "stdbuf":
		return optSpec{shortVal: "ioe", longVal: []string{"input", "output", "error"}, stop: true}, 0
	case "ionice":
		return optSpec{shortVal: "cnpPu", longVal: []string{"class", "classdata", "pid", "pgid", "uid"}, stop: true}, 0
	case "chrt":
		return optSpec{shortVal: "TPD", longVal: []string{"sched-runtime", "sched-period", "sched-deadline"}, stop: true}, 1
	case "taskset":
		return optSpec{stop: true}, 1
	case "strace":
		return optSpec{shortVal: "abeEIoOpPsSuXU", stop: true}, 0
	case "ltrace":
		return optSpec{shortVal: "aAeEfFlLnopsuwDxX", stop: true}, 0
	case "prlimit":
		return optSpec{shortVal: "p", longVal: []string{"pid"}, stop: true}, 0
	case "caffeinate":
		return optSpec{shortVal: "tw", stop: true}, 0
	case "time":
		return optSpec{shortVal: "fo", longVal: []string{"format", "output"}, stop: true}, 0
	case "exec":
		return optSpec{shortVal: "a", stop: true}, 0
	case "flock":
		return optSpec{shortVal: "wEc", longVal: []string{"timeout", "conflict-exit-code", "command"}, stop: true}, 1
	case "watch":
		return optSpec{shortVal: "nq", longVal: []string{"interval", "equexit"}, stop: true}, 0
	case "nsenter":
		return optSpec{shortVal: "tSGw", longVal: []string{"target", "setuid", "setgid", "wd", "root"}, stop: true}, 0
	case "unshare":
		return optSpec{shortVal: "SGR", longVal: []string{"setuid", "setgid", "root", "wd", "map-user", "map-group"}, stop: true}, 0
	}
	return optSpec{stop: true}, 0 // nohup, setsid, unbuffer, builtin, command, busybox
}

// wrapper unwraps a command that runs another command and judges that.
// Wrappers are never read-only themselves: they exist to run something.
func (c *checker) wrapper(r *report, fam string, a []arg, in *string) bool {
	spec, skip := wrapperSpec(fam)
	p := parseOpts(a[1:], spec)
	switch fam {
	case "command":
		if p.has("-v", "-V") {
			return true // only describes the command, like which
		}
	case "ionice", "strace", "ltrace", "prlimit", "caffeinate":
		if p.has("-p", "-P", "-u", "--pid", "--pgid", "--uid", "-w") && len(p.operands) == 0 {
			return false // acts on existing processes
		}
	case "chrt", "taskset":
		if p.has("-p", "--pid") {
			return false
		}
	case "busybox", "toybox":
		if len(p.operands) == 0 {
			return false
		}
	}
	ops := p.operands
	if fam == "flock" {
		if s, ok := p.get("-c", "--command"); ok {
			return c.shellScript(r, arg{val: s, lit: true}, "flock -c")
		}
		if len(ops) >= 3 && (ops[1].val == "-c" || ops[1].val == "--command") {
			return c.shellScript(r, ops[2], "flock -c")
		}
	}
	if fam == "watch" && !p.has("-x", "--exec") {
		// watch hands its words, joined, to sh -c.
		words := make([]string, 0, len(ops))
		for _, o := range ops {
			if !o.lit {
				return c.shellScript(r, o, "watch")
			}
			words = append(words, o.val)
		}
		return c.shellScript(r, arg{val: strings.Join(words, " "), lit: true}, "watch")
	}
	if len(ops) > skip {
		c.argv(r, ops[skip:], in)
	}
	if fam == "setsid" {
		// Under our process-group isolation setsid always forks into a new
		// session, beyond the reach of cancel and Kill. (A blocked wrapped
		// command was reported first.)
		r.block("%q is not allowed: it starts processes that outlive the command (use a background job)", "setsid")
	}
	return false
}

// xargs judges the command xargs will run with its input appended (or
// substituted for the replace string).
func (c *checker) xargs(r *report, a []arg, in *string) bool {
	repl := ""
	nul, safe := false, true
	i := 1
loop:
	for ; i < len(a); i++ {
		w := a[i].val
		if !a[i].lit || w == "-" || !strings.HasPrefix(w, "-") {
			break
		}
		if w == "--" {
			i++
			break
		}
		if strings.HasPrefix(w, "--") {
			name, val, has := strings.Cut(w, "=")
			switch name {
			case "--null":
				nul = true
			case "--no-run-if-empty", "--verbose", "--exit", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--replace":
			default:
				safe = false
			}
			switch name {
			case "--replace":
				repl = "{}"
				if has {
					repl = val
				}
			case "--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs",
				"--max-chars", "--process-slot-var":
				if !has {
					i++
				}
			}
			continue
		}
		for j := 1; j < len(w); j++ {
			switch ch := w[j]; {
			case ch == '0':
				nul = true
			case strings.IndexByte("rtx", ch) >= 0:
			default:
				if strings.IndexByte("LnPsIi", ch) < 0 {
					safe = false // -a reads a file, -p and -o use the terminal, -d, -E, -e change the parsing
				}
			}
			switch ch := w[j]; {
			case strings.IndexByte("adELnPsI", ch) >= 0:
				val := w[j+1:]
				if val == "" && i+1 < len(a) {
					i++
					val = a[i].val
				}
				if ch == 'I' {
					repl = val
				}
				continue loop
			case ch == 'i':
				repl = w[j+1:]
				if repl == "" {
					repl = "{}"
				}
				continue loop
			case ch == 'e' || ch == 'l':
				continue loop
			}
		}
	}
	inner := a[i:]
	if len(inner) == 0 {
		inner = lits([]string{"echo"})
	}
	cc := *c
	cc.subst, cc.appends = repl, repl == ""
	if repl == "" {
		cc.subst = c.subst
	}
	blocks := &report{}
	cc.argv(blocks, inner, nil)
	if blocks.blocked != "" {
		r.block("%s", blocks.blocked)
		r.dests = append(r.dests, blocks.dests...)
		r.sends = append(r.sends, blocks.sends...)
		return false
	}
	r.dests = append(r.dests, blocks.dests...)
	r.sends = append(r.sends, blocks.sends...)
	return c.xargsRO(r, a[i:], repl, nul, safe)
}

// shell judges sh/bash/zsh… invocations: the -c script, a script file, or
// a script on standard input.
func (c *checker) shell(r *report, fam string, a []arg, in *string) bool {
	cmdMode, stdinMode := false, false
	i := 1
	for ; i < len(a); i++ {
		w := a[i].val
		if !a[i].lit {
			break
		}
		if w == "--" || w == "-" {
			i++
			break
		}
		if strings.HasPrefix(w, "--") {
			switch w {
			case "--rcfile", "--init-file":
				r.block("%s %s runs a startup file that cannot be checked", fam, w)
				return false
			case "--version", "--help":
				return false
			}
			continue
		}
		if !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+") {
			break
		}
		for _, ch := range w[1:] {
			switch ch {
			case 'c':
				cmdMode = true
			case 's':
				stdinMode = true
			case 'o', 'O':
				i++ // -o pipefail
			}
		}
	}
	for _, v := range []string{"BASH_ENV", "ENV"} {
		if _, ok := c.setEnv(v); ok {
			r.block("%s with %s set runs a startup file that cannot be checked", fam, v)
			return false
		}
	}
	switch {
	case cmdMode:
		if i >= len(a) {
			return false
		}
		return c.shellScript(r, a[i], fam+" -c")
	case !stdinMode && i < len(a):
		if !a[i].known() {
			if c.mode == modeExternal {
				r.block("%s runs a script file named at run time, so it cannot be checked", fam)
			}
			return false
		}
		c.scriptFile(r, a[i].val, fam+" script "+a[i].val)
		return false
	}
	// The script comes from standard input.
	switch {
	case c.appends:
		r.block("%s would run a script file named by xargs input, so it cannot be checked", fam)
	case in != nil:
		c.script(r, *in, fam+" script on standard input", modeExternal)
	case c.mode == modeExternal:
		r.block("%s reads its script from standard input, so it cannot be checked", fam)
	case c.mode == modeInterp:
		r.needStdin = true
	}
	return false
}

// shellScript judges a script handed to another shell as text.
func (c *checker) shellScript(r *report, s arg, what string) bool {
	if !s.lit || s.tilde {
		if c.mode == modeExternal {
			r.block("%s script is computed at run time, so it cannot be checked", what)
		}
		return false // our interpreter will know it (guard), or a script file (best effort)
	}
	c.script(r, s.val, what+" script", modeExternal)
	return false
}

// find judges find's expression: -exec and friends run commands, -delete
// deletes what it finds under its starting points, -fprint and -fls write.
// Every predicate must be one find has; an unknown word is not read-only.
func (c *checker) find(r *report, a []arg) bool {
	ro := true
	i := 1
	follow := false              // -L, or -follow among the predicates
	for i < len(a) && a[i].lit { // -H -L -P -D opts -Olevel
		w := a[i].val
		if w == "-H" || w == "-L" || w == "-P" || strings.HasPrefix(w, "-O") {
			follow = w == "-L" || (follow && w != "-P" && w != "-H")
			i++
			continue
		}
		if w == "-D" {
			i += 2
			continue
		}
		break
	}
	var starts []arg
	for ; i < len(a); i++ {
		w := a[i]
		if w.lit && !w.glob && (strings.HasPrefix(w.val, "-") || w.val == "(" || w.val == "!" || w.val == ")" || w.val == ",") {
			break
		}
		if !c.pathOperand(r, w) {
			ro = false
		}
		starts = append(starts, w)
	}
	if len(starts) == 0 {
		starts = []arg{{val: ".", lit: true}}
		r.path(c, ".")
	}
	for ; i < len(a); i++ {
		w := a[i]
		if !w.known() {
			ro = false // an unknown word may be any predicate
			continue
		}
		switch v := w.val; {
		case v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir":
			j := i + 1
			for j < len(a) && !(a[j].lit && (a[j].val == ";" || a[j].val == "+")) {
				j++
			}
			cc := *c
			cc.subst = "{}"
			cc.argv(r, a[i+1:j], nil)
			if j > i+1 && a[i+1].known() && family(cmdName(a[i+1].val)) == "rm" {
				c.targets(r, &r.deletes, starts)
			}
			ro = false
			i = j
		case v == "-delete":
			c.targets(r, &r.deletes, starts)
			r.note("find -delete deletes files")
			ro = false
		case v == "-fprint" || v == "-fprint0" || v == "-fls" || v == "-fprintf":
			if i+1 < len(a) {
				c.targets(r, &r.writes, a[i+1:i+2])
			}
			r.note("find " + v + " writes a file")
			ro = false
			i++
			if v == "-fprintf" {
				i++
			}
		case v == "-files0-from":
			r.note(listedFiles("find", v))
			ro = false
			i++
		case findTakesValue(v):
			i++ // the value is data, whatever it looks like
		case findFlag(v):
			follow = follow || v == "-follow"
		default:
			r.note("find: " + v + " is not a predicate agentls knows to be safe")
			ro = false
		}
	}
	if follow {
		for _, s := range starts {
			if s.known() {
				c.linksOut(r, s.val)
			}
		}
	}
	return ro
}

// findTakesValue lists find's tests and options that take one value.
func findTakesValue(v string) bool {
	switch v {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
		"-iregex", "-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-perm", "-type",
		"-xtype", "-user", "-group", "-size", "-mtime", "-atime", "-ctime", "-mmin",
		"-amin", "-cmin", "-maxdepth", "-mindepth", "-printf", "-fstype", "-inum",
		"-links", "-samefile", "-uid", "-gid", "-used", "-context", "-regextype":
		return true
	}
	return strings.HasPrefix(v, "-newer") && len(v) == 8 // -newerXY reference
}

// findFlag lists find's operators, tests and actions that take no value
// and change nothing.
func findFlag(v string) bool {
	switch v {
	case "(", ")", "!", ",", "-a", "-and", "-o", "-or", "-not", "-true", "-false", "-empty",
		"-executable", "-readable", "-writable", "-nouser", "-nogroup", "-print", "-print0",
		"-ls", "-prune", "-quit", "-depth", "-d", "-mount", "-xdev", "-noleaf", "-ignore_readdir_race",
		"-noignore_readdir_race", "-follow", "-daystart", "-warn", "-nowarn", "-help", "-version":
		return true
	}
	return false
}

// simpleWords splits text the way a shell splits one simple command, if it
// is only that: words, quotes and escapes, nothing to expand.
func simpleWords(s string) ([]arg, bool) {
	f, err := parse(s)
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated || len(ce.Assigns) > 0 {
		return nil, false
	}
	var out []arg
	for _, w := range ce.Args {
		a := wordArg(w)
		if !a.known() {
			return nil, false
		}
		out = append(out, a)
	}
	return out, true
}
