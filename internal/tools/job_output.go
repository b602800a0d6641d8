package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools/shell"
)

//go:embed job_output.md
var jobOutputDescription string

//go:embed job_kill.md
var jobKillDescription string

// jobMaxWait bounds a job_output wait so a turn never hangs on a job.
const jobMaxWait = 60 * time.Second

// jobKillInput is job_kill's input; job_output's adds wait.
type jobKillInput struct {
	ShellID string `json:"shell_id" jsonschema:"The job id bash returned, e.g. shell-1."`
}

type jobInput struct {
	jobKillInput
	Wait json.RawMessage `json:"wait,omitempty" schema:"type=boolean|integer,minimum=0" jsonschema:"true: wait up to 60 s for the job to finish; a number: wait that many seconds."`
}

var (
	jobOutputSchema = schemaFor[jobInput]()
	jobKillSchema   = schemaFor[jobKillInput]()
)

func (in jobInput) wait() (time.Duration, error) {
	if len(in.Wait) == 0 || string(in.Wait) == "null" || string(in.Wait) == "false" {
		return 0, nil
	}
	if string(in.Wait) == "true" {
		return jobMaxWait, nil
	}
	var secs float64
	if err := json.Unmarshal(in.Wait, &secs); err != nil || secs < 0 {
		return 0, fmt.Errorf("wait must be true, false or a number of seconds, not %s", in.Wait)
	}
	return min(time.Duration(secs*float64(time.Second)), jobMaxWait), nil
}

func jobSpec(name, desc string, schema *inputSchema) Spec {
	return Spec{Name: name, Description: desc, Schema: schema.JSON, Capability: "shell.jobs", Action: permission.ActionExecute, ReadOnly: true}
}

func jobRequest(name string) permission.Request {
	return permission.Request{Tool: name, Capability: "shell.jobs", Action: permission.ActionExecute, ReadOnly: true,
		Summary: "agentls wants to manage its background jobs"}
}

func parseJob(call Call, name string, schema *inputSchema) (jobInput, error) {
	var in jobInput
	if err := schema.decode(call, name, &in); err != nil {
		return in, err
	}
	if in.ShellID == "" {
		return in, fmt.Errorf("%s: shell_id is required", name)
	}
	return in, nil
}

// JobOutputTool reads a background job's output. It only touches jobs the
// session itself started, so it is read-only and never asked about.
type JobOutputTool struct{ env *ShellEnv }

// NewJobOutputTool returns the job_output tool of a session.
func NewJobOutputTool(env *ShellEnv) *JobOutputTool { return &JobOutputTool{env: env} }

// Spec describes job_output: capability shell.jobs, read-only.
func (t *JobOutputTool) Spec() Spec {
	return jobSpec("job_output", jobOutputDescription, jobOutputSchema())
}

// Describe validates the input.
func (t *JobOutputTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, err := parseJob(call, "job_output", jobOutputSchema())
	if err != nil {
		return permission.Request{}, err
	}
	if _, err := in.wait(); err != nil {
		return permission.Request{}, fmt.Errorf("job_output: %w", err)
	}
	return jobRequest("job_output"), nil
}

// Run returns the job's new output and state.
func (t *JobOutputTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := parseJob(call, "job_output", jobOutputSchema())
	if err != nil {
		return Errorf("%v", err), nil
	}
	wait, err := in.wait()
	if err != nil {
		return Errorf("job_output: %v", err), nil
	}
	out, err := t.env.jobs.Output(ctx, in.ShellID, wait, false)
	if errors.Is(err, shell.ErrNoJob) {
		return Errorf("job_output: no background job %q (finished jobs expire after 8 h; killed jobs are forgotten)", in.ShellID), nil
	}
	if err != nil && ctx.Err() == nil {
		return Errorf("job_output: %v", err), nil
	}
	text := formatJob(out)
	if !out.Done {
		text += fmt.Sprintf("\nJob %s is still running (started %s ago).", out.ID, time.Since(out.Started).Round(time.Second))
		shown, _, _ := shell.Truncate(text, t.env.outputDir)
		return Result{Content: shown}, nil
	}
	b := BashTool{env: t.env}
	return b.format(text, out.ExitCode), nil
}

func formatJob(out shell.JobOutput) string {
	text := formatOutput(out.Stdout, out.Stderr)
	if out.StdoutDropped+out.StderrDropped > 0 {
		text = fmt.Sprintf("[%d bytes of earlier output no longer kept]\n", out.StdoutDropped+out.StderrDropped) + text
	}
	if out.Interrupted {
		text += "\nThe job was interrupted."
	}
	return text
}

// JobKillTool stops a background job of the session.
type JobKillTool struct{ env *ShellEnv }

// NewJobKillTool returns the job_kill tool of a session.
func NewJobKillTool(env *ShellEnv) *JobKillTool { return &JobKillTool{env: env} }

// Spec describes job_kill: capability shell.jobs, read-only (it only ends
// what the session started).
func (t *JobKillTool) Spec() Spec { return jobSpec("job_kill", jobKillDescription, jobKillSchema()) }

// Describe validates the input.
func (t *JobKillTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	if _, err := parseJob(call, "job_kill", jobKillSchema()); err != nil {
		return permission.Request{}, err
	}
	return jobRequest("job_kill"), nil
}

// Run kills the job.
func (t *JobKillTool) Run(_ context.Context, call Call) (Result, error) {
	in, err := parseJob(call, "job_kill", jobKillSchema())
	if err != nil {
		return Errorf("%v", err), nil
	}
	if err := t.env.jobs.Kill(in.ShellID); errors.Is(err, shell.ErrNoJob) {
		return Errorf("job_kill: no background job %q", in.ShellID), nil
	} else if err != nil {
		return Errorf("job_kill: %v", err), nil
	}
	return Result{Content: fmt.Sprintf("Job %s stopped.", in.ShellID)}, nil
}
