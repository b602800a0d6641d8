package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
)

// MCP servers through the whole stack: settings, trust, the registry,
// the gate and the turn loop, with a scripted model.

// script is a provider that plays responses in order, then says "done".
type script struct {
	mu    sync.Mutex
	steps []agent.Response
	reqs  []agent.Request
	// hold, when set, keeps each request waiting until it is closed (or
	// the request cancelled), with a value sent on holding when it starts.
	hold, holding chan struct{}
}

func (s *script) Name() string { return "test:script" }

func (s *script) Complete(ctx context.Context, req agent.Request, _ agent.Stream) (agent.Response, error) {
	s.mu.Lock()
	hold, holding := s.hold, s.holding
	s.mu.Unlock()
	if hold != nil {
		holding <- struct{}{}
		select {
		case <-hold:
		case <-ctx.Done():
			return agent.Response{}, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if len(s.steps) == 0 {
		return agent.Response{Text: "done"}, nil
	}
	r := s.steps[0]
	s.steps = s.steps[1:]
	return r, nil
}

func (s *script) offered() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]string
	for _, r := range s.reqs {
		var names []string
		for _, d := range r.Tools {
			names = append(names, d.Name)
		}
		out = append(out, names)
	}
	return out
}

func toolCall(id, name string, input any) agent.ToolCall {
	b, _ := json.Marshal(input)
	return agent.ToolCall{ID: id, Name: name, Input: b}
}

// askLog is an asker that records the questions and answers with answer.
type askLog struct {
	mu     sync.Mutex
	answer permission.Answer
	qs     []permission.Question
}

func (a *askLog) Ask(_ context.Context, q permission.Question) (permission.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.qs = append(a.qs, q)
	return a.answer, nil
}

func (a *askLog) questions() []permission.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.qs)
}

// mcpApp is an app with the built-in tools, the servers, the rules and
// the trusted folders given, whose model plays steps.
func mcpApp(t *testing.T, servers config.MCPServers, rules map[string]string, trusted []string, mode string, steps ...agent.Response) (*app.App, *script) {
	t.Helper()
	prov := &script{steps: steps}
	a := app.New(app.Options{
		Config:  config.Config{Model: "test:script", MCP: servers, TrustedWorkspaces: trusted, Permissions: config.Permissions{Rules: rules}},
		DataDir: t.TempDir(), StateDir: t.TempDir(), ModeFlag: mode,
		Getenv:      func(string) string { return "" },
		NewProvider: func(string, string) (agent.Provider, error) { return prov, nil },
	})
	return a, prov
}

// turnEvents runs one turn and returns its events.
func turnEvents(t *testing.T, env *app.Env, asker permission.Asker, prompt string) ([]agent.Event, agent.Result) {
	t.Helper()
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Asker: asker, Channel: "editor", Models: nil})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var evs []agent.Event
	turn, err := sess.Start(context.Background(), prompt, func(e agent.Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-turn.Done():
	case <-time.After(2 * time.Minute):
		t.Fatal("the turn did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(evs), turn.Wait()
}

// resultOf is the content of the tool result answering call id.
func resultOf(evs []agent.Event, id string) (string, bool) {
	for _, e := range evs {
		if e.Type == agent.EventToolResult && e.ID == id && e.Content != nil {
			return *e.Content, e.IsError != nil && *e.IsError
		}
	}
	return "", false
}

func needNPM(t *testing.T, program, pkg string) {
	t.Helper()
	for _, p := range []string{"npx", program} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not on PATH; install it with `npm install -g %s` (scripts/test does)", p, pkg)
		}
	}
}

