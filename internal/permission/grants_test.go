package permission_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// countingAsker answers a and counts prompts.
type countingAsker struct {
	a permission.Answer
	n atomic.Int32
}

func (c *countingAsker) Ask(context.Context, permission.Question) (permission.Answer, error) {
	c.n.Add(1)
	return c.a, nil
}

func TestSessionGrants(t *testing.T) {
	ctx := context.Background()
	asker := &countingAsker{a: permission.AnswerAllowSession}
	g := newGate(t, policy(nil), permission.Options{Asker: asker})

	// Shell: the fingerprint is the scope.
	if d := g.Check(ctx, goTest); d.Kind != permission.Allow || d.Source != "user" || d.Grant != "session" {
		t.Fatalf("first go test = %+v", d)
	}
	d := g.Check(ctx, shell("go test -run X ./pkg", "go test", "go", "test", "-run", "X", "./pkg"))
	if d.Kind != permission.Allow || d.Source != "session-grant" || d.Rule != "cmd:go test" {
		t.Fatalf("second go test = %+v, want a session grant", d)
	}
	if asker.n.Load() != 1 {
		t.Fatalf("asked %d times, want 1", asker.n.Load())
	}
	g.Check(ctx, shell("go vet ./...", "go vet", "go", "vet", "./..."))
	if asker.n.Load() != 2 {
		t.Errorf("a different fingerprint was not asked")
	}
	// Another session does not share the grant.
	g.Check(ctx, with(goTest, func(r *permission.Request) { r.SessionID = "other" }))
	if asker.n.Load() != 3 {
		t.Errorf("another session used this session's grant")
	}

	// Files: the directory is the scope.
	g.Check(ctx, edit)
	n := asker.n.Load()
	if d := g.Check(ctx, with(edit, func(r *permission.Request) { r.Paths = []string{"/ws/internal/b.go"} })); d.Source != "session-grant" {
		t.Errorf("same directory = %+v, want session grant", d)
	}
	if d := g.Check(ctx, with(edit, func(r *permission.Request) { r.Paths = []string{"/ws/internal/sub/c.go"} })); d.Source != "user" {
		t.Errorf("sub-directory = %+v, want a prompt", d)
	}
	if d := g.Check(ctx, with(edit, func(r *permission.Request) { r.Paths = []string{"/ws/other/c.go"} })); d.Source != "user" {
		t.Errorf("different directory = %+v, want a prompt", d)
	}
	// The same directory with another tool or action is asked.
	if d := g.Check(ctx, with(edit, func(r *permission.Request) { r.Tool, r.Capability = "write", "fs.write" })); d.Source != "user" {
		t.Errorf("another tool = %+v, want a prompt", d)
	}
	if got := asker.n.Load() - n; got != 3 {
		t.Errorf("%d prompts, want 3", got)
	}

	// EndSession drops the grants.
	g.EndSession("s")
	if d := g.Check(ctx, goTest); d.Source != "user" {
		t.Errorf("after EndSession = %+v, want a prompt", d)
	}
}

// TestApproveIgnoresGrants: approve asks every time even with session and
// persistent grants in place.
func TestApproveIgnoresGrants(t *testing.T) {
	ctx := context.Background()
	store := permission.NewMemoryGrantStore()
	asker := &countingAsker{a: permission.AnswerAllowSession}
	smart := newGate(t, policy(nil), permission.Options{Asker: asker, Grants: store})
	smart.Check(ctx, goTest)
	if err := store.Save(ctx, permission.PersistentGrant{Workspace: "/ws", Tool: "edit", Capability: "fs.edit", Action: "write", Scope: "dir:internal"}); err != nil {
		t.Fatal(err)
	}
	approve := newGate(t, policy(func(p *permission.Policy) { p.Mode = permission.ModeApprove }), permission.Options{Asker: answer(permission.AnswerAllow), Grants: store})
	// A session answer in approve mode is not even offered.
	for _, r := range []permission.Request{goTest, edit, goTest, edit} {
		if e := approve.Evaluate(ctx, r); e.Decision != permission.Ask {
			t.Errorf("approve %s = %s from %s, want ask", r.Tool, e.Decision, e.Source)
		}
	}
	// The smart gate honours the persistent grant.
	if e := smart.Evaluate(ctx, edit); e.Decision != permission.Allow || e.Source != "persistent-grant" {
		t.Errorf("smart with a persistent grant = %s from %s", e.Decision, e.Source)
	}
}

