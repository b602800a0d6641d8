// Package shell runs the agent's shell commands and decides, before they
// run, how much to trust them.
//
// Judge reads a command with a real shell parser (never substring matching)
// and says whether it may run without asking (ReadOnly), whether it must
// never run (Blocked), what "allow for this session" would remember
// (Fingerprint) and which outbound destinations it names. Run executes a
// command with an in-process POSIX interpreter whose single exec-handler
// chain re-applies the same block rules to every argv the interpreter
// actually executes, so what the static judge cannot see (variables,
// command substitution, eval) is still caught at run time. Jobs keeps
// long-running commands in the background with bounded output.
//
// The block list is a backstop against well-known ways out of the sandbox
// (network clients, privilege, package managers, system changes), not a
// sandbox: any interpreter can run any program. The permission prompt is
// the real gate; the judge's job is to make the prompt rarer for harmless
// commands and never skip it for harmful ones.
package shell

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools/confine"
)

// Verdict is the judge's opinion of a whole command line.
type Verdict struct {
	// ReadOnly: every command runs a trusted program (an interpreter
	// builtin, or a bare name found through PATH outside the workspace)
	// with options all on its allow-list, so the command may run without
	// asking once the caller has checked Reads.
	ReadOnly bool
	// NotReadOnly is the first reason the command is not read-only, for
	// explanations ("" when ReadOnly, and for plain non-read-only
	// programs such as make).
	NotReadOnly string
	// Blocked, when not empty, is why the command must never run; it names
	// the offending command.
	Blocked string
	// Fingerprint is what "allow for this session" remembers: the program
	// plus its subcommand ("go test", "git commit"). Empty means the
	// command cannot be granted, and NoGrant says why.
	Fingerprint string
	// NoGrant is why no grant is offered ("" when Fingerprint is set).
	NoGrant string
	// Destinations are the outbound hosts, URLs and git remotes the command
	// names, for an egress check. A git push/pull/fetch without an explicit
	// remote is reported as DefaultGitRemote.
	Destinations []string
	// Egress are the ways the command sends data off the machine (a push,
	// an upload, a publish, a connection), for the gate's egress check.
	Egress []permission.Egress
	// Reads, Writes and Deletes are the files and folders the command
	// reads, writes and deletes (or moves away), as far as its words tell:
	// absolute, after expanding globs, ~ and variables as the interpreter
	// will, with any ".." kept so that confine.Resolve applies it after the
	// links it follows. Writes and Deletes are not complete (a program may
	// write anything); the runner re-checks every command it executes.
	Reads, Writes, Deletes []string
	// Unplaced is set when a path could not be computed (a relative path
	// after a cd to an unknown folder): such a command is not read-only.
	Unplaced bool
	// Commands are the argvs found, for display; words whose value is only
	// known at run time are shown as written.
	Commands [][]string
}

// DefaultGitRemote stands for the remote git would pick when none is named.
const DefaultGitRemote = "git:default-remote"

// JudgeOptions gives the judge what it cannot know from the text alone.
type JudgeOptions struct {
	// Dir is the directory the command will run in (absolute). Without it
	// no program can be resolved, nothing expands and nothing is
	// read-only.
	Dir string
	// Home is the user's home directory; rm/chmod/chown/mv of the home
	// directory itself are blocked. "~" is always treated as home.
	Home string
	// Roots are the workspace roots: a program found inside one is not a
	// trusted system program, and paths are judged against them.
	Roots []string
	// Env is the environment the command will get (PATH for resolving
	// programs, HOME and other variables for expansion); nil means the
	// server's own environment, as Run uses.
	Env []string
	// Git runs git to read repositories' configuration (confined, as the
	// bash tool runs it); nil runs git from PATH directly.
	Git GitRunner
}

// Judge judges command with no knowledge of where it will run. A command
// that does not parse is an error: the caller should ask or deny. Without
// a working folder no program can be resolved, so nothing but builtins
// is read-only: callers that honour ReadOnly use JudgeWith.
func Judge(command string) (Verdict, error) {
	return JudgeWith(command, JudgeOptions{})
}

