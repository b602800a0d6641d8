package shell

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Defaults for JobsOptions.
const (
	DefaultMaxJobs   = 50
	DefaultJobTTL    = 8 * time.Hour
	DefaultJobBuffer = 4 << 20 // bytes kept per stream per job
)

const (
	killWaitExtra     = 3 * time.Second       // beyond the grace period, before Kill gives up waiting
	autoBackgroundMin = 10 * time.Millisecond // smallest RunOrBackground threshold
)

// ErrNoJob is returned for an unknown (or expired, or killed) job id.
var ErrNoJob = errors.New("shell: no such background job")

// JobsOptions configures a Jobs manager. Zero values mean the defaults.
type JobsOptions struct {
	Max        int              // most jobs tracked at once (DefaultMaxJobs)
	TTL        time.Duration    // how long finished jobs stay readable (DefaultJobTTL)
	BufferSize int              // bytes kept per stream per job (DefaultJobBuffer)
	Now        func() time.Time // clock, for tests (time.Now)
}

// Jobs runs commands in the background so a long build or a dev server does
// not hold up the agent, while keeping their output bounded. Create one per
// server (or session) and Close it when that ends: Close kills every job.
type Jobs struct {
	max, bufSize int
	ttl          time.Duration
	now          func() time.Time

	mu     sync.Mutex
	jobs   map[string]*job
	next   int
	closed bool
}

// NewJobs returns an empty manager.
func NewJobs(o JobsOptions) *Jobs {
	m := &Jobs{max: o.Max, ttl: o.TTL, bufSize: o.BufferSize, now: o.Now, jobs: map[string]*job{}}
	if m.max <= 0 {
		m.max = DefaultMaxJobs
	}
	if m.ttl <= 0 {
		m.ttl = DefaultJobTTL
	}
	if m.bufSize <= 0 {
		m.bufSize = DefaultJobBuffer
	}
	if m.now == nil {
		m.now = time.Now
	}
	return m
}

// job is one background command. Fields after mu are guarded by it.
type job struct {
	id, command, dir string
	started          time.Time
	grace            time.Duration
	cancel           context.CancelFunc
	stdout, stderr   *lockedRing
	done             chan struct{}

	mu              sync.Mutex
	ended           time.Time
	code            int
	interrupted     bool
	err             error
	readOut, readEr int64 // offsets already returned by Output
}

// JobInfo describes a job without its output.
type JobInfo struct {
	ID, Command, Dir string
	Started          time.Time
	Ended            time.Time // zero while running
	Done             bool
}

// JobOutput is a job's output and state at one moment.
type JobOutput struct {
	JobInfo
	Stdout, Stderr string
	ExitCode       int  // valid when Done
	Interrupted    bool // killed before it finished
	// Err is an interpreter failure (not a non-zero exit), when Done.
	Err error
	// StdoutDropped and StderrDropped count bytes of the requested range
	// that the bounded buffers no longer hold.
	StdoutDropped, StderrDropped int64
}

// Start runs command in the background and returns its id ("shell-1", …).
// The job does not end with ctx (which usually belongs to one tool call);
// only Kill, Close or the command itself end it. Values in ctx are kept.
func (m *Jobs) Start(ctx context.Context, command string, o Options) (string, error) {
	if o.Dir == "" {
		return "", errors.New("shell: Options.Dir is required")
	}
	if _, err := parse(command); err != nil {
		return "", fmt.Errorf("shell: parse command: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", errors.New("shell: jobs closed")
	}
	m.expireLocked()
	if len(m.jobs) >= m.max && !m.evictLocked() {
		return "", fmt.Errorf("shell: maximum number of background jobs (%d) reached; kill or wait for some", m.max)
	}
	m.next++
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	j := &job{
		id: "shell-" + strconv.Itoa(m.next), command: command, dir: o.Dir,
		started: m.now(), grace: o.KillGrace, cancel: cancel,
		stdout: &lockedRing{r: ring{size: m.bufSize}}, stderr: &lockedRing{r: ring{size: m.bufSize}},
		done: make(chan struct{}),
	}
	if j.grace <= 0 {
		j.grace = DefaultKillGrace
	}
	m.jobs[j.id] = j
	go func() {
		code, interrupted, err := execute(jctx, command, o, j.stdout, j.stderr)
		j.mu.Lock()
		j.code, j.interrupted, j.err, j.ended = code, interrupted, err, m.now()
		j.mu.Unlock()
		cancel()
		close(j.done)
	}()
	return j.id, nil
}

// expireLocked forgets jobs that finished more than TTL ago.
func (m *Jobs) expireLocked() {
	now := m.now()
	for id, j := range m.jobs {
		j.mu.Lock()
		ended := j.ended
		j.mu.Unlock()
		if !ended.IsZero() && now.Sub(ended) > m.ttl {
			delete(m.jobs, id)
		}
	}
}

// evictLocked forgets the oldest finished job to make room; running jobs
// are never dropped silently.
func (m *Jobs) evictLocked() bool {
	var oldest *job
	var oldestEnd time.Time
	for _, j := range m.jobs {
		j.mu.Lock()
		ended := j.ended
		j.mu.Unlock()
		if !ended.IsZero() && (oldest == nil || ended.Before(oldestEnd)) {
			oldest, oldestEnd = j, ended
		}
	}
	if oldest == nil {
		return false
	}
	delete(m.jobs, oldest.id)
	return true
}

func (m *Jobs) get(id string) (*job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expireLocked()
	j, ok := m.jobs[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoJob, id)
	}
	return j, nil
}

