//go:build unix

package mcp

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
)

// TestStuckServerIsRestarted: the reference server (server-everything)
// stopped with SIGSTOP in the middle of a long call. The call ends within
// the liveness bound (not the tool's 60 s, nor tool_timeout) saying the
// server stopped answering; the person is told; the stopped process is
// killed; the next use starts the server again. A server that is merely
// busy answers its pings, and its long call completes.
func TestStuckServerIsRestarted(t *testing.T) {
	needProgram(t, "npx", "apt-get install -y npm")
	needProgram(t, "mcp-server-everything", installEverything)
	f := newFixture(t, config.MCPServers{"everything": {Command: []string{"mcp-server-everything"}, PingTimeout: "1s", From: "test config"}}, false)
	ctx := context.Background()
	ts := f.tools(t)
	long := mustTool(t, ts, "mcp_everything_trigger-long-running-operation")

	// Busy, not stuck: three quiet seconds, pings answered.
	res := run(t, ctx, long, `{"duration":3,"steps":3}`)
	if res.IsError || !strings.Contains(res.Content, "Long running operation completed") {
		t.Fatalf("a 3 s call with a 1 s ping_timeout = %+v, want it completed", res)
	}

	pid := f.pidOf("everything")
	if !alive(pid) {
		t.Fatalf("no server process (pid %d)", pid)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		time.Sleep(500 * time.Millisecond)
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Errorf("SIGSTOP: %v", err)
		}
	}()
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	start := time.Now()
	res = run(t, ctx, long, `{"duration":60,"steps":60}`)
	took := time.Since(start)
	t.Logf("the call to the stopped server ended after %v", took)
	<-stopped
	if !res.IsError || !strings.Contains(res.Content, "MCP server everything stopped answering during the call") ||
		!strings.Contains(res.Content, "starts again at the next call") {
		t.Errorf("the call to a stopped server = %+v, want an error telling the model it stopped answering", res)
	}
	// The liveness bound is two ping_timeouts after the stop; the tool
	// itself would take 60 s.
	if took > 30*time.Second {
		t.Errorf("the call took %v: it waited for the stopped server", took)
	}
	eventually(t, "the stopped server's process is killed", func() bool { return !alive(pid) })

	ts = f.tools(t) // the notices reach the session with the next listing
	if !f.noticed("server everything stopped answering", "no answer to a ping within 1s during a call of trigger-long-running-operation", "ping_timeout of mcp.everything in test config") {
		t.Errorf("notices = %q, want the person told", f.notes)
	}
	if np := f.pidOf("everything"); np == 0 || np == pid {
		t.Fatalf("not started again (pid %d, was %d)", np, pid)
	}
	if res := run(t, ctx, mustTool(t, ts, "mcp_everything_echo"), `{"message":"back"}`); res.IsError || res.Content != "Echo: back" {
		t.Errorf("echo after the restart = %+v", res)
	}
}