// JudgeWith is Judge with the working directory, roots and environment
// known.
func JudgeWith(command string, o JudgeOptions) (Verdict, error) {
	f, err := parse(command)
	if err != nil {
		return Verdict{}, fmt.Errorf("shell: parse command: %w", err)
	}
	c := newChecker(o)
	fresh := *c // the grant is judged from the start again (file follows cd)
	c.vars = assignedVars(f)
	r := &report{}
	ro := c.file(r, f)
	v := Verdict{
		Blocked:      r.blocked,
		ReadOnly:     ro && r.blocked == "" && !r.unplaced,
		NotReadOnly:  r.why,
		Destinations: r.dests,
		Egress:       r.sends,
		Reads:        r.reads,
		Writes:       r.writes,
		Deletes:      r.deletes,
		Unplaced:     r.unplaced,
		Commands:     r.cmds,
	}
	if v.ReadOnly {
		v.NotReadOnly = ""
	}
	if r.blocked == "" {
		v.Fingerprint, v.NoGrant = fresh.grant(f)
	} else {
		v.NoGrant = "the command is blocked"
	}
	return v, nil
}

// newChecker builds the static judge for options o.
func newChecker(o JudgeOptions) *checker {
	env := o.Env
	if env == nil {
		env = sandbox.FilterEnv(os.Environ(), nil)
	}
	list := buildEnv(Options{Env: env})
	base := make(map[string]string, len(list))
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		base[k] = v
	}
	if o.Home != "" {
		base["HOME"] = o.Home
	}
	c := &checker{mode: modeInterp, root: o.Dir, dir: o.Dir, home: o.Home, seen: new(int),
		roots: confine.Roots(o.Roots), base: base, runGit: o.Git}
	if o.Dir != "" {
		c.lookPath = envLookPath(expand.ListEnviron(list...))
	}
	return c
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// mode says who will run the code being judged, which decides what to do
// with words whose value is unknown now.
type mode uint8

const (
	// modeInterp: our interpreter runs it, and its exec guard will see every
	// expanded argv later, so unknown words only cost read-only status.
	modeInterp mode = iota
	// modeExternal: another program runs it (the script of sh -c, a script
	// on a shell's stdin): what cannot be checked now is never checked, so
	// unknown command names are blocked.
	modeExternal
	// modeFile: a script file run by another shell. Literal blocked names
	// are refused; computed names are let through (best effort; scripts
	// legitimately run "$@" or $CC).
	modeFile
)

// maxDepth bounds nested shells (sh -c "sh -c '…'"), eval and trap code.
const maxDepth = 4

// maxScript bounds the script text (stdin scripts, script files) the guard
// reads to judge.
const maxScript = 1 << 20

// checker judges commands in one context. It is copied, never shared.
type checker struct {
	mode     mode
	depth    int
	root     string                       // working directory of the whole run ("" unknown)
	dir      string                       // current directory ("" unknown)
	home     string                       // home directory ("" unknown)
	getenv   func(string) (string, bool)  // environment the command sees (nil: unknown)
	readFile func(string) ([]byte, error) // reads scripts (nil: static, cannot read)
	selfPID  int                          // this server's pid (0 unknown)
	subst    string                       // text a tool replaces at run time (xargs -I, find {})
	appends  bool                         // the tool appends unknown words (xargs)
	overlay  map[string]string            // assignments in front of the command
	// inherited is the environment the run started with: env-based rules
	// (GOFLAGS, BASH_ENV, PIP_USER) only refuse values the command sets,
	// not the user's own settings.
	inherited map[string]string
	seen      *int // nested scripts judged so far, shared across copies
	// roots are the workspace roots, resolved (nil: unknown).
	roots []string
	// lookPath resolves bare program names (nil: they cannot be resolved).
	lookPath lookPathFunc
	// base is the environment words expand with (nil: no static expansion).
	base map[string]string
	// vars are the variables the script may set itself.
	vars *scriptVars
	// git runs git to read a repository's configuration (nil: git from
	// PATH, run directly).
	runGit GitRunner
	// pipedFrom maps a command to the one piping into it (shared by the
	// copies of one judgement); from is that command for the command
	// being judged (xargs reads its names from it).
	pipedFrom map[*syntax.CallExpr]syntax.Command
	from      syntax.Command
}

