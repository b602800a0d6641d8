package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

func TestStdioServerTools(t *testing.T) {
	f := newFixture(t, config.MCPServers{"self": selfServer(t, map[string]string{"GREETING": "${WHO} says hi", "DEFAULTED": "${NOPE:-fallback}"})}, false)
	f.env["WHO"] = "alice"
	ctx := context.Background()
	ts := f.tools(t)
	for _, name := range []string{"mcp_self_whereami", "mcp_self_env", "mcp_self_wait", "mcp_self_die", "mcp_self_grow", "mcp_self_fail", "mcp_self_big"} {
		mustTool(t, ts, name)
	}
	if len(f.notes) != 0 {
		t.Errorf("notices = %q, want none", f.notes)
	}
	where := mustTool(t, ts, "mcp_self_whereami")
	if s := where.Spec(); s.Capability != "mcp.self.whereami" || !s.ReadOnly || s.Action != permission.ActionRead ||
		!strings.Contains(s.Description, "Says the server's working folder.") || !strings.Contains(s.Description, "MCP server self") {
		t.Errorf("whereami spec = %+v", s)
	}
	// The person's own server runs in the (trusted) workspace folder.
	if res := run(t, ctx, where, `{}`); res.IsError || res.Content != "cwd="+f.root {
		t.Errorf("whereami = %+v, want cwd=%s", res, f.root)
	}
	// ${VAR} and ${VAR:-default} in env.
	env := mustTool(t, ts, "mcp_self_env")
	if res := run(t, ctx, env, `{"name":"GREETING"}`); res.Content != "GREETING=alice says hi" {
		t.Errorf("env GREETING = %q", res.Content)
	}
	if res := run(t, ctx, env, `{"name":"DEFAULTED"}`); res.Content != "DEFAULTED=fallback" {
		t.Errorf("env DEFAULTED = %q", res.Content)
	}
	// Input is checked against the server's schema before anything runs.
	if _, err := env.Describe(ctx, tools.Call{Input: []byte(`{"name": 3}`)}); err == nil || !strings.Contains(err.Error(), "name") {
		t.Errorf("Describe with a number for name = %v, want a schema error naming it", err)
	}
	// isError is a tool error; a long result is cut and kept in full.
	if res := run(t, ctx, mustTool(t, ts, "mcp_self_fail"), `{}`); !res.IsError || res.Content != "the thing is broken" {
		t.Errorf("fail = %+v, want an error result", res)
	}
	big := run(t, ctx, mustTool(t, ts, "mcp_self_big"), `{}`)
	if len(big.Content) > 40000 || !strings.Contains(big.Content, "lines truncated") || !strings.Contains(big.Content, "The full result is saved in ") {
		t.Errorf("big result: %d characters, want it cut with the path of the full text", len(big.Content))
	}
}