// Output returns the job's output. With wait > 0 it first waits up to wait
// for the job to finish (or ctx to end). With all it returns everything
// the buffers still hold; otherwise only what previous calls did not.
func (m *Jobs) Output(ctx context.Context, id string, wait time.Duration, all bool) (JobOutput, error) {
	j, err := m.get(id)
	if err != nil {
		return JobOutput{}, err
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-j.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return j.output(all), nil
}

func (j *job) output(all bool) JobOutput {
	j.mu.Lock()
	defer j.mu.Unlock()
	var from, fromErr int64
	if !all {
		from, fromErr = j.readOut, j.readEr
	}
	out, d1, totalOut := j.stdout.since(from)
	errb, d2, totalErr := j.stderr.since(fromErr)
	j.readOut, j.readEr = totalOut, totalErr
	o := JobOutput{
		JobInfo: j.infoLocked(),
		Stdout:  string(out), Stderr: string(errb),
		StdoutDropped: d1, StderrDropped: d2,
	}
	if o.Done {
		o.ExitCode, o.Interrupted, o.Err = j.code, j.interrupted, j.err
	}
	return o
}

func (j *job) infoLocked() JobInfo {
	return JobInfo{ID: j.id, Command: j.command, Dir: j.dir, Started: j.started, Ended: j.ended, Done: !j.ended.IsZero()}
}

// List describes every tracked job, oldest first.
func (m *Jobs) List() []JobInfo {
	m.mu.Lock()
	m.expireLocked()
	jobs := make([]*job, 0, len(m.jobs))
	for _, j := range m.jobs {
		jobs = append(jobs, j)
	}
	m.mu.Unlock()
	out := make([]JobInfo, 0, len(jobs))
	for _, j := range jobs {
		j.mu.Lock()
		out = append(out, j.infoLocked())
		j.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b JobInfo) int {
		n1, _ := strconv.Atoi(a.ID[len("shell-"):])
		n2, _ := strconv.Atoi(b.ID[len("shell-"):])
		return n1 - n2
	})
	return out
}

// Kill stops a job (SIGINT to its process groups, SIGKILL after the grace
// period), waits for it to end and forgets it.
func (m *Jobs) Kill(id string) error {
	m.mu.Lock()
	j, ok := m.jobs[id]
	delete(m.jobs, id)
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoJob, id)
	}
	return j.stop()
}

func (j *job) stop() error {
	j.cancel()
	t := time.NewTimer(j.grace + killWaitExtra)
	defer t.Stop()
	select {
	case <-j.done:
		return nil
	case <-t.C:
		return fmt.Errorf("shell: job %s did not stop", j.id)
	}
}

// Close kills every job and refuses new ones; for session end and server
// exit.
func (m *Jobs) Close() error {
	m.mu.Lock()
	m.closed = true
	jobs := make([]*job, 0, len(m.jobs))
	for id, j := range m.jobs {
		jobs = append(jobs, j)
		delete(m.jobs, id)
	}
	m.mu.Unlock()
	for _, j := range jobs {
		j.cancel()
	}
	var errs []error
	for _, j := range jobs {
		errs = append(errs, j.stop())
	}
	return errors.Join(errs...)
}

// RunOrBackground runs command in the foreground; if it is still running
// after `after`, it is left running as a job and its id is returned instead
// of a result (its output keeps going to the job's buffers). A command that
// finishes in time is forgotten by the manager and its Result returned.
// If ctx ends first, the command is killed and ctx's error returned with
// the partial result.
func (m *Jobs) RunOrBackground(ctx context.Context, command string, o Options, after time.Duration) (Result, string, error) {
	id, err := m.Start(ctx, command, o)
	if err != nil {
		return Result{}, "", err
	}
	j, err := m.get(id)
	if err != nil {
		return Result{}, "", err
	}
	t := time.NewTimer(max(after, autoBackgroundMin))
	defer t.Stop()
	select {
	case <-j.done:
		m.mu.Lock()
		delete(m.jobs, id)
		m.mu.Unlock()
		out := j.output(true)
		return Result{
			Stdout: out.Stdout, Stderr: out.Stderr, ExitCode: out.ExitCode,
			Interrupted: out.Interrupted, StdoutDropped: out.StdoutDropped, StderrDropped: out.StderrDropped,
		}, "", out.Err
	case <-t.C:
		return Result{}, id, nil
	case <-ctx.Done():
		kerr := m.Kill(id)
		out := j.output(true)
		return Result{Stdout: out.Stdout, Stderr: out.Stderr, ExitCode: 130, Interrupted: true},
			"", errors.Join(ctx.Err(), kerr)
	}
}