// env looks a variable up: prefix assignments first, then the real
// environment when known.
func (c *checker) env(name string) (string, bool) {
	if v, ok := c.overlay[name]; ok {
		return v, true
	}
	if c.getenv != nil {
		return c.getenv(name)
	}
	return "", false
}

// setEnv returns a variable's value when the command line itself set it
// (or changed it from what the run inherited).
func (c *checker) setEnv(name string) (string, bool) {
	v, ok := c.env(name)
	if !ok || v == "" {
		return "", false
	}
	if base, had := c.inherited[name]; had && base == v {
		return "", false
	}
	return v, true
}

func (c *checker) withEnv(kv map[string]string) *checker {
	if len(kv) == 0 {
		return c
	}
	cc := *c
	cc.overlay = make(map[string]string, len(c.overlay)+len(kv))
	for k, v := range c.overlay {
		cc.overlay[k] = v
	}
	for k, v := range kv {
		cc.overlay[k] = v
	}
	return &cc
}

// report collects findings over a whole command line.
type report struct {
	blocked   string
	why       string // first reason something is not read-only
	reads     []string
	writes    []string
	deletes   []string
	unplaced  bool
	dests     []string
	sends     []permission.Egress
	cmds      [][]string
	needStdin bool // a shell will read its script from stdin (runtime must look)
	ro        bool // the run-time guard's verdict on one argv
}

func (r *report) block(format string, a ...any) {
	if r.blocked == "" {
		r.blocked = fmt.Sprintf(format, a...)
	}
}

// note records why the command is not read-only (the first reason wins).
func (r *report) note(why string) {
	if r.why == "" {
		r.why = why
	}
}

func (r *report) dest(d string) {
	if d != "" && !slices.Contains(r.dests, d) {
		r.dests = append(r.dests, d)
	}
}

// place makes p absolute against the checker's folder without cleaning it
// (".." must apply after links); ok is false when the folder is unknown.
func (c *checker) place(p string) (string, bool) {
	if strings.HasPrefix(p, "~") || p == "" {
		return "", false // unexpanded: the judge cannot know it
	}
	if filepath.IsAbs(p) {
		return p, true
	}
	if c.dir == "" {
		return "", false
	}
	return c.dir + string(filepath.Separator) + p, true
}

// addPath records one path in list, or marks the report unplaced.
func (c *checker) addPath(r *report, list *[]string, p string) {
	abs, ok := c.place(p)
	if !ok {
		r.unplaced = true
		return
	}
	if !slices.Contains(*list, abs) {
		*list = append(*list, abs)
	}
}

// record copies a command's effects into the report.
func (c *checker) record(r *report, e effects) {
	for _, p := range e.reads {
		c.addPath(r, &r.reads, p)
	}
	for _, p := range e.writes {
		c.addPath(r, &r.writes, p)
	}
	for _, p := range e.deletes {
		c.addPath(r, &r.deletes, p)
	}
	for _, p := range e.walks {
		c.linksOut(r, p)
	}
	if e.why != "" {
		r.note(e.why)
	}
}

// path records a file a command reads.
func (r *report) path(c *checker, p string) { c.addPath(r, &r.reads, p) }