func TestPersistentGrants(t *testing.T) {
	ctx := context.Background()
	store := permission.NewMemoryGrantStore()
	g := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerAllowAlways), Grants: store})
	if d := g.Check(ctx, goTest); d.Grant != "always" {
		t.Fatalf("Check = %+v", d)
	}
	g.Check(ctx, edit)
	want := []permission.PersistentGrant{
		{Workspace: "/ws", Tool: "bash", Capability: "shell.exec", Action: "execute", Scope: "cmd:go test"},
		{Workspace: "/ws", Tool: "edit", Capability: "fs.edit", Action: "write", Scope: "dir:internal"},
	}
	if got := store.Grants(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("stored %+v, want %+v", got, want)
	}
	// A new gate (a new session, a restart) with the same store.
	g2 := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerDeny), Grants: store})
	other := with(goTest, func(r *permission.Request) { r.SessionID = "new" })
	if d := g2.Check(ctx, other); d.Kind != permission.Allow || d.Source != "persistent-grant" {
		t.Errorf("after restart = %+v, want persistent grant", d)
	}
	// Another workspace does not share it.
	g3 := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerDeny), Grants: store,
		Roots: func() []string { return []string{"/other"} }})
	if d := g3.Check(ctx, with(goTest, func(r *permission.Request) { r.Paths = []string{"/other"} })); d.Source != "user" {
		t.Errorf("another workspace = %+v, want a prompt", d)
	}
	// A persistent grant never covers a call an inspector warns about.
	push := shell("git push origin main", "git push", "git", "push", "origin", "main")
	store.Save(ctx, permission.PersistentGrant{Workspace: "/ws", Tool: "bash", Capability: "shell.exec", Action: "execute", Scope: "cmd:git push"})
	if e := g2.Evaluate(ctx, push); e.Decision != permission.Ask || e.Source != "inspector:egress" {
		t.Errorf("warned call with a persistent grant = %s from %s, want an egress ask", e.Decision, e.Source)
	}
}

// failingStore fails every call.
type failingStore struct{}

func (failingStore) Allowed(context.Context, permission.PersistentGrant) (bool, error) {
	return true, errors.New("database is locked")
}
func (failingStore) Save(context.Context, permission.PersistentGrant) error {
	return errors.New("disk full")
}

func TestGrantStoreFailures(t *testing.T) {
	ctx := context.Background()
	g := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerAllowAlways), Grants: failingStore{}})
	e := g.Evaluate(ctx, goTest)
	if e.Decision != permission.Ask {
		t.Fatalf("a failing store must not allow: %s from %s", e.Decision, e.Source)
	}
	var detail string
	for _, s := range e.Steps {
		if s.Step == "grants" {
			detail = s.Detail
		}
	}
	if !strings.Contains(detail, "database is locked") {
		t.Errorf("grants step detail %q does not name the error", detail)
	}
	d := g.Check(ctx, goTest)
	if d.Kind != permission.Allow || d.Grant != "" || !strings.Contains(d.Reason, "disk full") {
		t.Errorf("Check with a failing Save = %+v, want allow once naming the error", d)
	}
}

// TestSessionGrantAcceptsWarnings: a session grant given in answer to a
// warning covers that warning again, but not a new one.
func TestSessionGrantAcceptsWarnings(t *testing.T) {
	ctx := context.Background()
	asker := &countingAsker{a: permission.AnswerAllowSession}
	g := newGate(t, policy(nil), permission.Options{Asker: asker})
	push := func(remote string) permission.Request {
		return shell("git push "+remote+" main", "git push", "git", "push", remote, "main")
	}
	g.Check(ctx, push("origin"))
	if d := g.Check(ctx, push("origin")); d.Source != "session-grant" {
		t.Errorf("same push = %+v, want the session grant", d)
	}
	if d := g.Check(ctx, push("evil")); d.Source != "user" {
		t.Errorf("push to another remote = %+v, want a prompt", d)
	}
	// A grant given without a warning does not cover a warned call.
	g2 := newGate(t, policy(nil), permission.Options{Asker: &countingAsker{a: permission.AnswerAllowSession}})
	chmod := func(mode string) permission.Request {
		return shell("chmod "+mode+" tool", "chmod", "chmod", mode, "tool")
	}
	g2.Check(ctx, chmod("644"))
	if d := g2.Check(ctx, chmod("755")); d.Source != "session-grant" {
		t.Errorf("chmod 755 after a chmod grant = %+v", d)
	}
	if e := g2.Evaluate(ctx, chmod("4755")); e.Decision != permission.Ask || e.Source != "inspector:security" {
		t.Errorf("setuid chmod under a plain chmod grant = %s from %s, want a security ask", e.Decision, e.Source)
	}
}

