package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func newShellTools(t *testing.T) (*ShellEnv, *Workspace, string) {
	t.Helper()
	ws, root := newTestWS(t, nil)
	env := NewShellEnv(ws, t.TempDir())
	t.Cleanup(func() { env.Close() })
	return env, ws, root
}

func describe(t *testing.T, tool Tool, input any) (req any, err error) {
	t.Helper()
	raw, _ := json.Marshal(input)
	r, err := tool.Describe(context.Background(), Call{Input: raw})
	return r, err
}

func TestBashDescribe(t *testing.T) {
	env, _, root := newShellTools(t)
	writeFiles(t, root, map[string]string{"a.txt": "x", "sub/b.txt": "y"})
	bash := NewBashTool(env)
	tests := []struct {
		cmd, dir    string
		readOnly    bool
		outside     bool
		blocked     bool
		fingerprint string
		errText     string
	}{
		{cmd: "ls -la", readOnly: true, fingerprint: "ls"},
		{cmd: "cat a.txt", readOnly: true, fingerprint: "cat"},
		{cmd: "cat /etc/passwd", readOnly: true, outside: true}, // a read outside: asked, never granted
		{cmd: "cat ../../outside", readOnly: true, outside: true},
		{cmd: "cp a.txt /tmp/elsewhere.txt", outside: true}, // a write outside: blocked in every mode
		{cmd: "echo x > ../escape.txt", outside: true},
		{cmd: "git status", readOnly: true, fingerprint: "git status"},
		{cmd: "go test ./...", fingerprint: "go test"},
		{cmd: "rm -rf build"},
		{cmd: "curl https://example.com", blocked: true},
		{cmd: "echo hi | sh -c 'sudo ls'", blocked: true},
		{cmd: "ls", dir: "sub", readOnly: true, fingerprint: "ls"},
		{cmd: "ls", dir: "/", errText: "outside the workspace"},
		{cmd: "ls", dir: "nope", errText: "not an existing folder"},
		{cmd: "if then fi (", errText: "does not parse"},
		{cmd: "  ", errText: "command is required"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd+"@"+tt.dir, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]any{"command": tt.cmd, "working_dir": tt.dir})
			req, err := bash.Describe(context.Background(), Call{Input: raw})
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.ReadOnly != tt.readOnly || req.OutsideRoots != tt.outside || (req.Blocked != "") != tt.blocked || req.Fingerprint != tt.fingerprint {
				t.Errorf("req = readOnly %v outside %v blocked %q fingerprint %q; want %v %v %v %q", req.ReadOnly, req.OutsideRoots, req.Blocked, req.Fingerprint, tt.readOnly, tt.outside, tt.blocked, tt.fingerprint)
			}
			if req.Capability != "shell.exec" || !strings.Contains(req.Summary, "`"+strings.TrimSpace(tt.cmd)+"`") {
				t.Errorf("capability %q summary %q", req.Capability, req.Summary)
			}
		})
	}
}

func TestBashRun(t *testing.T) {
	env, _, root := newShellTools(t)
	writeFiles(t, root, map[string]string{"a.txt": "hello file\n"})
	bash := NewBashTool(env)
	t.Setenv("AGENTLS_SECRET_THING", "s3cret")
	t.Setenv("OPENAI_API_KEY", "sk-nope")

	res := callTool(t, bash, map[string]any{"command": "cat a.txt; echo err >&2; exit 3"})
	for _, want := range []string{"<stdout>\nhello file\n</stdout>", "<stderr>\nerr\n</stderr>", "Exit code: 3"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}
	res = callTool(t, bash, map[string]any{"command": "env"})
	if strings.Contains(res.Content, "s3cret") || strings.Contains(res.Content, "sk-nope") || !strings.Contains(res.Content, "AGENTLS=1") {
		t.Errorf("environment not scrubbed:\n%s", res.Content)
	}
	// Blocked at run time even when hidden from the static judge.
	res = callTool(t, bash, map[string]any{"command": "c=cur; ${c}l --version; echo after"})
	if !strings.Contains(res.Content, "blocked") || !strings.Contains(res.Content, "after") {
		t.Errorf("runtime block:\n%s", res.Content)
	}
	// Truncation saves the full output.
	res = callTool(t, bash, map[string]any{"command": "for i in $(seq 1 20000); do echo 行$i; done"})
	if !strings.Contains(res.Content, "lines truncated") || !strings.Contains(res.Content, "full output is saved in") {
		t.Fatalf("no truncation:\n%.300s", res.Content)
	}
	saved := res.Content[strings.LastIndex(res.Content, "saved in ")+len("saved in "):]
	saved = strings.TrimSuffix(saved, " (view or grep it).")
	data, err := os.ReadFile(saved)
	if err != nil || !strings.Contains(string(data), "行20000") {
		t.Errorf("full output file %q: %v", saved, err)
	}
}