// file judges every node of a parsed script and reports whether all of it
// is read-only.
func (c *checker) file(r *report, f *syntax.File) bool {
	ro := true
	stmtOf := map[syntax.Command]*syntax.Stmt{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			stmtOf[n.Cmd] = n
			if n.Background || n.Coprocess {
				ro = false
			}
			for _, rd := range n.Redirs {
				if !c.redirect(r, rd) {
					ro = false
				}
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe {
				if ce, ok := n.Y.Cmd.(*syntax.CallExpr); ok {
					if c.pipedFrom == nil {
						c.pipedFrom = map[*syntax.CallExpr]syntax.Command{}
					}
					c.pipedFrom[ce] = n.X.Cmd
				}
			}
		case *syntax.CallExpr:
			if !c.call(r, n, stmtOf[n]) {
				ro = false
			}
		case *syntax.DeclClause:
			ro = false
			for _, as := range n.Args {
				c.assign(r, as)
			}
		case *syntax.TimeClause, *syntax.CoprocClause, *syntax.LetClause:
			ro = false
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok {
				if !harmlessVar(wi.Name.Value) {
					ro = false
				}
				// The list's globs read folders: for f in ../outside/*.
				c.expandArgs(wi.Items, r)
			}
		case *syntax.UnaryTest:
			// [[ -e ~/.ssh/id_rsa ]] probes a file.
			if w, ok := n.X.(*syntax.Word); ok && fileTest(n.Op.String()) {
				c.probe(r, w)
			}
		case *syntax.BinaryArithm:
			if arithAssign(n.Op) {
				ro = false
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				ro = false
			}
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull ||
				n.Exp.Op == syntax.OtherParamOps) {
				ro = false // ${x:=v} assigns; ${x@P} runs prompt expansion
			}
		case *syntax.FuncDecl:
			// The body is walked like any other code; calls to the function
			// are judged by its name, which only ever makes them stricter.
		}
		return true
	})
	return ro
}

// arithAssign reports whether an arithmetic operator assigns a variable.
func arithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
		syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// harmlessVar reports whether assigning a loop variable cannot change how
// later commands run: lower-case, and not a proxy setting.
func harmlessVar(name string) bool {
	if strings.ToLower(name) != name || strings.HasSuffix(name, "_proxy") {
		return false
	}
	return true
}

// assign checks an assignment whose value would make an allowed command run
// arbitrary programs (GOFLAGS=-toolexec=…), wherever it appears.
func (c *checker) assign(r *report, as *syntax.Assign) {
	if as.Name == nil || as.Value == nil {
		return
	}
	a := wordArg(as.Value)
	if !a.lit {
		return
	}
	if why := envWhy(as.Name.Value, a.val); why != "" {
		r.block("assignment %s=… is not allowed: %s", as.Name.Value, why)
	}
}

// envWhy says why setting name=val is refused, or "".
func envWhy(name, val string) string {
	if name == "GOFLAGS" && goExecFlag(strings.Fields(val)) != "" {
		return "it makes go run an arbitrary program"
	}
	return ""
}

// call judges one simple command.
func (c *checker) call(r *report, ce *syntax.CallExpr, st *syntax.Stmt) bool {
	ro := len(ce.Assigns) == 0
	var kv map[string]string
	for _, as := range ce.Assigns {
		c.assign(r, as)
		if as.Name != nil && as.Value != nil && len(ce.Args) > 0 {
			if a := wordArg(as.Value); a.lit {
				if kv == nil {
					kv = map[string]string{}
				}
				kv[as.Name.Value] = a.val
			}
		}
	}
	if len(ce.Args) == 0 {
		return false
	}
	args, expanded := c.expandArgs(ce.Args, r)
	if !expanded {
		args = nil
		for _, w := range ce.Args {
			args = append(args, wordArgs(w)...)
		}
	}
	if len(args) == 0 {
		return ro // every word expanded to nothing: the interpreter runs nothing
	}
	r.cmds = append(r.cmds, vals(args))
	cc := c.withEnv(kv) // c itself without assignments: cd changes its folder
	prev := cc.from
	cc.from = c.pipedFrom[ce] // this command's alone
	if !cc.argv(r, args, stdinScript(st)) {
		ro = false
	}
	cc.from = prev
	return ro
}

// stdinScript returns the fixed text a statement feeds to its command's
// standard input through a here-document or here-string, if any.
func stdinScript(st *syntax.Stmt) *string {
	if st == nil {
		return nil
	}
	var in *string
	for _, rd := range st.Redirs {
		if rd.N != nil && rd.N.Value != "0" {
			continue
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if s, ok := hdocText(rd.Hdoc); ok {
				in = &s
			} else {
				in = nil
			}
		case syntax.WordHdoc:
			if a := wordArg(rd.Word); a.lit {
				s := a.val + "\n"
				in = &s
			} else {
				in = nil
			}
		case syntax.RdrIn, syntax.DplIn, syntax.RdrInOut:
			in = nil
		}
	}
	return in
}

