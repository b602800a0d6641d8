package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools/confine"
	"github.com/agentls/agentls/internal/tools/shell"
)

//go:embed bash.md
var bashDescription string

const (
	// bashDefaultBackground is when a foreground command becomes a job.
	bashDefaultBackground = 60 * time.Second
	// bashBackgroundProbe is how long run_in_background waits to catch a
	// command that fails at once.
	bashBackgroundProbe = time.Second
)

type bashInput struct {
	Command             string `json:"command" jsonschema:"The shell command to run."`
	Description         string `json:"description,omitempty" jsonschema:"What the command does, in 5-10 words."`
	WorkingDir          string `json:"working_dir,omitempty" jsonschema:"Folder to run in, inside a workspace folder. Default: the first workspace folder."`
	RunInBackground     bool   `json:"run_in_background,omitempty" jsonschema:"Start as a background job at once and return its id (servers, watchers)."`
	AutoBackgroundAfter int    `json:"auto_background_after,omitempty" schema:"minimum=1" jsonschema:"Seconds before a still-running command moves to the background. Default 60."`
}

var bashSchema = schemaFor[bashInput]()

// BashTool runs shell commands through the embedded interpreter. The
// command is judged from its parsed words (tools/shell), never from the
// model's description.
type BashTool struct{ env *ShellEnv }

// NewBashTool returns the bash tool of a session.
func NewBashTool(env *ShellEnv) *BashTool { return &BashTool{env: env} }

// Spec describes bash: capability shell.exec, not read-only as a tool (a
// call is read-only only when the judge says so).
func (t *BashTool) Spec() Spec {
	return Spec{Name: "bash", Description: bashDescription, Schema: bashSchema().JSON,
		Capability: "shell.exec", Action: permission.ActionExecute}
}

func (t *BashTool) parse(call Call) (bashInput, string, error) {
	var in bashInput
	if err := bashSchema().decode(call, "bash", &in); err != nil {
		return in, "", err
	}
	if strings.TrimSpace(in.Command) == "" {
		return in, "", errors.New("bash: command is required")
	}
	dir, err := target(t.env.ws, in.WorkingDir, "working_dir", true)
	if err != nil {
		return in, "", fmt.Errorf("bash: %w", err)
	}
	if !t.env.ws.Inside(dir) {
		return in, "", fmt.Errorf("bash: working_dir %s is outside the workspace roots (%s); run commands inside a workspace folder", dir, strings.Join(t.env.ws.Roots(), ", "))
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return in, "", fmt.Errorf("bash: working_dir %s is not an existing folder", dir)
	}
	return in, dir, nil
}

// Describe judges the command: blocked commands are hard-blocked, a call
// is read-only only when every command is on the safe list and every file
// it reads lies inside the roots, and a call that is seen to write or
// delete outside the roots is marked so (the gate blocks it).
func (t *BashTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, dir, v, err := t.judge(call)
	if err != nil {
		return permission.Request{}, err
	}
	roots := confine.Roots(t.env.ws.Roots())
	outside := func(list []string) []string {
		var out []string
		for _, p := range list {
			if !confine.Inside(roots, dir, p) {
				out = append(out, filepath.Clean(p))
			}
		}
		return out
	}
	readsOut := outside(v.Reads)
	writesOut := append(outside(v.Writes), outside(v.Deletes)...)
	req := permission.Request{
		Tool:         "bash",
		Capability:   "shell.exec",
		Action:       permission.ActionExecute,
		ReadOnly:     v.ReadOnly && len(writesOut) == 0, // reads outside make it an ask, not a block
		Paths:        []string{dir},
		Blocked:      v.Blocked,
		Fingerprint:  v.Fingerprint,
		NoGrant:      v.NoGrant,
		Command:      in.Command,
		Argvs:        v.Commands,
		Destinations: v.Destinations,
		Egress:       v.Egress,
	}
	for _, d := range v.Deletes {
		real, _ := confine.Resolve(dir, d)
		req.Deletes = append(req.Deletes, real)
	}
	switch {
	case len(writesOut) > 0:
		req.OutsideRoots = true
		req.Paths = append(req.Paths, writesOut...)
	case v.ReadOnly && len(readsOut) > 0:
		req.OutsideRoots = true // a read outside: asked, never granted
		req.Paths = append(req.Paths, readsOut...)
	}
	if req.OutsideRoots || len(readsOut) > 0 {
		req.Fingerprint = ""
		req.NoGrant = "it reaches outside the workspace"
	}
	if req.Fingerprint != "" {
		// The grant covers the program as its environment shapes it now.
		req.GrantEnv = shell.GrantEnv(v, t.judgeOptions(dir))
	}
	req.Confined = t.confinedBuild(v, dir) && !req.OutsideRoots && len(readsOut) == 0
	where := display(t.env.ws, dir)
	if where == "." {
		where = "the workspace"
	}
	req.Summary = fmt.Sprintf("agentls wants to run `%s` in %s", abbreviateCommand(in.Command), where)
	return req, nil
}