// TestHostGrants: "Allow fetch from H this session" covers that host
// only, and the question offers it by name.
func TestHostGrants(t *testing.T) {
	ctx := context.Background()
	var titles []string
	n := 0
	asker := askerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
		n++
		for _, c := range q.Choices {
			titles = append(titles, c.Title)
		}
		return permission.AnswerAllowSession, nil
	})
	g := newGate(t, policy(nil), permission.Options{Asker: asker})
	fetch := func(u string) permission.Request {
		return permission.Request{SessionID: "s", Tool: "fetch", Capability: "net.fetch", Action: permission.ActionRead, Destinations: []string{u}}
	}
	if d := g.Check(ctx, fetch("https://docs.python.org/3/")); d.Kind != permission.Allow || d.Source != "user" {
		t.Fatalf("first fetch = %+v", d)
	}
	if !strings.Contains(strings.Join(titles, "|"), "Allow fetch from docs.python.org this session") {
		t.Errorf("choices %q do not offer the host grant", titles)
	}
	if d := g.Check(ctx, fetch("https://docs.python.org/3/library/os.html")); d.Source != "session-grant" {
		t.Errorf("same host = %+v, want the session grant", d)
	}
	for _, u := range []string{"https://python.org/", "https://docs.python.org.evil.example/", "http://127.0.0.1/"} {
		before := n
		if d := g.Check(ctx, fetch(u)); d.Source != "user" || n != before+1 {
			t.Errorf("%s = %+v, want a prompt", u, d)
		}
	}
	// A grant never covers a call with several destinations.
	two := permission.Request{SessionID: "s", Tool: "fetch", Capability: "net.fetch", Action: permission.ActionRead,
		Destinations: []string{"https://docs.python.org/", "https://evil.example/"}}
	before := n
	if d := g.Check(ctx, two); d.Source != "user" || n != before+1 {
		t.Errorf("two hosts = %+v, want a prompt", d)
	}
}

// TestScope: what a subagent inherits — every capability but those a
// bare deny rule names, nothing in chat mode.
func TestScope(t *testing.T) {
	caps := []permission.Capability{"fs.read", "shell.exec", "net.fetch", "lsp.references"}
	g := newGate(t, policy(func(p *permission.Policy) {
		p.Rules = map[string]permission.Kind{"shell.exec": "deny", "net.fetch:evil.example": "deny", "fs.read": "ask"}
	}), permission.Options{})
	if got := strings.Join(g.Scope(caps), ","); got != "fs.read,net.fetch,lsp.references" {
		t.Errorf("Scope = %s, want fs.read,net.fetch,lsp.references", got)
	}
	chat := newGate(t, policy(func(p *permission.Policy) { p.Mode = permission.ModeChat }), permission.Options{})
	if got := chat.Scope(caps); got == nil || len(got) != 0 {
		t.Errorf("chat Scope = %#v, want an empty, non-nil list", got)
	}
}

// TestGrantsBoundToEnvironment: a session or persistent grant covers the
// program only in the environment it was given for (Request.GrantEnv);
// when that changes the call is asked again and the question says why.
func TestGrantsBoundToEnvironment(t *testing.T) {
	ctx := context.Background()
	envA := with(goTest, func(r *permission.Request) { r.GrantEnv = "env:a" })
	envB := with(goTest, func(r *permission.Request) { r.GrantEnv = "env:b" })
	var msgs []string
	asker := askerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
		msgs = append(msgs, q.Message)
		return permission.AnswerAllowSession, nil
	})
	g := newGate(t, policy(nil), permission.Options{Asker: asker})
	for i, tc := range []struct {
		r      permission.Request
		source string
	}{
		{envA, permission.SourceUser},
		{envA, permission.SourceSessionGrant},
		{envB, permission.SourceUser}, // lapsed: asked, granted for env:b
		{envB, permission.SourceSessionGrant},
		{goTest, permission.SourceUser}, // no digest is another environment too
	} {
		if d := g.Check(ctx, tc.r); d.Kind != permission.Allow || d.Source != tc.source {
			t.Errorf("call %d (%s): %+v, want allowed by %s", i, tc.r.GrantEnv, d, tc.source)
		}
	}
	if len(msgs) != 3 || strings.Contains(msgs[0], "lapsed") || !strings.Contains(msgs[1], `the session grant for "go test" lapsed`) {
		t.Errorf("questions %q: want the second to say the grant lapsed", msgs)
	}
	if e := g.Evaluate(ctx, with(envA, func(r *permission.Request) { r.GrantEnv, r.Command = "env:c", "go test -count=1 ./..." })); !strings.Contains(fmt.Sprint(e.Steps), "lapsed") {
		t.Errorf("explain does not say the grant lapsed: %+v", e.Steps)
	}

	store := permission.NewMemoryGrantStore()
	always := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerAllowAlways), Grants: store})
	always.Check(ctx, envA)
	if got := store.Grants(); len(got) != 1 || got[0].Env != "env:a" {
		t.Fatalf("stored %+v, want the grant with its environment", got)
	}
	later := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerDeny), Grants: store})
	if e := later.Evaluate(ctx, envA); e.Decision != permission.Allow || e.Source != permission.SourcePersistentGrant {
		t.Errorf("same environment = %s from %s, want the persistent grant", e.Decision, e.Source)
	}
	if e := later.Evaluate(ctx, envB); e.Decision != permission.Ask {
		t.Errorf("changed environment = %s from %s, want an ask", e.Decision, e.Source)
	}
}
