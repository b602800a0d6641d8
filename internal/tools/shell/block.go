package shell

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// goExecFlag returns the go build flag among words that makes go run a
// program of the caller's choosing: -exec, -toolexec, -vettool, -compiler
// (gccgo from PATH) and -gccgoflags, and -ldflags naming an external linker
// or its flags (-extld, -extldflags: `-ldflags=-extld=./evil.sh`).
func goExecFlag(words []string) string {
	for i, w := range words {
		if w == "-args" || w == "--args" {
			return "" // the rest goes to the test binary
		}
		if !strings.HasPrefix(w, "-") {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch name {
		case "exec", "toolexec", "vettool", "compiler", "gccgoflags":
			return "-" + name
		case "ldflags":
			if !hasVal && i+1 < len(words) {
				val = words[i+1]
			}
			if strings.Contains(val, "extld") {
				return "-ldflags " + val
			}
		}
	}
	return ""
}

// goToolVars are the go environment variables naming a program go runs or
// flags it hands one (a C compiler given -B or -fplugin runs anything):
// `go env -w CC=./evil.sh` turns every later go build into that program.
var goToolVars = map[string]bool{
	"CC": true, "CXX": true, "FC": true, "AR": true, "PKG_CONFIG": true, "GCCGO": true,
	"CGO_CFLAGS": true, "CGO_CPPFLAGS": true, "CGO_CXXFLAGS": true, "CGO_FFLAGS": true, "CGO_LDFLAGS": true,
	"GOTOOLCHAIN": true, "GOENV": true, "GOROOT": true,
}

// goEnvWriteWhy says why `go env -w name=val` is refused, or "": it persists
// for every later go command, so a variable naming a program is refused
// whatever its value.
func goEnvWriteWhy(name, val string) string {
	if goToolVars[name] {
		return "it names a program (or its flags) that every later go command runs"
	}
	return envWhy(name, val)
}

// goCmd judges the go command: go install and build flags that run another
// program are blocked; go version, go env (without -w/-u) and go doc are
// read-only when every flag is known.
func (c *checker) goCmd(r *report, a []arg) bool {
	if len(a) < 2 || !a[1].known() {
		return false
	}
	sub := a[1].val
	words := vals(a[2:])
	switch sub {
	case "install":
		r.block("%q is not allowed: it installs programs outside the project", "go install")
		return false
	case "env":
		p := parseOpts(a[2:], optSpec{})
		if p.has("-w") {
			for _, o := range p.operands {
				k, v, _ := strings.Cut(o.val, "=")
				if why := goEnvWriteWhy(k, v); why != "" {
					r.block("%q is not allowed: %s", "go env -w "+k, why)
				}
			}
		}
	}
	if f := goExecFlag(words); f != "" {
		r.block("%q is not allowed: it makes go run an arbitrary program", "go "+sub+" "+f)
	}
	c.goWrites(r, a[1:])
	if v, ok := c.setEnv("GOFLAGS"); ok {
		if f := goExecFlag(strings.Fields(v)); f != "" {
			r.block("%q is not allowed: GOFLAGS contains %s, which makes go run an arbitrary program", "go "+sub, f)
		}
	}
	t, ok := goReadOnly()[sub]
	if !ok || !allKnown(a) {
		return false
	}
	cl := t.opts.parseLine(words)
	var e effects
	if cl.unknown != "" {
		e.not("go %s: flag %s is not one agentls knows to be safe", sub, cl.unknown)
	}
	if t.check != nil {
		t.check(cl, &e)
	}
	if v, ok := c.env("GOFLAGS"); ok && strings.Contains(v, "-mod=mod") {
		e.not("go %s: GOFLAGS has -mod=mod, so go may change go.mod", sub)
	}
	for _, o := range cl.opts {
		if o.def.eff != effSafe {
			e.not("go %s %s %s", sub, o.name, o.def.eff)
		}
	}
	for _, o := range cl.operands {
		if t.paths == gitPathsAll || (t.paths == gitPathsAny && c.pathLike(o)) {
			e.read(o)
		}
	}
	c.record(r, e)
	return e.why == ""
}

// goWrites records the files and folders go flags write (-o, profiles,
// -outputdir) and the folder -C runs it in.
func (c *checker) goWrites(r *report, words []arg) {
	for k := 0; k < len(words); k++ {
		w := words[k]
		if !w.known() {
			continue
		}
		name, val, has := strings.Cut(strings.TrimLeft(w.val, "-"), "=")
		if !strings.HasPrefix(w.val, "-") || w.val == "-args" || w.val == "--args" {
			if w.val == "-args" || w.val == "--args" {
				return // the rest goes to the test binary
			}
			continue
		}
		switch name {
		case "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace",
			"outputdir", "pkgdir", "C", "test.coverprofile", "test.cpuprofile", "test.outputdir":
			if !has && k+1 < len(words) && words[k+1].known() {
				k++
				val, has = words[k].val, true
			}
			if has {
				c.addPath(r, &r.writes, val)
			}
		}
	}
}

// goReadOnly are the go subcommands that only print, with their flags.
var goReadOnly = sync.OnceValue(func() map[string]gitSubcommand {
	return map[string]gitSubcommand{
		"version": {paths: gitPathsAll, opts: optionTable(styleGoAny, "-m\n-v\n-json")},
		"env":     {paths: gitPathsNone, opts: optionTable(styleGoAny, "-json\n-changed\n-w >change\n-u >change")},
		"doc":     {paths: gitPathsAny, opts: optionTable(styleGoAny, "-all\n-c\n-cmd\n-short\n-src\n-u\n-http >change")},
		"help":    {paths: gitPathsNone, opts: optionTable(styleGoAny, "")},
		// go list loads packages and prints; -compiled and -export are
		// left out (they run cgo and the compiler), -mod is checked.
		"list": {paths: gitPathsAny, check: goListCheck, opts: optionTable(styleGoAny,
			"-deps\n-e\n-f=\n-find\n-json[=]\n-m\n-test\n-u\n-versions\n-retracted\n-mod=\n-tags=\n-trimpath\n-buildvcs=\n-race\n-modfile= >read\n-reuse= >read\n-overlay= >read")},
	}
})

// gofmt judges gofmt: it prints unless -w rewrites the files.
func (c *checker) gofmt(r *report, a []arg) bool {
	if !allKnown(a) {
		return false
	}
	t := optionTable(styleGo, "-l\n-d\n-e\n-s\n-r=\n-w >write\n-cpuprofile= >write\n-comments")
	cl := t.parseLine(vals(a[1:]))
	var e effects
	if cl.unknown != "" {
		e.not("gofmt: flag %s is not one agentls knows to be safe", cl.unknown)
	}
	inPlace := cl.has("-w")
	for _, o := range cl.opts {
		if o.def.eff == effWrite {
			e.not("gofmt %s writes files", o.name)
			e.write(o.val)
		}
	}
	for _, o := range cl.operands {
		e.read(o)
		if inPlace {
			e.write(o)
		}
	}
	c.record(r, e)
	return e.why == ""
}

// truthy reports whether an environment value turns an option on.
func truthy(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// pythonModule finds python [-opts] -m mod args… and returns args.
func pythonModule(a []arg, mod string) ([]arg, bool) {
	for i := 1; i < len(a); i++ {
		w := a[i].val
		switch {
		case w == "-m" && i+1 < len(a) && a[i+1].val == mod:
			return a[i+2:], true
		case w == "-m"+mod:
			return a[i+1:], true
		case w == "-c" || !strings.HasPrefix(w, "-"):
			return nil, false
		case w == "-X" || w == "-W":
			i++
		}
	}
	return nil, false
}

// pip blocks installs into the user's or the system's Python. Installs into
// a virtual environment are left to the permission prompt; outside one,
// modern pip refuses by itself (PEP 668) unless forced.
func (c *checker) pip(r *report, args []arg) {
	p := parseOpts(args, optSpec{longVal: []string{"proxy", "log", "retries", "timeout", "exists-action",
		"trusted-host", "cert", "client-cert", "cache-dir", "python"}})
	if len(p.operands) == 0 {
		return
	}
	switch p.operands[0].val {
	case "install", "uninstall":
	default:
		return
	}
	user := p.has("--user")
	if v, ok := c.setEnv("PIP_USER"); ok && truthy(v) {
		user = true
	}
	force := p.has("--break-system-packages")
	if v, ok := c.setEnv("PIP_BREAK_SYSTEM_PACKAGES"); ok && truthy(v) {
		force = true
	}
	switch {
	case user:
		r.block("%q is not allowed: it changes the user's Python outside the project", "pip "+p.operands[0].val+" --user")
	case force:
		r.block("%q is not allowed: it changes the system Python", "pip "+p.operands[0].val+" --break-system-packages")
	}
}

// blockRules applies the argument rules: global installs, system paths,
// kernel settings, signalling every process.
func (c *checker) blockRules(r *report, fam string, a []arg) {
	words := a[1:]
	first := func(p parsed) string {
		if len(p.operands) > 0 {
			return p.operands[0].val
		}
		return ""
	}
	switch fam {
	case "npm", "pnpm", "bun":
		p := parseOpts(words, optSpec{shortVal: "wC", longVal: []string{"location", "prefix", "workspace", "registry",
			"loglevel", "userconfig", "cache", "tag", "otp", "dir", "filter"}})
		global := p.has("-g", "--global")
		if v, ok := p.get("--location"); ok && v == "global" {
			global = true
		}
		if v, ok := c.setEnv("npm_config_global"); ok && truthy(v) && fam == "npm" {
			global = true
		}
		switch sub := first(p); sub {
		case "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall",
			"add", "uninstall", "un", "unlink", "remove", "rm", "r", "update", "up", "upgrade", "udpate",
			"link", "ln":
			if global {
				r.block("%q is not allowed: it changes globally installed packages", fam+" "+sub+" --global")
			}
		}
	case "yarn":
		p := parseOpts(words, optSpec{})
		if first(p) == "global" && len(p.operands) > 1 {
			switch sub := p.operands[1].val; sub {
			case "add", "remove", "upgrade", "upgrade-interactive":
				r.block("%q is not allowed: it changes globally installed packages", "yarn global "+sub)
			}
		}
	case "pip":
		c.pip(r, words)
	case "uv":
		p := parseOpts(words, optSpec{})
		switch {
		case first(p) == "pip" && p.has("--system", "--break-system-packages", "--user"):
			r.block("%q is not allowed: it changes the system Python", "uv pip --system")
		case first(p) == "tool" && len(p.operands) > 1 && (p.operands[1].val == "install" || p.operands[1].val == "upgrade"):
			r.block("%q is not allowed: it installs programs outside the project", "uv tool "+p.operands[1].val)
		}
	case "pipx", "cargo", "gem", "brew", "port":
		p := parseOpts(words, optSpec{})
		sub := first(p)
		bad := false
		switch fam {
		case "pipx":
			bad = slices.Contains([]string{"install", "install-all", "inject", "upgrade", "upgrade-all",
				"reinstall", "reinstall-all", "uninstall", "uninstall-all", "ensurepath"}, sub)
		case "cargo":
			bad = sub == "install" || sub == "uninstall"
		case "gem":
			bad = slices.Contains([]string{"install", "i", "update", "uninstall", "cleanup"}, sub)
		case "brew":
			bad = slices.Contains([]string{"install", "reinstall", "upgrade", "uninstall", "remove", "rm",
				"tap", "untap", "link", "unlink", "services"}, sub)
		case "port":
			bad = slices.Contains([]string{"install", "uninstall", "upgrade", "selfupdate", "activate"}, sub)
		}
		if bad {
			r.block("%q is not allowed: it installs or removes software outside the project", fam+" "+sub)
		}
	case "nix":
		p := parseOpts(words, optSpec{})
		if first(p) == "profile" {
			r.block("%q is not allowed: it changes installed software", "nix profile")
		}
	case "rm", "rmdir", "unlink", "chown", "chmod", "chgrp", "chattr", "chflags", "touch", "truncate",
		"shred", "mkdir", "tee", "mv", "setfacl", "mknod", "mkfifo", "cp", "ln", "install", "rsync", "dd",
		"tar", "gtar", "bsdtar", "unzip":
		c.fileTargets(r, fam, words)
	case "sysctl":
		for _, w := range words {
			if w.val == "-w" || w.val == "-p" || w.val == "--write" || w.val == "--load" || w.val == "--system" ||
				(!strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "=")) {
				r.block("%q is not allowed: it changes kernel settings", "sysctl")
				return
			}
		}
	case "kill", "pkill", "killall":
		c.killRules(r, fam, words)
	case "open", "xdg-open", "sensible-browser", "x-www-browser", "www-browser", "gio":
		for _, w := range words {
			if strings.Contains(w.val, "://") {
				r.block("%q is not allowed: it opens %s in a browser", fam, w.val)
				return
			}
		}
	}
}

// writeSpec gives the value-taking options of commands that modify files.
// Only options certain to take a value are listed: treating a value as an
// operand over-checks, treating an operand as a value would miss a target.
func writeSpec(fam string) optSpec {
	switch fam {
	case "chown", "chgrp":
		return optSpec{longVal: []string{"from", "reference"}}
	case "chmod":
		return optSpec{longVal: []string{"reference"}}
	case "chattr":
		return optSpec{shortVal: "vp"}
	case "touch":
		return optSpec{shortVal: "drt", longVal: []string{"date", "reference"}}
	case "truncate":
		return optSpec{shortVal: "sr", longVal: []string{"size", "reference"}}
	case "shred":
		return optSpec{shortVal: "ns", longVal: []string{"iterations", "size", "random-source"}}
	case "mkdir", "mknod", "mkfifo":
		return optSpec{shortVal: "m", longVal: []string{"mode"}}
	case "mv", "cp", "ln":
		return optSpec{shortVal: "tS", longVal: []string{"target-directory", "suffix"}}
	case "install":
		return optSpec{shortVal: "gmotS", longVal: []string{"group", "mode", "owner", "target-directory", "suffix", "strip-program"}}
	case "setfacl":
		return optSpec{shortVal: "mMxX", longVal: []string{"modify", "modify-file", "remove", "remove-file", "set", "set-file"}}
	case "rsync":
		return optSpec{shortVal: "eBfTM", longVal: []string{"rsh", "rsync-path", "exclude", "include", "filter",
			"exclude-from", "include-from", "files-from", "backup-dir", "partial-dir", "temp-dir", "chown",
			"chmod", "log-file", "password-file", "port", "sockopts", "address", "compare-dest", "copy-dest",
			"link-dest", "info", "debug", "block-size", "remote-option", "max-size", "min-size", "timeout"}}
	}
	return optSpec{} // rm, rmdir, unlink, tee, chflags: no option takes a separate value
}

// checkWrites blocks a modifying command whose targets are system paths or
// the home directory itself.
func (c *checker) checkWrites(r *report, fam string, targets []arg) {
	for _, t := range targets {
		if !t.lit || t.val == "" {
			continue
		}
		if why := c.writeWhy(t.val, t.glob, t.tilde); why != "" {
			r.block("%q on %s is not allowed: %s", fam, t.val, why)
			return
		}
	}
}

// killRules blocks signalling every process (kill -1) and this server.
func (c *checker) killRules(r *report, fam string, words []arg) {
	if fam != "kill" {
		for i, w := range words {
			if (w.val == "-P" || w.val == "--parent") && i+1 < len(words) && c.selfPID > 0 &&
				words[i+1].val == strconv.Itoa(c.selfPID) {
				r.block("%q is not allowed: it would signal this server's commands", fam)
			}
		}
		return
	}
	i := 0
	if i < len(words) && strings.HasPrefix(words[i].val, "-") && words[i].val != "--" {
		switch words[i].val {
		case "-s", "-n":
			i += 2
		case "-l", "-L":
			return
		default:
			i++
		}
	}
	for ; i < len(words); i++ {
		w := words[i].val
		if w == "--" {
			continue
		}
		if w == "-1" {
			r.block("%q is not allowed: it signals every process", "kill -1")
			return
		}
		if c.selfPID > 0 && (w == strconv.Itoa(c.selfPID) || w == "-"+strconv.Itoa(c.selfPID)) {
			r.block("%q is not allowed: it would signal this server", "kill "+w)
			return
		}
	}
}

// goListCheck: -mod=mod lets go list change go.mod and go.sum.
func goListCheck(cl cmdLine, e *effects) {
	if v, ok := cl.value("-mod"); ok && v != "readonly" && v != "vendor" {
		e.not("go list -mod=%s may change go.mod", v)
	}
}
