//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder collects the events a Runner reports.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) add(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) of(typ EventType) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// newRunner builds a Runner working in dir, recording its events.
func newRunner(t testing.TB, dir string, hooks ...Config) (*Runner, *recorder) {
	t.Helper()
	rec := &recorder{}
	r, err := New(hooks, Options{Dir: func() string { return dir }, OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Wait)
	return r, rec
}

func pre(tool string) Input {
	return Input{Event: PreToolUse, SessionID: "s1", TurnID: "t1", ToolName: tool, ToolInput: json.RawMessage(`{"file_path":"a.go"}`)}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cases := []struct {
		name, cmd string
		want      Result
		decision  string // of the run event
		exit      int
		warn      string
	}{
		{"0 silent", "exit 0", Result{Ran: 1}, "none", 0, ""},
		{"0 allow", `echo '{"decision":"allow","reason":"ok"}'`, Result{Decision: Allow, Reason: "ok", Ran: 1}, "allow", 0, ""},
		{"2 deny", "echo 'use the edit tool' >&2; echo ignored; exit 2", Result{Decision: Deny, Reason: "use the edit tool", Ran: 1}, "deny", 2, ""},
		{"2 deny no reason", "exit 2", Result{Decision: Deny, Reason: defaultDenyReason, Ran: 1}, "deny", 2, ""},
		{"49 halt", "echo 'stop everything' >&2; exit 49", Result{Decision: Deny, Reason: "stop everything", Halt: true, HaltReason: "stop everything", Ran: 1}, "halt", 49, ""},
		{"1 other", "echo oops >&2; exit 1", Result{Ran: 1}, "none", 1, "exited with status 1"},
		{"3 other", "exit 3", Result{Ran: 1}, "none", 3, "exited with status 3"},
		{"127 missing program", "no-such-program-xyz", Result{Ran: 1}, "none", 127, "not found"},
		{"crash", `sh -c 'kill -9 $$'`, Result{Ran: 1}, "none", 137, "status 137"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, rec := newRunner(t, t.TempDir(), Config{Event: PreToolUse, Command: c.cmd})
			got := r.Run(context.Background(), pre("edit"))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("result = %+v, want %+v", got, c.want)
			}
			runs := rec.of(TypeRun)
			if len(runs) != 1 || runs[0].ExitCode != c.exit || runs[0].Decision != c.decision || runs[0].Command != c.cmd || runs[0].Event != PreToolUse {
				t.Errorf("run events = %+v", runs)
			}
			warns := rec.of(TypeWarning)
			if c.warn == "" && len(warns) > 0 || c.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0].Message, c.warn)) {
				t.Errorf("warnings = %+v, want one containing %q", warns, c.warn)
			}
		})
	}
}

func TestJSONForms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return "cat " + name
	}
	cases := []struct {
		name, cmd string
		want      Result
		warn      string
	}{
		{"ours", write("ours.json", `{"decision":"deny","reason":"r","context":"c","updated_input":{"x":1}}`),
			Result{Decision: Deny, Reason: "r", Context: "c", UpdatedInput: map[string]json.RawMessage{"x": json.RawMessage("1")}, Ran: 1}, ""},
		{"claude specific", write("cc.json", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe","updatedInput":{"file_path":"b.go"},"additionalContext":"note"}}`),
			Result{Decision: Allow, Reason: "safe", Context: "note", UpdatedInput: map[string]json.RawMessage{"file_path": json.RawMessage(`"b.go"`)}, Ran: 1}, ""},
		{"claude block", write("block.json", `{"decision":"block","reason":"b"}`), Result{Decision: Deny, Reason: "b", Ran: 1}, ""},
		{"claude continue false", write("cont.json", `{"continue":false,"stopReason":"enough"}`),
			Result{Decision: Deny, Reason: "enough", Halt: true, HaltReason: "enough", Ran: 1}, ""},
		{"malformed", write("bad.json", `{"decision":"deny"`), Result{Ran: 1}, "output ignored: stdout is not a JSON object"},
		{"plain text", "echo looks fine to me", Result{Ran: 1}, "output ignored"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, rec := newRunner(t, dir, Config{Event: PreToolUse, Command: c.cmd})
			got := r.Run(context.Background(), pre("edit"))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("result = %+v, want %+v", got, c.want)
			}
			warns := rec.of(TypeWarning)
			if c.warn == "" && len(warns) > 0 || c.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0].Message, c.warn)) {
				t.Errorf("warnings = %+v, want one containing %q", warns, c.warn)
			}
			if runs := rec.of(TypeRun); len(runs) != 1 || runs[0].ExitCode != 0 {
				t.Errorf("run events = %+v", runs)
			}
		})
	}
}

