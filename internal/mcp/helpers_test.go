package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/sandbox/sandboxtest"
	"github.com/agentls/agentls/internal/tools"
)

// fixture is a manager over one temporary workspace folder.
type fixture struct {
	m       *Manager
	root    string
	src     tools.Source
	mu      sync.Mutex
	env     map[string]string
	trusted bool
	notes   []string
}

// newFixture makes a manager with the servers, the workspace trusted
// unless untrusted is set.
func newFixture(t *testing.T, servers config.MCPServers, untrusted bool) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: root, env: map[string]string{}, trusted: !untrusted}
	f.m = NewManager(Options{
		Roots:   func() []string { return []string{root} },
		Trusted: func(string) bool { return f.trusted },
		Getenv: func(k string) string {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.env[k]
		},
		OutputDir: t.TempDir(),
		// The servers run confined, as they do for a person.
		Sandbox: sandboxtest.New(t, root),
	})
	t.Cleanup(f.m.Close)
	f.m.Configure(servers)
	f.src = f.m.Source()
	return f
}

// tools reads the tools as a registry's Refresh does, keeping the notices.
func (f *fixture) tools(t *testing.T) map[string]tools.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ts, notes := f.src.Tools(ctx)
	f.notes = append(f.notes, notes...)
	out := map[string]tools.Tool{}
	for _, tl := range ts {
		out[tl.Spec().Name] = tl
	}
	return out
}

// noticed reports whether some notice so far has all parts.
func (f *fixture) noticed(parts ...string) bool {
	return slices.ContainsFunc(f.notes, func(n string) bool {
		for _, p := range parts {
			if !strings.Contains(n, p) {
				return false
			}
		}
		return true
	})
}

// run describes and runs a call the way the agent does (without a gate).
func run(t *testing.T, ctx context.Context, tl tools.Tool, input string) tools.Result {
	t.Helper()
	call := tools.Call{ID: "c", SessionID: "s", Input: json.RawMessage(input)}
	if _, err := tl.Describe(ctx, call); err != nil {
		t.Fatalf("%s: Describe(%s) = %v", tl.Spec().Name, input, err)
	}
	res, err := tl.Run(ctx, call)
	if err != nil {
		t.Fatalf("%s: Run(%s) = %v", tl.Spec().Name, input, err)
	}
	return res
}

// mustTool returns the named tool or fails, listing what there is.
func mustTool(t *testing.T, ts map[string]tools.Tool, name string) tools.Tool {
	t.Helper()
	tl, ok := ts[name]
	if !ok {
		t.Fatalf("no tool %s; tools: %v", name, slices.Sorted(func(yield func(string) bool) {
			for k := range ts {
				if !yield(k) {
					return
				}
			}
		}))
	}
	return tl
}

// selfServer is the test binary as a stdio server, with extra env.
func selfServer(t *testing.T, env map[string]string) config.MCPServer {
	e := map[string]string{testServerEnv: "1"}
	for k, v := range env {
		e[k] = v
	}
	return config.MCPServer{Command: selfCommand(t), Env: e, From: "test config"}
}

// pidOf is the process id of a running stdio server, 0 when none.
func (f *fixture) pidOf(name string) int {
	s := f.m.server(name)
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn.proc == nil {
		return 0
	}
	return s.conn.proc.Pid()
}

// alive reports whether a process runs (a zombie counts as ended: its
// parent, the test, has not reaped it only when something is wrong).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// eventually waits up to ten seconds for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}