// redirect judges one redirection; false means not read-only (and not
// grantable).
func (c *checker) redirect(r *report, rd *syntax.Redirect) bool {
	if rd.N != nil && !allDigits(rd.N.Value) {
		return false // {var}>file assigns a variable
	}
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	}
	t := wordArg(rd.Word)
	if fields, ok := c.expandArgs([]*syntax.Word{rd.Word}, r); ok && len(fields) == 1 {
		t = fields[0] // ~, $HOME and a glob with one match, as the interpreter opens it
	}
	switch rd.Op {
	case syntax.DplIn, syntax.DplOut:
		if t.lit && (allDigits(t.val) || t.val == "-") {
			return true
		}
		if rd.Op == syntax.DplIn {
			return false
		}
	case syntax.RdrIn:
		if t.known() {
			r.path(c, t.val)
			return true
		}
		return false
	}
	// Everything else writes to (or opens for writing) a file.
	if !t.lit {
		return false
	}
	if t.val == "/dev/null" || t.val == "/dev/stdout" || t.val == "/dev/stderr" {
		return true
	}
	if why := c.writeWhy(t.val, t.glob, t.tilde); why != "" {
		r.block("redirection to %s is not allowed: %s", t.val, why)
	}
	if t.known() {
		c.addPath(r, &r.writes, t.val)
	}
	r.note("a redirection writes " + t.val)
	return false
}

// writeWhy says why writing to p is refused: a system path, or the home
// directory itself.
func (c *checker) writeWhy(p string, glob, tilde bool) string {
	if tilde {
		if p == "~" || p == "~/" {
			return "it is the home directory"
		}
		return ""
	}
	if glob {
		// Judge the directory the pattern starts in: /u* may match /usr.
		i := strings.IndexAny(p, "*?[")
		p = p[:i]
		if j := strings.LastIndex(p, "/"); j >= 0 {
			p = p[:j+1]
		} else {
			p = "."
		}
		if strings.HasPrefix(p, "/") && (p == "/" || systemPath(path.Clean(p))) {
			return "it may match system paths"
		}
	}
	abs, ok := cleanAbs(c.dir, p)
	if !ok {
		return ""
	}
	if c.home != "" && abs == path.Clean(c.home) {
		return "it is the home directory"
	}
	if c.root != "" && c.root != "/" && within(abs, path.Clean(filepath.ToSlash(c.root))) {
		return "" // the project, even when it lives under /usr or /opt
	}
	if systemPath(abs) {
		return "it is a system path"
	}
	return ""
}

// script judges shell code carried inside another command (sh -c, eval,
// trap, a script file, a script on stdin) one level deeper.
func (c *checker) script(r *report, src, what string, m mode) bool {
	if c.depth >= maxDepth {
		r.block("%s is nested too deeply to check", what)
		return false
	}
	if c.seen != nil {
		if *c.seen >= 64 {
			r.block("%s: too many nested scripts to check", what)
			return false
		}
		*c.seen++
	}
	if c.subst != "" && strings.Contains(src, c.subst) {
		r.block("%s would have %q replaced by run-time input; pass it as an argument instead", what, c.subst)
		return false
	}
	f, err := parse(src)
	if err != nil {
		if m == modeInterp {
			return false // our interpreter will fail on it the same way
		}
		r.block("%s cannot be parsed, so it cannot be checked: %v", what, err)
		return false
	}
	cc := *c
	cc.mode, cc.depth, cc.subst, cc.appends, cc.overlay = m, c.depth+1, "", false, nil
	// Another shell runs this code: its words expand as ours do for what
	// the judge relies on (~, variables, globs), and what it deletes or
	// writes is judged on those targets, since the guard never sees its
	// argvs. Nothing in it is ever read-only.
	cc.vars = assignedVars(f)
	return cc.file(r, f)
}
