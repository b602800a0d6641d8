package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools/confine"
)

// Defaults for Options.
const (
	DefaultKillGrace = 2 * time.Second // between SIGINT and SIGKILL
	DefaultMaxOutput = 8 << 20         // bytes kept per stream by Run
)

// Options configures one command run. The zero value is not usable: Dir
// is required so a command never runs in the server's own directory by
// accident.
type Options struct {
	// Dir is the working directory (absolute, must exist).
	Dir string
	// Env is the base environment, which the interpreter's own expansions
	// see too; nil means os.Environ() through the sandbox's allow-list.
	// Secrets are removed from it and non-interactive settings forced on.
	Env []string
	// Start starts each program the interpreter runs (a sandbox's Start,
	// which confines it); nil means exec.Cmd.Start.
	Start func(*exec.Cmd) error
	// Git runs git when the run-time judge reads a repository's
	// configuration (confined, as the bash tool runs it); nil runs git
	// from PATH directly.
	Git GitRunner
	// Done, when set, is called once the command has ended, in the
	// foreground or as a background job (what it holds for its programs,
	// such as a proxy token, can then go).
	Done func()
	// Secrets are extra variable names to remove (case-insensitive), on top
	// of every AGENTLS_* variable and every *_API_KEY (which covers
	// OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY, GEMINI_API_KEY).
	Secrets []string
	// Unrestricted skips the block list. For hooks: the person wrote them.
	Unrestricted bool
	// KillGrace is how long a cancelled command gets between SIGINT and
	// SIGKILL of its process group; 0 means DefaultKillGrace.
	KillGrace time.Duration
	// MaxOutput caps the bytes Run keeps per stream (head and tail are
	// kept); 0 means DefaultMaxOutput.
	MaxOutput int
	// Roots are the workspace roots. Every file the command's programs are
	// seen to write, delete or redirect into must lie inside one of them;
	// nil means Dir alone.
	Roots []string
	// ReadOnly: the command was allowed without asking because the judge
	// found it read-only. Every program it runs is judged again with its
	// real arguments and must be read-only too, reading only inside the
	// roots; redirections may not write.
	ReadOnly bool
	// Stdin is the command's standard input; nil means empty. A reader
	// other than an *os.File is read until EOF or until the command ends,
	// and never after Run returns (so a Read that blocks delays the
	// return). Hooks receive their JSON payload this way.
	Stdin io.Reader
}

// Result is what a finished command produced.
type Result struct {
	Stdout, Stderr string
	// ExitCode is the shell's exit status; 130 when interrupted.
	ExitCode int
	// Interrupted: the context ended before the command did.
	Interrupted bool
	// StdoutDropped and StderrDropped count bytes cut from the middle of
	// each stream by MaxOutput (the text marks the gap too).
	StdoutDropped, StderrDropped int64
}

// Run executes command to completion with the in-process interpreter (never
// /bin/sh): a fresh interpreter per call, Options.Stdin (default empty),
// scrubbed environment, every external program in its own process group.
// Cancelling ctx sends SIGINT to running programs' groups, then SIGKILL
// after KillGrace; Run returns the partial result with Interrupted set and
// a nil error. A parse error or an interpreter failure is an error.
func Run(ctx context.Context, command string, o Options) (Result, error) {
	limit := o.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	out, errw := newCapture(limit), newCapture(limit)
	code, interrupted, err := execute(ctx, command, o, out, errw)
	res := Result{
		Stdout: out.String(), Stderr: errw.String(),
		ExitCode: code, Interrupted: interrupted,
		StdoutDropped: out.dropped(), StderrDropped: errw.dropped(),
	}
	return res, err
}

// RunTo executes command as Run does, writing its output to stdout and
// stderr as it comes instead of keeping it: for a command that runs where
// a person watches it (an editor's terminal, through `agentls exec`).
func RunTo(ctx context.Context, command string, o Options, stdout, stderr io.Writer) (exitCode int, interrupted bool, err error) {
	return execute(ctx, command, o, stdout, stderr)
}

// session is the configuration shared by every interpreter of one run
// (including scripts run in-process); it is not changed after creation.
type session struct {
	opts      Options
	grace     time.Duration
	pid       int
	env       []string          // the scrubbed base environment
	inherited map[string]string // env as a map, for the checker
	roots     []string          // resolved workspace roots
}

type stdinKey struct{}

type scriptDepthKey struct{}

// maxScriptDepth bounds scripts that run scripts in-process.
const maxScriptDepth = 16