func TestFilesystemServerThroughTheGate(t *testing.T) {
	needNPM(t, "mcp-server-filesystem", "@modelcontextprotocol/server-filesystem@2026.8.31")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	notes := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(notes, []byte("the meeting is on Tuesday\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// As a person writes it in the user config: npx, the package, the folder.
	fs := config.MCPServers{"fs": {Command: []string{"npx", "--no", "@modelcontextprotocol/server-filesystem", root}, From: "test config"}}
	read := toolCall("r1", "mcp_fs_read_text_file", map[string]string{"path": notes})
	write := toolCall("w1", "mcp_fs_write_file", map[string]string{"path": notes, "content": "changed\n"})

	// Smart mode: the read runs unasked, the write is asked (and denied).
	a, prov := mcpApp(t, fs, nil, nil, "smart", agent.Response{ToolCalls: []agent.ToolCall{read}}, agent.Response{ToolCalls: []agent.ToolCall{write}})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	asker := &askLog{answer: permission.AnswerDeny}
	evs, res := turnEvents(t, env, asker, "read my notes, then change them")
	if got, isErr := resultOf(evs, "r1"); isErr || !strings.Contains(got, "the meeting is on Tuesday") {
		t.Errorf("read result = %q (error %v)", got, isErr)
	}
	qs := asker.questions()
	if len(qs) != 1 || qs[0].Request.Tool != "mcp_fs_write_file" {
		t.Fatalf("questions = %+v, want one, about write_file", qs)
	}
	q := qs[0]
	if !strings.Contains(q.Message, `"Write File" (write_file on the MCP server fs)`) || !strings.Contains(q.Message, `"content":"changed\n"`) ||
		!strings.Contains(q.Message, "not offered: Always allow") {
		t.Errorf("question = %q, want the tool's title, its arguments and why Always allow is missing", q.Message)
	}
	if q.Title(permission.AnswerAllowAlways) != "" || q.Title(permission.AnswerAllowSession) != "Allow mcp_fs_write_file this session" {
		t.Errorf("choices = %+v: a destructive tool gets no Always allow", q.Choices)
	}
	if res.Reason != agent.ReasonDenied {
		t.Errorf("turn ended %q, want denied", res.Reason)
	}
	if b, _ := os.ReadFile(notes); string(b) != "the meeting is on Tuesday\n" {
		t.Errorf("the denied write happened: %q", b)
	}
	if offered := prov.offered(); len(offered) == 0 || !slices.Contains(offered[0], "mcp_fs_write_file") || !slices.Contains(offered[0], "view") {
		t.Errorf("first step offered %v, want the built-in and the MCP tools", offered)
	}
	env.Close()

	// An allow rule for mcp.fs.* lets the write run unasked.
	a, _ = mcpApp(t, fs, map[string]string{"mcp.fs.*": "allow"}, nil, "smart", agent.Response{ToolCalls: []agent.ToolCall{write}})
	env, err = a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	asker = &askLog{answer: permission.AnswerDeny}
	evs, _ = turnEvents(t, env, asker, "change them")
	if got, isErr := resultOf(evs, "w1"); isErr || !strings.Contains(got, "Successfully wrote") || len(asker.questions()) != 0 {
		t.Errorf("write with the rule: %q (error %v), %d questions", got, isErr, len(asker.questions()))
	}
	if b, _ := os.ReadFile(notes); string(b) != "changed\n" {
		t.Errorf("notes = %q after the allowed write", b)
	}
}

func TestApproveModeAsksForMCPReads(t *testing.T) {
	needNPM(t, "mcp-server-everything", "@modelcontextprotocol/server-everything@2026.8.31")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	srv := config.MCPServers{"everything": {Command: []string{"mcp-server-everything"}, From: "test config"}}
	echo := toolCall("e1", "mcp_everything_echo", map[string]string{"message": "hi"})
	a, _ := mcpApp(t, srv, nil, nil, "approve", agent.Response{ToolCalls: []agent.ToolCall{echo}}, agent.Response{ToolCalls: []agent.ToolCall{echo}})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	asker := &askLog{answer: permission.AnswerAllow}
	evs, _ := turnEvents(t, env, asker, "echo twice")
	if got, _ := resultOf(evs, "e1"); got != "Echo: hi" {
		t.Errorf("echo = %q", got)
	}
	if qs := asker.questions(); len(qs) != 2 || qs[0].Title(permission.AnswerAllowSession) != "" {
		t.Errorf("approve mode: %d questions (%+v), want both calls asked with no grants offered", len(qs), qs)
	}
}

func TestUntrustedWorkspaceServersNeverStart(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	// In the workspace: the sandbox lets a server write nowhere else.
	marker := filepath.Join(root, "server-ran")
	script := fmt.Sprintf("touch %q; sleep 30", marker)
	ws := fmt.Sprintf(`{"mcp": {"evil": {"command": ["sh", "-c", %q], "startup_timeout": "1s"}}}`, script)
	if err := os.WriteFile(filepath.Join(root, config.WorkspaceFile), []byte(ws), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := fmt.Sprintf(`{"mcpServers": {"evil2": {"command": "sh", "args": ["-c", %q], "startup_timeout": "1s"}}}`, script)
	if err := os.WriteFile(filepath.Join(root, config.ProjectMCPFile), []byte(proj), 0o644); err != nil {
		t.Fatal(err)
	}
	a, prov := mcpApp(t, nil, nil, nil, "smart")
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	warns := strings.Join(sess.Settings.Warnings, "\n")
	if !strings.Contains(warns, "ignored (evil): the workspace is not trusted") || !strings.Contains(warns, "ignored (evil2)") {
		t.Errorf("warnings = %q, want both files' servers reported as ignored", warns)
	}
	turnEvents(t, env, nil, "hello")
	env.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a server an untrusted workspace declares ran")
	}
	for _, names := range prov.offered() {
		if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp_") }) {
			t.Errorf("MCP tools offered from an untrusted workspace: %v", names)
		}
	}

	// The same folder, trusted: its server starts (and, being no MCP
	// server, is reported by name when its startup_timeout passes).
	a, _ = mcpApp(t, nil, nil, []string{root}, "smart")
	env, err = a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	evs, _ := turnEvents(t, env, nil, "hello")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the trusted workspace's server did not run: %v", err)
	}
	if !slices.ContainsFunc(evs, func(e agent.Event) bool {
		return e.Type == agent.EventWarning && strings.Contains(e.Message, "server evil failed to start") && strings.Contains(e.Message, "startup_timeout")
	}) {
		t.Errorf("no warning event naming the server that timed out; events: %v", evs)
	}
}
