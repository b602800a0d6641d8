package permission_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/permission"
	judge "github.com/agentls/agentls/internal/tools/shell"
)

// askerFunc adapts a function to permission.Asker.
type askerFunc func(ctx context.Context, q permission.Question) (permission.Answer, error)

func (f askerFunc) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	return f(ctx, q)
}

// answer is an asker that always gives a.
func answer(a permission.Answer) permission.Asker {
	return askerFunc(func(context.Context, permission.Question) (permission.Answer, error) { return a, nil })
}

// recorder collects events; safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []permission.Event
}

func (r *recorder) on(e permission.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []permission.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]permission.Event(nil), r.events...)
}

// policy is the default policy changed by mod.
func policy(mod func(*permission.Policy)) permission.Policy {
	p := permission.DefaultPolicy()
	if mod != nil {
		mod(&p)
	}
	return p
}

func wsRoots() []string { return []string{"/ws"} }

// newGate builds a gate over the root /ws.
func newGate(t testing.TB, p permission.Policy, o permission.Options) *permission.Gate {
	t.Helper()
	o.Policy = p
	if o.Roots == nil {
		o.Roots = wsRoots
	}
	g, err := permission.New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

// Requests shared by the tables.
var (
	readInside = permission.Request{SessionID: "s", Tool: "view", Capability: "fs.read", Action: permission.ActionRead,
		ReadOnly: true, Paths: []string{"/ws/a.go"}}
	readOutside = permission.Request{SessionID: "s", Tool: "view", Capability: "fs.read", Action: permission.ActionRead,
		ReadOnly: true, Paths: []string{"/etc/passwd"}, OutsideRoots: true}
	edit = permission.Request{SessionID: "s", Tool: "edit", Capability: "fs.edit", Action: permission.ActionWrite,
		Paths: []string{"/ws/internal/a.go"}, Summary: "agentls wants to edit internal/a.go (+1 −1)", Diff: "--- a\n+++ b\n"}
	goTest = shell("go test ./...", "go test", "go", "test", "./...")
	mcp    = permission.Request{SessionID: "s", Tool: "github_create_issue", Capability: "mcp.github.create_issue",
		Action: permission.ActionExecute}
)

// shell builds a bash request as tools/bash.go does.
func shell(cmd, fingerprint string, argv ...string) permission.Request {
	r := permission.Request{SessionID: "s", Tool: "bash", Capability: "shell.exec", Action: permission.ActionExecute,
		Command: cmd, Fingerprint: fingerprint, Paths: []string{"/ws/internal"},
		Summary: "agentls wants to run `" + cmd + "` in internal/"}
	if len(argv) > 0 {
		r.Argvs = [][]string{argv}
	}
	// What the command sends out is the shell judge's reading, as the
	// bash tool hands it over.
	if v, err := judge.Judge(cmd); err == nil {
		r.Egress = v.Egress
	}
	return r
}

// with returns r changed by mod.
func with(r permission.Request, mod func(*permission.Request)) permission.Request {
	mod(&r)
	return r
}