// Three hooks finishing in reverse order merge in configuration order.
func TestMergeOrderThreeHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, rec := newRunner(t, dir,
		Config{Event: PreToolUse, Command: `sleep 0.4; echo '{"decision":"allow","reason":"first","context":"c1","updated_input":{"a":1,"b":1}}'`},
		Config{Event: PreToolUse, Command: `sleep 0.2; echo '{"decision":"deny","reason":"second","context":"c2","updated_input":{"b":2}}'`},
		Config{Event: PreToolUse, Command: `echo third >&2; exit 2`},
	)
	got := r.Run(context.Background(), pre("write"))
	want := Result{
		Decision: Deny, Reason: "second\nthird", Context: "c1\nc2",
		UpdatedInput: map[string]json.RawMessage{"a": json.RawMessage("1"), "b": json.RawMessage("2")},
		Ran:          3,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	var decisions []string
	for _, e := range rec.of(TypeRun) {
		decisions = append(decisions, e.Decision)
	}
	if !reflect.DeepEqual(decisions, []string{"allow", "deny", "deny"}) {
		t.Errorf("events not in configuration order: %v", decisions)
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, t.TempDir(),
		Config{Event: Stop, Command: `sleep 1; echo '{"context":"a"}'`},
		Config{Event: Stop, Command: `sleep 1; echo '{"context":"b"}'`},
		Config{Event: Stop, Command: `sleep 1; echo '{"context":"c"}'`},
	)
	start := time.Now()
	got := r.Run(context.Background(), Input{Event: Stop})
	elapsed := time.Since(start)
	if got.Context != "a\nb\nc" || got.Ran != 3 {
		t.Errorf("result = %+v", got)
	}
	if elapsed < time.Second || elapsed > 1800*time.Millisecond {
		t.Errorf("three 1 s hooks took %v, want about 1 s", elapsed)
	}
	t.Logf("three 1 s hooks: %v", elapsed)
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	r, rec := newRunner(t, t.TempDir(), Config{Event: PreToolUse, Command: "echo partial; sleep 10; exit 2", Timeout: 1})
	start := time.Now()
	got := r.Run(context.Background(), pre("edit"))
	elapsed := time.Since(start)
	if !reflect.DeepEqual(got, Result{Ran: 1}) {
		t.Errorf("a timed-out hook must have no opinion: %+v", got)
	}
	if elapsed < time.Second || elapsed > 1900*time.Millisecond {
		t.Errorf("took %v", elapsed)
	}
	runs, warns := rec.of(TypeRun), rec.of(TypeWarning)
	if len(runs) != 1 || runs[0].ExitCode != 130 || runs[0].Decision != "none" {
		t.Errorf("run events = %+v", runs)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Message, "timed out after 1s") {
		t.Errorf("warnings = %+v", warns)
	}
}