func TestDescribeFromAnnotations(t *testing.T) {
	f := newFixture(t, config.MCPServers{"self": selfServer(t, nil)}, false)
	ts := f.tools(t)
	ctx := context.Background()
	tests := []struct {
		tool                                string
		readOnly, openWorld, alwaysWithheld bool
	}{
		{"mcp_self_whereami", true, false, false}, // readOnlyHint, openWorldHint false
		{"mcp_self_grow", false, false, false},    // destructiveHint false
		{"mcp_self_die", false, true, true},       // no annotations: open world, destructive
	}
	for _, tc := range tests {
		r, err := mustTool(t, ts, tc.tool).Describe(ctx, tools.Call{Input: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if r.ReadOnly != tc.readOnly || r.OpenWorld != tc.openWorld || (r.NoAlways != "") != tc.alwaysWithheld || !r.WholeTool {
			t.Errorf("%s: request %+v, want read-only %v, open world %v, Always allow withheld %v", tc.tool, r, tc.readOnly, tc.openWorld, tc.alwaysWithheld)
		}
		if !strings.Contains(r.Summary, "on the MCP server self") {
			t.Errorf("%s: summary %q", tc.tool, r.Summary)
		}
	}
	if !f.m.Known("mcp.self.die") || f.m.Known("mcp.self.nothing") || f.m.Known("mcp.other.die") {
		t.Errorf("Known: want exactly the listed tools' capabilities")
	}
}

func TestToolListChanged(t *testing.T) {
	f := newFixture(t, config.MCPServers{"self": selfServer(t, nil)}, false)
	ctx := context.Background()
	ts := f.tools(t)
	if _, ok := ts["mcp_self_late"]; ok {
		t.Fatal("late is there before it was added")
	}
	run(t, ctx, mustTool(t, ts, "mcp_self_grow"), `{}`)
	// The notification arrives on its own; the next step lists again.
	var late tools.Tool
	eventually(t, "the late tool is offered", func() bool {
		late = f.tools(t)["mcp_self_late"]
		return late != nil
	})
	if res := run(t, ctx, late, `{}`); res.Content != "late tool ran" {
		t.Errorf("late = %+v", res)
	}
	if !f.m.Known("mcp.self.late") {
		t.Error("the late tool's capability is not known")
	}
}

func TestCancellationReachesTheServer(t *testing.T) {
	f := newFixture(t, config.MCPServers{"self": selfServer(t, nil)}, false)
	ts := f.tools(t)
	pid := f.pidOf("self")
	mark := filepath.Join(f.root, "cancelled") // the sandbox lets the server write only there
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := mustTool(t, ts, "mcp_self_wait").Run(ctx, tools.Call{Input: []byte(`{"mark":"` + mark + `"}`)})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("Run = %v after %v, want the cancellation soon", err, time.Since(start))
	}
	eventually(t, "the server saw notifications/cancelled", func() bool {
		b, _ := os.ReadFile(mark)
		return string(b) == "cancelled"
	})
	// The end of a call closes nothing shared: the same process answers.
	if res := run(t, context.Background(), mustTool(t, f.tools(t), "mcp_self_whereami"), `{}`); res.IsError || f.pidOf("self") != pid {
		t.Errorf("after the cancelled call: %+v, pid %d (was %d); want the same server", res, f.pidOf("self"), pid)
	}
}

func TestCrashRestartsWithACap(t *testing.T) {
	f := newFixture(t, config.MCPServers{"self": selfServer(t, nil)}, false)
	ctx := context.Background()
	ts := f.tools(t)
	for i := 1; i <= maxRestarts+1; i++ {
		pid := f.pidOf("self")
		res := run(t, ctx, mustTool(t, ts, "mcp_self_die"), `{}`)
		if !res.IsError || !strings.Contains(res.Content, "MCP server self") {
			t.Errorf("crash %d: die = %+v, want an error naming the server", i, res)
		}
		eventually(t, "the crash is noticed", func() bool {
			s := f.m.server("self")
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.state == stateDown
		})
		ts = f.tools(t) // restarts it, or not
		if i <= maxRestarts {
			if np := f.pidOf("self"); np == pid || np == 0 || len(ts) == 0 {
				t.Fatalf("crash %d: not restarted (pid %d, was %d)", i, np, pid)
			}
			continue
		}
		if len(ts) != 0 {
			t.Fatalf("crash %d: restarted beyond the cap of %d", i, maxRestarts)
		}
	}
	if !f.noticed("server self stopped", "exit status 7", "dying as asked") ||
		!f.noticed("server self is not restarted for now", "stopped 4 times within a minute", "mcp.self in test config") {
		t.Errorf("notices = %q, want each crash and the crash loop reported", f.notes)
	}
}

func TestFailingServersAreReportedAndTheRestWorks(t *testing.T) {
	f := newFixture(t, config.MCPServers{
		"self":  selfServer(t, nil),
		"quits": {Command: []string{"sh", "-c", "echo 'no config here' >&2; exit 3"}, From: "test config"},
		"mute":  {Command: []string{"sleep", "60"}, StartupTimeout: "500ms", From: "test config"},
		"token": {URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer ${MISSING_TOKEN}"}, From: "test config"},
	}, false)
	start := time.Now()
	ts := f.tools(t)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the first listing took %v; a server that does not answer must be given up on at its startup_timeout", took)
	}
	mustTool(t, ts, "mcp_self_whereami")
	if len(ts) != 7 {
		t.Errorf("%d tools, want only self's 7", len(ts))
	}
	for _, want := range [][]string{
		{"server quits failed to start", "exit status 3", "no config here", "check mcp.quits in test config"},
		{"server mute failed to start", "no answer within 500ms (startup_timeout"},
		{"server token failed to start", "MISSING_TOKEN is not set"},
	} {
		if !f.noticed(want...) {
			t.Errorf("no notice with %q in %q", want, f.notes)
		}
	}
	// A failed server is not retried at every step.
	n := len(f.notes)
	f.tools(t)
	if len(f.notes) != n {
		t.Errorf("the next step gave notices again: %q", f.notes[n:])
	}
	// A new session (Configure) tries it again.
	f.m.Configure(config.MCPServers{"self": selfServer(t, nil), "quits": f.m.server("quits").cfg})
	f.tools(t)
	if !f.noticed("server quits failed to start") || len(f.notes) == n {
		t.Errorf("Configure did not retry the failed server")
	}
}

func TestUntrustedWorkspaceKeepsTheServerOut(t *testing.T) {
	f := newFixture(t, config.MCPServers{"self": selfServer(t, nil)}, true)
	home, _ := os.UserHomeDir()
	home, _ = filepath.EvalSymlinks(home)
	// The person's own server does not start in the untrusted folder.
	if res := run(t, context.Background(), mustTool(t, f.tools(t), "mcp_self_whereami"), `{}`); res.Content != "cwd="+home {
		t.Errorf("whereami = %q, want the home folder %s, not the workspace", res.Content, home)
	}
	// A program the workspace ships is not run, even when PATH finds it first.
	bin := filepath.Join(f.root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(bin, "repo-server"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.m.Configure(config.MCPServers{"repo": {Command: []string{"repo-server"}, Env: map[string]string{"PATH": bin + ":/usr/bin:/bin"}, From: "test config"}})
	f.tools(t)
	if !f.noticed("server repo failed to start", `"repo-server" is found only inside a folder you have not trusted`) {
		t.Errorf("notices = %q", f.notes)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the workspace's program ran")
	}
}

func TestCloseEndsTheProcesses(t *testing.T) {
	f := newFixture(t, config.MCPServers{"self": selfServer(t, nil)}, false)
	f.tools(t)
	pid := f.pidOf("self")
	if !alive(pid) {
		t.Fatalf("server pid %d is not running", pid)
	}
	f.m.Close()
	if alive(pid) {
		t.Errorf("server %d still runs after Close", pid)
	}
	if ts := f.tools(t); len(ts) != 0 {
		t.Errorf("after Close: %d tools", len(ts))
	}
	// Configure after Close starts nothing.
	f.m.Configure(config.MCPServers{"self": selfServer(t, nil)})
	if ts := f.tools(t); len(ts) != 0 {
		t.Errorf("Configure after Close: %d tools", len(ts))
	}
}