// judge parses the call and judges its command as it will run: in its
// folder, against the workspace roots, with the environment Run gives it.
func (t *BashTool) judge(call Call) (bashInput, string, shell.Verdict, error) {
	in, dir, err := t.parse(call)
	if err != nil {
		return in, "", shell.Verdict{}, err
	}
	v, err := shell.JudgeWith(in.Command, t.judgeOptions(dir))
	if err != nil {
		return in, "", shell.Verdict{}, fmt.Errorf("bash: the command does not parse: %v; fix the shell syntax", err)
	}
	return in, dir, v, nil
}

// judgeOptions are what the judge knows of a command run in dir: the
// environment its programs get and git run the way the sandbox runs it.
func (t *BashTool) judgeOptions(dir string) shell.JudgeOptions {
	sb := t.env.Sandbox()
	return shell.JudgeOptions{Dir: dir, Home: t.env.home, Roots: t.env.ws.Roots(), Env: sb.Env(""), Git: gitRunner(sb)}
}

// confinedBuild reports whether the command is one known build or test
// command (go test, npm test, make …) that may be granted, in a trusted
// workspace folder, and commands run confined by the kernel: the gate may
// then run it without asking in smart mode.
func (t *BashTool) confinedBuild(v shell.Verdict, dir string) bool {
	e := t.env
	if !e.Sandbox().Confined() || e.trusted == nil || len(v.Commands) != 1 || !shell.BuildCommand(v.Commands[0]) ||
		v.Fingerprint == "" || v.NoGrant != "" || v.Blocked != "" {
		return false
	}
	for _, r := range confine.Roots(e.ws.Roots()) {
		if confine.Inside([]string{r}, dir, dir) {
			return e.trusted(r)
		}
	}
	return false
}

// readOnlyRun reports whether a judged command may run as read-only: then
// the runner holds every program it starts to that.
func readOnlyRun(v shell.Verdict, roots []string, dir string) bool {
	if !v.ReadOnly {
		return false
	}
	for _, p := range v.Reads {
		if !confine.Inside(roots, dir, p) {
			return false
		}
	}
	return true
}

// Run executes the command.
func (t *BashTool) Run(ctx context.Context, call Call) (Result, error) {
	in, dir, v, err := t.judge(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	roots := t.env.ws.Roots()
	opts := shell.Options{Dir: dir, Roots: roots, ReadOnly: readOnlyRun(v, confine.Roots(roots), dir)}
	conf, err := t.confine(ctx, call, in.Command, v, dir, &opts)
	if err != nil {
		return Errorf("bash: %v", err), nil
	}
	if in.RunInBackground {
		id, err := t.env.jobs.Start(ctx, in.Command, opts)
		if err != nil {
			return Errorf("bash: start background job: %v", err), nil
		}
		out, err := t.env.jobs.Output(ctx, id, bashBackgroundProbe, false)
		if err == nil && out.Done {
			return conf.result(t.format(formatJob(out), out.ExitCode), out.Stdout+"\n"+out.Stderr, out.ExitCode), nil
		}
		return Result{Content: fmt.Sprintf("Started background job %s. Poll it with job_output {\"shell_id\": %q}; stop it with job_kill.", id, id)}, nil
	}
	if t.env.terminals != nil {
		if r, ok := t.runInTerminal(ctx, call, in.Command, opts, conf); ok {
			return r, nil
		}
	}
	after := bashDefaultBackground
	if in.AutoBackgroundAfter > 0 {
		after = time.Duration(in.AutoBackgroundAfter) * time.Second
	}
	res, id, err := t.env.jobs.RunOrBackground(ctx, in.Command, opts, after)
	switch {
	case id != "":
		return Result{Content: fmt.Sprintf("The command was still running after %s and moved to background job %s. Poll it with job_output {\"shell_id\": %q}; stop it with job_kill.", after, id, id)}, nil
	case ctx.Err() != nil:
		return Result{Content: formatOutput(res.Stdout, res.Stderr) + "\nThe command was cancelled.", IsError: true}, nil
	case err != nil:
		return Errorf("bash: %v", err), nil
	}
	return conf.result(t.format(formatOutput(res.Stdout, res.Stderr), res.ExitCode), res.Stdout+"\n"+res.Stderr, res.ExitCode), nil
}

// format adds the exit code and bounds the text, saving the full output.
func (t *BashTool) format(text string, exit int) Result {
	text += fmt.Sprintf("\nExit code: %d", exit)
	shown, saved, err := shell.Truncate(text, t.env.outputDir)
	if saved != "" {
		shown += "\n\nThe full output is saved in " + saved + " (view or grep it)."
	} else if err != nil {
		shown += "\n\n(The full output could not be saved: " + err.Error() + ")"
	}
	return Result{Content: shown}
}

func formatOutput(stdout, stderr string) string {
	var b strings.Builder
	if stdout != "" {
		b.WriteString("<stdout>\n" + strings.TrimRight(stdout, "\n") + "\n</stdout>")
	}
	if stderr != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("<stderr>\n" + strings.TrimRight(stderr, "\n") + "\n</stderr>")
	}
	if b.Len() == 0 {
		b.WriteString("(no output)")
	}
	return b.String()
}

func abbreviateCommand(c string) string { return truncate(strings.TrimSpace(c), 300) }