func TestBashBackgroundJobs(t *testing.T) {
	env, _, _ := newShellTools(t)
	bash, out, kill := NewBashTool(env), NewJobOutputTool(env), NewJobKillTool(env)

	res := callTool(t, bash, map[string]any{"command": "sleep 2; echo finished", "auto_background_after": 1})
	if !strings.Contains(res.Content, "background job shell-1") {
		t.Fatalf("auto-background: %s", res.Content)
	}
	res = callTool(t, out, map[string]any{"shell_id": "shell-1", "wait": true})
	if !strings.Contains(res.Content, "finished") || !strings.Contains(res.Content, "Exit code: 0") {
		t.Errorf("job_output after wait: %s", res.Content)
	}

	// run_in_background catches a fast failure within the probe second.
	res = callTool(t, bash, map[string]any{"command": "echo oops >&2; exit 4", "run_in_background": true})
	if !strings.Contains(res.Content, "oops") || !strings.Contains(res.Content, "Exit code: 4") {
		t.Errorf("fast background failure: %s", res.Content)
	}

	res = callTool(t, bash, map[string]any{"command": "sleep 100", "run_in_background": true})
	if !strings.Contains(res.Content, "Started background job") {
		t.Fatalf("background start: %s", res.Content)
	}
	id := strings.Fields(res.Content[strings.Index(res.Content, "shell-"):])[0]
	id = strings.TrimSuffix(id, ".")
	res = callTool(t, out, map[string]any{"shell_id": id})
	if !strings.Contains(res.Content, "still running") {
		t.Errorf("job_output of a running job: %s", res.Content)
	}
	start := time.Now()
	res = callTool(t, kill, map[string]any{"shell_id": id})
	if res.IsError || time.Since(start) > 5*time.Second {
		t.Errorf("job_kill: %s after %s", res.Content, time.Since(start))
	}
	res = callTool(t, out, map[string]any{"shell_id": id})
	if !res.IsError || !strings.Contains(res.Content, "no background job") {
		t.Errorf("job_output after kill: %s", res.Content)
	}
	if _, err := describe(t, out, map[string]any{"shell_id": "x", "wait": "soon"}); err == nil {
		t.Error("bad wait accepted")
	}
}

func TestBashCancelKillsForeground(t *testing.T) {
	env, _, _ := newShellTools(t)
	bash := NewBashTool(env)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	raw, _ := json.Marshal(map[string]any{"command": "sleep 100"})
	start := time.Now()
	res, err := bash.Run(ctx, Call{Input: raw})
	if err != nil || !strings.Contains(res.Content, "cancelled") {
		t.Errorf("cancelled run: %+v %v", res, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %s", d)
	}
}

// BenchmarkBashTrue compares `bash {command: "true"}` through the tool with
// starting `/bin/sh -c true` as a process, in the same run; the ratio is
// reported on the tool sub-benchmark via ns/op of both.
func BenchmarkBashTrue(b *testing.B) {
	ws, err := NewWorkspace([]string{b.TempDir()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	env := NewShellEnv(ws, b.TempDir())
	defer env.Close()
	bash := NewBashTool(env)
	raw := json.RawMessage(`{"command":"true"}`)
	b.Run("tool", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if res, err := bash.Run(context.Background(), Call{Input: raw}); err != nil || !strings.Contains(res.Content, "Exit code: 0") {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("sh-process", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
