package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// confinedStatus reads what /proc says of a process: a confined one has
// no_new_privs, a seccomp filter and no capabilities.
func confinedStatus(t *testing.T, pid int) (nnp, seccomp, caps string) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("status of %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "NoNewPrivs":
			nnp = strings.TrimSpace(v)
		case "Seccomp":
			seccomp = strings.TrimSpace(v)
		case "CapEff":
			caps = strings.TrimSpace(v)
		}
	}
	return
}

// TestEverythingTheEnvironmentStartsIsConfined: a command, a background
// job, a hook and an MCP stdio server of one environment all run with
// no_new_privs, the seccomp filter and no capabilities, and write only in
// the workspace.
func TestEverythingTheEnvironmentStartsIsConfined(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	// The write outside is a program's own, which the judge cannot see.
	probe := `grep -E '^(NoNewPrivs|Seccomp|CapEff):' /proc/self/status > ` + root + `/%s.status; python3 -c "open('` + outside + `/%s.escaped', 'w')"; true`
	hook := strings.ReplaceAll(probe, "%s", "hook")
	hooksJSON, _ := json.Marshal([]map[string]any{{"event": "PreToolUse", "command": hook}})
	// The MCP "server" records its status and then serves nothing; its
	// startup_timeout reports it as failed, which is fine here.
	server := config.MCPServers{"probe": {Command: []string{"sh", "-c", strings.ReplaceAll(probe, "%s", "mcp") + "; sleep 30"}, StartupTimeout: "2s", From: "test"}}
	steps := []agent.Response{
		{ToolCalls: []agent.ToolCall{toolCall("c1", "bash", map[string]any{"command": strings.ReplaceAll(probe, "%s", "bash")})}},
		{ToolCalls: []agent.ToolCall{toolCall("c2", "bash", map[string]any{"command": strings.ReplaceAll(probe, "%s", "job"), "run_in_background": true})}},
	}
	prov := &script{steps: steps}
	a := app.New(app.Options{
		Config: config.Config{Model: "test:script", MCP: server, Hooks: hooksJSON,
			Permissions: config.Permissions{Mode: "auto"}},
		DataDir: t.TempDir(), StateDir: t.TempDir(),
		Getenv:      func(string) string { return "" },
		NewProvider: func(string, string) (agent.Provider, error) { return prov, nil },
	})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if !env.Sandbox().Confined() {
		t.Fatalf("the environment's sandbox does not confine: %s", env.Sandbox().Status().Reason)
	}
	turnEvents(t, env, nil, "probe")
	for _, who := range []string{"bash", "job", "hook", "mcp"} {
		eventually(t, who+" wrote its status", func() bool {
			_, err := os.Stat(filepath.Join(root, who+".status"))
			return err == nil
		})
		b, _ := os.ReadFile(filepath.Join(root, who+".status"))
		s := string(b)
		if !strings.Contains(s, "NoNewPrivs:\t1") || !strings.Contains(s, "Seccomp:\t2") || !strings.Contains(s, "CapEff:\t0000000000000000") {
			t.Errorf("%s is not confined:\n%s", who, s)
		}
		if _, err := os.Stat(filepath.Join(outside, who+".escaped")); err == nil {
			t.Errorf("%s wrote outside the workspace", who)
		}
	}
}

// TestLanguageServerIsConfined: gopls, started by the environment for the
// lsp_* tools, runs confined.
func TestLanguageServerIsConfined(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for name, text := range map[string]string{"go.mod": "module m\n\ngo 1.26\n", "m.go": "package m\n\nfunc F() int { return 1 }\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := mcpApp(t, nil, nil, []string{root}, "smart",
		agent.Response{ToolCalls: []agent.ToolCall{toolCall("d1", "lsp_diagnostics", map[string]any{"file_path": "m.go"})}})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	evs, _ := turnEvents(t, env, nil, "diagnose")
	if got, isErr := resultOf(evs, "d1"); isErr {
		t.Fatalf("lsp_diagnostics in the sandbox: %s", got)
	}
	m, err := env.LSP().Manager()
	if err != nil {
		t.Fatal(err)
	}
	clients := m.Clients()
	if len(clients) == 0 {
		t.Fatal("no language server runs")
	}
	for _, c := range clients {
		pid := c.PID()
		nnp, sc, caps := confinedStatus(t, pid)
		if nnp != "1" || sc != "2" || caps != "0000000000000000" {
			t.Errorf("%s (pid %d): NoNewPrivs %s, Seccomp %s, CapEff %s", c.Name(), pid, nnp, sc, caps)
		}
	}
}

// eventually waits (a bounded time) for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
