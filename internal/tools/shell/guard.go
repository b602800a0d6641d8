package shell

import (
	"context"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools/confine"
)

// extraEnvKey carries variables the exec handler adds for one program.
type extraEnvKey struct{}

func withExtraEnv(ctx context.Context, env []string) context.Context {
	if len(env) == 0 {
		return ctx
	}
	return context.WithValue(ctx, extraEnvKey{}, env)
}

// confine applies the rules that hold in every mode to one argv with its
// real words: nothing it is seen to write or delete may lie outside the
// roots, no deletion may be catastrophic, and in a read-only run the argv
// must itself be read-only and read only inside the roots.
func (s *session) confine(r *report, c *checker, argv []arg, home string) {
	for _, t := range r.deletes {
		real, _ := confine.Resolve(c.dir, t)
		if why := permission.Catastrophic(real, home); why != "" {
			r.block("deleting %s is never allowed: %s", t, why)
			return
		}
	}
	for _, list := range [][]string{r.deletes, r.writes} {
		for _, t := range list {
			if !confine.Inside(s.roots, c.dir, t) {
				r.block("%s would change %s, outside the workspace; agentls changes files only inside the workspace folders", argv[0].val, t)
				return
			}
		}
	}
	if !s.opts.ReadOnly {
		return
	}
	if !r.ro {
		why := r.why
		if why == "" {
			why = "it is not read-only"
		}
		r.block("this command was run without asking as read-only, but at run time %s: %s; run it again so it can be asked", argv[0].val, why)
		return
	}
	for _, p := range r.reads {
		if !confine.Inside(s.roots, c.dir, p) {
			r.block("this command was run without asking as read-only, but at run time %s reads %s outside the workspace; run it again so it can be asked", argv[0].val, p)
			return
		}
	}
}

// readOnlyEnv is what a program judged read-only runs with: git with its
// repository configuration's programs switched off, go without switching
// to a toolchain a go.mod names.
func (s *session) readOnlyEnv(argv []arg, r *report) []string {
	if !r.ro || len(argv) == 0 {
		return nil
	}
	switch argv[0].val {
	case "git":
		return gitReadOnlyEnv()
	case "go", "gofmt":
		return []string{"GOTOOLCHAIN=local"}
	}
	return nil
}

// readOnlyArgs is argv as a read-only git runs it: the diff family with
// --no-ext-diff --no-textconv, grep and blame with --no-textconv, so no
// diff program or text converter a configuration names runs, whatever
// the judge read of the configuration.
func readOnlyArgs(argv []arg, r *report, args []string) []string {
	if !r.ro || len(argv) == 0 || argv[0].val != "git" {
		return args
	}
	i, _ := gitSub(argv)
	if i >= len(args) {
		return args
	}
	var extra []string
	switch args[i] {
	case "diff", "log", "show", "whatchanged", "diff-files", "diff-index", "diff-tree", "range-diff":
		extra = []string{"--no-ext-diff", "--no-textconv"}
	case "grep", "blame", "annotate":
		extra = []string{"--no-textconv"}
	default:
		return args
	}
	out := append(append(append([]string{}, args[:i+1]...), extra...), args[i+1:]...)
	return out
}