// execute runs command writing to stdout and stderr, returning the exit
// code and whether ctx ended first.
func execute(ctx context.Context, command string, o Options, stdout, stderr io.Writer) (code int, interrupted bool, err error) {
	if o.Done != nil {
		defer o.Done()
	}
	if o.Dir == "" {
		return 1, false, errors.New("shell: Options.Dir is required")
	}
	if !filepath.IsAbs(o.Dir) {
		return 1, false, fmt.Errorf("shell: Options.Dir %q is not absolute", o.Dir)
	}
	file, err := parse(command)
	if err != nil {
		return 2, false, fmt.Errorf("shell: parse command: %w", err)
	}
	s := &session{opts: o, grace: o.KillGrace, pid: os.Getpid(), env: buildEnv(o), inherited: map[string]string{}}
	roots := o.Roots
	if len(roots) == 0 {
		roots = []string{o.Dir}
	}
	s.roots = confine.Roots(roots)
	if s.grace <= 0 {
		s.grace = DefaultKillGrace
	}
	for _, kv := range s.env {
		k, v, _ := strings.Cut(kv, "=")
		s.inherited[k] = v
	}
	// Background (&) parts of the script must not outlive it.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			code, err = 1, fmt.Errorf("shell: interpreter panic: %v\n%s", p, debug.Stack())
		}
	}()
	var stdin io.Reader // a nil *os.File here would not be a nil io.Reader
	if o.Stdin != nil {
		f, stop, err := stdinPipe(o.Stdin)
		if err != nil {
			return 1, false, fmt.Errorf("shell: stdin pipe: %w", err)
		}
		defer stop()
		stdin = f
	}
	r, err := s.runner(expand.ListEnviron(s.env...), o.Dir, stdin, stdout, stderr)
	if err != nil {
		return 1, false, fmt.Errorf("shell: start interpreter: %w", err)
	}
	return exitOf(ctx, r.Run(runCtx, file))
}

// stdinPipe gives the command a pipe fed from r, since only a file can be
// inherited by programs. The interpreter would make one itself, but its copy
// goroutine blocks forever once nobody reads: stop closes both ends, which
// ends the copy even when a program never read its input, and waits for it
// so r is never read after Run returns.
func stdinPipe(r io.Reader) (*os.File, func(), error) {
	if f, ok := r.(*os.File); ok {
		return f, func() {}, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(pw, r)
		pw.Close()
	}()
	return pr, func() {
		pr.Close()
		// Unblocks a write stuck because a program that left its group
		// still holds the read end.
		pw.Close()
		<-copied
	}, nil
}

// exitOf maps an interpreter error to an exit code.
func exitOf(ctx context.Context, err error) (int, bool, error) {
	if ctx.Err() != nil {
		return 130, true, nil
	}
	if err == nil {
		return 0, false, nil
	}
	if st, ok := interp.IsExitStatus(err); ok {
		return int(st), false, nil
	}
	return 1, false, fmt.Errorf("shell: run: %w", err)
}

// runner builds an interpreter with the session's handlers.
func (s *session) runner(env expand.Environ, dir string, stdin io.Reader, stdout, stderr io.Writer) (*interp.Runner, error) {
	opts := []interp.RunnerOption{
		interp.Dir(dir),
		interp.Env(env),
		interp.StdIO(stdin, stdout, stderr),
		interp.CallHandler(s.call),
		interp.OpenHandler(s.open),
	}
	if s.opts.Unrestricted {
		opts = append(opts, interp.ExecHandlers(s.exec))
	} else {
		opts = append(opts, interp.ExecHandlers(s.guard, s.exec))
	}
	return interp.New(opts...)
}

// call routes kill, which the interpreter lists as a builtin but does not
// implement, to the kill program, so it reaches the exec guard.
func (s *session) call(ctx context.Context, args []string) ([]string, error) {
	if args[0] == "kill" {
		hc := interp.HandlerCtx(ctx)
		if p, err := interp.LookPathDir(hc.Dir, hc.Env, "kill"); err == nil {
			args = append([]string{p}, args[1:]...)
		}
	}
	return args, nil
}

// open refuses writes to system paths and outside the workspace roots,
// which a redirection could otherwise do without any program reaching the
// exec guard; in a read-only run it refuses every write and every read
// outside the roots.
func (s *session) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if !s.opts.Unrestricted && !deviceFile(path) {
		hc := interp.HandlerCtx(ctx)
		writes := flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0
		why := ""
		switch {
		case writes && s.opts.ReadOnly:
			why = "this command was run without asking as read-only, so it may not write " + path
		case writes:
			if w := s.checker(hc).writeWhy(path, false, false); w != "" {
				why = w
			} else if !confine.Inside(s.roots, hc.Dir, path) {
				why = path + " is outside the workspace; agentls writes only inside the workspace folders"
			}
		case s.opts.ReadOnly && !confine.Inside(s.roots, hc.Dir, path):
			why = "this command was run without asking as read-only, so it may not read " + path + " outside the workspace"
		}
		if why != "" {
			// A PathError makes the interpreter print it and fail the
			// command with status 1, like any failed redirection.
			return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("agentls: blocked: %s", why)}
		}
	}
	return interp.DefaultOpenHandler()(ctx, path, flag, perm)
}