// A hook ignoring SIGINT and SIGTERM outlives its timeout by more than the
// grace: it is abandoned, while it goes on writing to its output buffers.
// Run under -race this proves nothing reads those buffers again.
func TestTimeoutAbandon(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	// The embedded shell's trap knows only EXIT and ERR, so a real sh
	// ignores the signals; sleep inherits that.
	cmd := `sh -c 'trap "" INT TERM; while :; do echo out; echo err >&2; sleep 0.02; done'; exit 2`
	r, rec := newRunner(t, dir, Config{Event: PreToolUse, Command: cmd, Timeout: 1})
	start := time.Now()
	got := r.Run(context.Background(), pre("edit"))
	elapsed := time.Since(start)
	if !reflect.DeepEqual(got, Result{Ran: 1}) {
		t.Errorf("an abandoned hook must have no opinion: %+v", got)
	}
	// timeout 1 s + grace 1 s; the shell's kill grace (2 s) has not passed.
	if elapsed < 2*time.Second || elapsed > 2800*time.Millisecond {
		t.Errorf("returned after %v, want about 2 s", elapsed)
	}
	runs, warns := rec.of(TypeRun), rec.of(TypeWarning)
	if len(runs) != 1 || runs[0].ExitCode != exitAbandoned || runs[0].Decision != "none" {
		t.Errorf("run events = %+v", runs)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Message, "abandoned") {
		t.Errorf("warnings = %+v", warns)
	}
	// The abandoned shell is still writing; the Runner must not touch it.
	// Its process group gets SIGKILL when the kill grace ends.
	waited := make(chan struct{})
	go func() { r.Wait(); close(waited) }()
	select {
	case <-waited:
		t.Logf("abandoned after %v; its shell ended after %v", elapsed, time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned hook was never killed")
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	r, rec := newRunner(t, t.TempDir(), Config{Event: Stop, Command: "sleep 10"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if got := r.Run(ctx, Input{Event: Stop}); !reflect.DeepEqual(got, Result{Ran: 1}) {
		t.Errorf("result = %+v", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %v", d)
	}
	if w := rec.of(TypeWarning); len(w) != 0 {
		t.Errorf("a cancelled turn is not the hook's fault: %+v", w)
	}
}

func TestIdenticalCommandsRunOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := "echo ran >> count.txt"
	r, rec := newRunner(t, dir,
		Config{Event: PreToolUse, Command: cmd},
		Config{Event: PreToolUse, Matcher: "^edit$", Command: cmd, Timeout: 5},
		Config{Event: PreToolUse, Command: "echo other >> other.txt"},
		Config{Event: PostToolUse, Command: cmd},
	)
	got := r.Run(context.Background(), pre("edit"))
	if got.Ran != 2 || len(rec.of(TypeRun)) != 2 {
		t.Errorf("ran %d hooks, events %+v", got.Ran, rec.of(TypeRun))
	}
	// Separate files: the interpreter's echo may write in pieces, so two
	// concurrent appends to one file could interleave.
	if got := readFile(t, filepath.Join(dir, "count.txt")); got != "ran\n" {
		t.Errorf("count.txt = %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "other.txt")); got != "other\n" {
		t.Errorf("other.txt = %q", got)
	}
}

func TestMatcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hooks, err := Parse([]byte(`[
		{"event":"PreToolUse","matcher":"^(edit|multiedit|write)$","command":"echo \"$AGENTLS_TOOL_NAME\" >> pre.txt"},
		{"event":"PostToolUse","matcher":"view","command":"echo \"$AGENTLS_TOOL_NAME\" >> post.txt"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := newRunner(t, dir, hooks...)
	for _, tool := range []string{"edit", "view", "multiedit", "write", "mcp_edit", "bash"} {
		r.Run(context.Background(), pre(tool))
		in := pre(tool)
		in.Event = PostToolUse
		r.Run(context.Background(), in)
	}
	if got := strings.Fields(readFile(t, filepath.Join(dir, "pre.txt"))); !reflect.DeepEqual(got, []string{"edit", "multiedit", "write"}) {
		t.Errorf("PreToolUse ran for %q", got)
	}
	// Matchers are unanchored, as in Go's regexp.MatchString.
	if got := strings.Fields(readFile(t, filepath.Join(dir, "post.txt"))); !reflect.DeepEqual(got, []string{"view"}) {
		t.Errorf("PostToolUse ran for %q", got)
	}

	_, err = Parse([]byte(`[{"event":"PreToolUse","matcher":"^(edit|write$","command":"true"}]`))
	if err == nil || !strings.Contains(err.Error(), "not a valid Go regular expression") {
		t.Errorf("invalid matcher is a config error: %v", err)
	}
}

// Hooks of an untrusted workspace never run; a marker file proves it.
func TestUntrustedWorkspaceNeverRuns(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ws := func(name string) json.RawMessage {
		b, _ := json.Marshal([]Config{
			{Event: SessionStart, Command: "touch " + name},
			{Event: PreToolUse, Command: "touch " + name + "; exit 2"},
		})
		return b
	}
	user := json.RawMessage(`[{"event":"SessionStart","command":"touch user-marker"}]`)
	src := []Source{
		{Name: "config.json", Hooks: user},
		{Name: filepath.Join(root, ".agentls.json"), Root: root, Hooks: ws("ws-marker")},
	}
	hooks, warnings, err := Collect(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], root) {
		t.Errorf("warnings = %q", warnings)
	}
	r, _ := newRunner(t, root, hooks...)
	r.Run(context.Background(), Input{Event: SessionStart})
	if res := r.Run(context.Background(), pre("edit")); res.Decision != NoOpinion {
		t.Errorf("untrusted hook decided: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "ws-marker")); !os.IsNotExist(err) {
		t.Errorf("untrusted workspace hook ran (stat err %v)", err)
	}
	if _, err := os.Stat(filepath.Join(root, "user-marker")); err != nil {
		t.Errorf("user hook did not run: %v", err)
	}

	// Control: the same file runs once the workspace is trusted.
	hooks, warnings, err = Collect(src, []string{root})
	if err != nil || len(warnings) != 0 {
		t.Fatal(warnings, err)
	}
	r, _ = newRunner(t, root, hooks...)
	r.Run(context.Background(), Input{Event: SessionStart})
	if _, err := os.Stat(filepath.Join(root, "ws-marker")); err != nil {
		t.Errorf("trusted workspace hook did not run: %v", err)
	}
}

func TestUserPromptSubmit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, _ := newRunner(t, dir,
		Config{Event: UserPromptSubmit, Command: `echo '{"context":"The build uses make."}'`},
		Config{Event: UserPromptSubmit, Command: `grep -q password && { echo 'do not paste passwords' >&2; exit 2; }; exit 0`},
	)
	got := r.Run(context.Background(), Input{Event: UserPromptSubmit, Prompt: "my password is hunter2"})
	if got.Decision != Deny || got.Reason != "do not paste passwords" || got.Context != "The build uses make." {
		t.Errorf("deny: %+v", got)
	}
	got = r.Run(context.Background(), Input{Event: UserPromptSubmit, Prompt: "fix the tests"})
	if got.Decision != NoOpinion || got.Context != "The build uses make." {
		t.Errorf("allow: %+v", got)
	}
}

func TestEnvAndStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, _ := newRunner(t, dir, Config{Event: PreToolUse, Command: `printf '%s|%s|%s' "$AGENTLS_HOOK_EVENT" "$AGENTLS_TOOL_NAME" "$AGENTLS" > env.txt; cat > stdin.json`},
		Config{Event: PostToolUseFailure, Command: `cat > post.json`},
		Config{Event: Stop, Command: `printf '%s|%s' "$AGENTLS_HOOK_EVENT" "${AGENTLS_TOOL_NAME-unset}" > stop-env.txt`},
	)
	r.Run(context.Background(), pre("edit"))
	if got := readFile(t, filepath.Join(dir, "env.txt")); got != "PreToolUse|edit|1" {
		t.Errorf("env = %q", got)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "stdin.json"))), &p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"event": "PreToolUse", "session_id": "s1", "turn_id": "t1", "cwd": dir, "tool_name": "edit", "tool_input": map[string]any{"file_path": "a.go"}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("stdin = %v\nwant %v", p, want)
	}

	in := pre("bash")
	in.Event, in.ToolResult, in.IsError = PostToolUseFailure, "exit status 1", true
	r.Run(context.Background(), in)
	p = nil
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "post.json"))), &p); err != nil {
		t.Fatal(err)
	}
	if p["tool_result"] != "exit status 1" || p["is_error"] != true || p["tool_name"] != "bash" {
		t.Errorf("post payload = %v", p)
	}

	r.Run(context.Background(), Input{Event: Stop, ToolName: "not shown"})
	if got := readFile(t, filepath.Join(dir, "stop-env.txt")); got != "Stop|unset" {
		t.Errorf("Stop env = %q", got)
	}
}

// A hook that never reads a payload larger than a pipe's buffer must not
// hang the run.
func TestLargeUnreadStdin(t *testing.T) {
	t.Parallel()
	big, _ := json.Marshal(map[string]string{"content": strings.Repeat("x", 1<<20)})
	r, _ := newRunner(t, t.TempDir(), Config{Event: PreToolUse, Command: `echo '{"decision":"allow"}'`},
		Config{Event: PreToolUse, Command: "/bin/sh -c 'exit 0'"})
	in := pre("write")
	in.ToolInput = big
	done := make(chan Result, 1)
	go func() { done <- r.Run(context.Background(), in) }()
	select {
	case got := <-done:
		if got.Decision != Allow {
			t.Errorf("result = %+v", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run hung on an unread payload")
	}
}

func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	r, rec := newRunner(t, t.TempDir(), Config{Event: PostToolUse, Command: `echo '{"context":"seen"}'`})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			in := pre("view")
			in.Event = PostToolUse
			if got := r.Run(context.Background(), in); got.Context != "seen" {
				t.Errorf("result = %+v", got)
			}
		})
	}
	wg.Wait()
	if n := len(rec.of(TypeRun)); n != 8 {
		t.Errorf("%d run events, want 8", n)
	}
}

// BenchmarkNoopHook is the overhead one no-op PreToolUse hook adds to a
// tool call: "builtin" is `true` run by the embedded shell, "process" is
// /bin/true, which forks a process as most real hooks do.
func BenchmarkNoopHook(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true program")
	}
	for _, c := range []struct{ name, cmd string }{{"builtin", "true"}, {"process", truePath}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			r, err := New([]Config{{Event: PreToolUse, Command: c.cmd}}, Options{Dir: func() string { return dir }})
			if err != nil {
				b.Fatal(err)
			}
			in := pre("edit")
			ctx := context.Background()
			for b.Loop() {
				if res := r.Run(ctx, in); res.Ran != 1 || res.Decision != NoOpinion {
					b.Fatal(res)
				}
			}
		})
	}
}