// deviceFile reports the special files a redirection may always use.
func deviceFile(p string) bool {
	switch p {
	case os.DevNull, "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// checker builds the run-time judge for the interpreter's current state.
func (s *session) checker(hc interp.HandlerContext) *checker {
	env := hc.Env
	return &checker{
		mode: modeInterp,
		root: s.opts.Dir,
		dir:  hc.Dir,
		home: env.Get("HOME").String(),
		getenv: func(name string) (string, bool) {
			v := env.Get(name)
			return v.String(), v.IsSet() && v.Exported
		},
		readFile:  readScript,
		selfPID:   s.pid,
		seen:      new(int),
		inherited: s.inherited,
		roots:     s.roots,
		lookPath:  envLookPath(env),
		base:      exported(env),
		runGit:    s.opts.Git,
	}
}

// exported lists the exported variables of the interpreter's environment,
// which nested scripts' words expand with.
func exported(env expand.Environ) map[string]string {
	m := map[string]string{}
	for name, vr := range env.Each {
		if vr.Exported && vr.IsSet() && vr.Kind == expand.String {
			m[name] = vr.String()
		}
	}
	return m
}

// readScript reads at most maxScript+1 bytes of a script to judge it.
func readScript(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	return io.ReadAll(io.LimitReader(f, maxScript+1))
}

// guard is the block list: it sees the expanded argv of every program the
// interpreter is about to execute — in pipes, subshells, substitutions,
// functions, eval, exec, command, sourced files and in-process scripts —
// and refuses blocked ones with status 1 and a message on stderr, so the
// rest of the script behaves as the shell would after a failed command.
func (s *session) guard(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		hc := interp.HandlerCtx(ctx)
		c := s.checker(hc)
		argv := lits(args)
		r := &report{}
		r.ro = c.argv(r, argv, nil)
		if r.blocked == "" {
			// Judge what the kernel will really run for a #! script too.
			if sb := shebangArgv(hc.Dir, argv); len(sb) != len(argv) {
				argv = sb
				r.ro = c.argv(r, argv, nil) && r.ro
			}
		}
		if r.blocked == "" {
			// A symlink under another name still runs its target.
			if p, err := interp.LookPathDir(hc.Dir, hc.Env, args[0]); err == nil {
				if real, err := filepath.EvalSymlinks(p); err == nil {
					if n := cmdName(real); n != cmdName(args[0]) {
						if why := bannedWhy(family(n)); why != "" {
							r.block("%q (a link to %s) is not allowed: %s", cmdName(args[0]), real, why)
						}
					}
				}
			}
		}
		if r.blocked == "" && r.needStdin {
			// A shell reading its script from stdin: read the script, judge
			// it, and hand the same bytes to the shell.
			var data []byte
			if hc.Stdin != nil {
				var err error
				data, err = io.ReadAll(io.LimitReader(hc.Stdin, maxScript+1))
				if err != nil {
					return fmt.Errorf("shell: read script on stdin: %w", err)
				}
			}
			r = &report{}
			if len(data) > maxScript {
				r.block("%q reads a script from standard input too large to check", cmdName(args[0]))
			} else {
				text := string(data)
				r.ro = c.argv(r, argv, &text)
			}
			ctx = context.WithValue(ctx, stdinKey{}, data)
		}
		if r.blocked == "" {
			s.confine(r, c, argv, hc.Env.Get("HOME").String())
		}
		if r.blocked != "" {
			fmt.Fprintf(hc.Stderr, "agentls: blocked: %s\n", r.blocked)
			return interp.ExitStatus(1)
		}
		return next(withExtraEnv(ctx, s.readOnlyEnv(argv, r)), readOnlyArgs(argv, r, args))
	}
}

// shebangArgv rewrites a path-named script into the argv the kernel would
// run for its #! line, so "./x" with "#!/usr/bin/curl" or a shell script is
// judged like "curl ./x" or "sh ./x". Programs found on PATH are left
// alone: their scripts belong to the system, not the agent.
func shebangArgv(dir string, a []arg) []arg {
	if !strings.ContainsAny(a[0].val, `/\`) {
		return a
	}
	p, _ := cleanAbs(dir, a[0].val)
	f, err := os.Open(p)
	if err != nil {
		return a
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	line, _, _ := bytes.Cut(head[:n], []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return a
	}
	fields := strings.Fields(string(rest))
	if len(fields) == 0 {
		return a
	}
	// Linux passes everything after the interpreter as one argument.
	out := lits(fields[:1])
	if len(fields) > 1 {
		out = append(out, arg{val: strings.Join(fields[1:], " "), lit: true})
		if cmdName(fields[0]) == "env" {
			out = append(lits(fields[:1]), lits(fields[1:])...)
		}
	}
	out = append(out, arg{val: p, lit: true})
	return append(out, a[1:]...)
}

// exec runs a program in its own process group. It never calls next: the
// default handler would not isolate the group.
func (s *session) exec(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		hc := interp.HandlerCtx(ctx)
		path, err := interp.LookPathDir(hc.Dir, hc.Env, args[0])
		if err != nil {
			fmt.Fprintf(hc.Stderr, "%s: command not found\n", args[0])
			return interp.ExitStatus(127)
		}
		var stdin io.Reader
		if hc.Stdin != nil {
			stdin = hc.Stdin
		}
		if data, ok := ctx.Value(stdinKey{}).([]byte); ok {
			stdin = bytes.NewReader(data)
		}
		env := execEnv(hc.Env)
		if extra, ok := ctx.Value(extraEnvKey{}).([]string); ok {
			env = append(env, extra...)
		}
		code, err := runProcess(ctx, proc{
			path: path, args: args, env: env, dir: hc.Dir,
			stdin: stdin, stdout: hc.Stdout, stderr: hc.Stderr, start: s.opts.Start,
		}, s.grace)
		switch {
		case errors.Is(err, errNoExec):
			return s.script(ctx, hc, path, args)
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			fmt.Fprintf(hc.Stderr, "%s: %v\n", args[0], err)
			return interp.ExitStatus(126)
		case code != 0:
			return interp.ExitStatus(uint8(code))
		}
		return nil
	}
}

// script runs a file the kernel refused to execute (a script without #!)
// with a new interpreter built like this one, so its commands pass the
// same guard instead of a default, unguarded interpreter.
func (s *session) script(ctx context.Context, hc interp.HandlerContext, path string, args []string) error {
	depth, _ := ctx.Value(scriptDepthKey{}).(int)
	if depth >= maxScriptDepth {
		fmt.Fprintf(hc.Stderr, "%s: scripts nested too deeply\n", args[0])
		return interp.ExitStatus(126)
	}
	b, err := readScript(path)
	if err != nil || len(b) > maxScript {
		fmt.Fprintf(hc.Stderr, "%s: cannot read script\n", args[0])
		return interp.ExitStatus(126)
	}
	if line, _, _ := bytes.Cut(b, []byte("\n")); bytes.IndexByte(line, 0) >= 0 {
		fmt.Fprintf(hc.Stderr, "%s: cannot execute binary file\n", args[0])
		return interp.ExitStatus(126)
	}
	file, err := syntax.NewParser().Parse(bytes.NewReader(b), args[0])
	if err != nil {
		fmt.Fprintln(hc.Stderr, err)
		return interp.ExitStatus(2)
	}
	var stdin io.Reader
	if hc.Stdin != nil {
		stdin = hc.Stdin
	}
	r, err := s.runner(expand.ListEnviron(execEnv(hc.Env)...), hc.Dir, stdin, hc.Stdout, hc.Stderr)
	if err != nil {
		return fmt.Errorf("shell: start interpreter for %s: %w", path, err)
	}
	if err := interp.Params(append([]string{"--"}, args[1:]...)...)(r); err != nil {
		return fmt.Errorf("shell: script parameters: %w", err)
	}
	return r.Run(context.WithValue(ctx, scriptDepthKey{}, depth+1), file)
}

// execEnv lists the exported variables a program receives.
func execEnv(env expand.Environ) []string {
	var list []string
	for name, vr := range env.Each {
		if vr.Exported && vr.IsSet() && vr.Kind == expand.String {
			list = append(list, name+"="+vr.String())
		}
	}
	return list
}

// forcedEnv are set for every command so tools never wait for a person.
func forcedEnv() []string {
	return []string{
		"AGENTLS=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "TERM=dumb",
		"GIT_EDITOR=false", "EDITOR=false", "VISUAL=false",
	}
}

// buildEnv is the base environment minus secrets plus forcedEnv.
func buildEnv(o Options) []string {
	base := o.Env
	if base == nil {
		base = sandbox.FilterEnv(os.Environ(), nil)
	}
	forced := forcedEnv()
	out := make([]string, 0, len(base)+len(forced))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || isSecret(name, o.Secrets) || isForced(name, forced) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, forced...)
}

func isForced(name string, forced []string) bool {
	for _, kv := range forced {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// isSecret reports whether a variable must not reach commands: the server's
// own settings and model-provider keys are never needed by a build, and a
// command's output goes to the model provider.
func isSecret(name string, extra []string) bool {
	u := strings.ToUpper(name)
	if strings.HasPrefix(u, "AGENTLS_") || strings.HasSuffix(u, "_API_KEY") || strings.HasSuffix(u, "_APIKEY") {
		return true
	}
	for _, e := range extra {
		if strings.EqualFold(name, e) {
			return true
		}
	}
	return false
}
