package permission_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// The fields a tool source whose calls name no paths (MCP) describes its
// calls with: WholeTool grants, NoAlways, OpenWorld and IsKnown.

// mcpWrite is an MCP tool call that changes something, as internal/mcp
// describes it: grantable as a whole tool, closed-world.
var mcpWrite = permission.Request{SessionID: "s", Tool: "mcp_fs_write_file", Capability: "mcp.fs.write_file",
	Action: permission.ActionWrite, WholeTool: true, Summary: "agentls wants to call write_file on MCP server fs"}

func choiceAnswers(q permission.Question) []permission.Answer {
	var out []permission.Answer
	for _, c := range q.Choices {
		out = append(out, c.Answer)
	}
	return out
}

// lastQuestion is an asker that records the question and answers a.
type lastQuestion struct {
	a permission.Answer
	q permission.Question
	n int
}

func (l *lastQuestion) Ask(_ context.Context, q permission.Question) (permission.Answer, error) {
	l.q, l.n = q, l.n+1
	return l.a, nil
}

func TestWholeToolGrants(t *testing.T) {
	ctx := context.Background()
	store := permission.NewMemoryGrantStore()
	known := func(c permission.Capability) bool { return strings.HasPrefix(string(c), "mcp.fs.") }
	asker := &lastQuestion{a: permission.AnswerAllowSession}
	g := newGate(t, policy(nil), permission.Options{Asker: asker, Grants: store, IsKnown: known})

	if d := g.Check(ctx, mcpWrite); d.Kind != permission.Allow || d.Grant != "session" {
		t.Fatalf("first call = %+v, want allowed with a session grant", d)
	}
	want := []permission.Answer{permission.AnswerAllow, permission.AnswerAllowSession, permission.AnswerAllowAlways, permission.AnswerDeny}
	if got := choiceAnswers(asker.q); !slices.Equal(got, want) {
		t.Errorf("choices = %v, want %v", got, want)
	}
	if title := asker.q.Title(permission.AnswerAllowSession); title != "Allow mcp_fs_write_file this session" {
		t.Errorf("session title = %q", title)
	}
	// Any later input of the same tool is covered; another tool is not.
	again := with(mcpWrite, func(r *permission.Request) { r.Input = []byte(`{"path":"other"}`) })
	if d := g.Check(ctx, again); d.Source != permission.SourceSessionGrant || d.Rule != "tool:mcp_fs_write_file" {
		t.Errorf("second call = %+v, want the session grant tool:mcp_fs_write_file", d)
	}
	other := with(mcpWrite, func(r *permission.Request) { r.Tool, r.Capability = "mcp_fs_move_file", "mcp.fs.move_file" })
	if d := g.Check(ctx, other); d.Source != permission.SourceUser {
		t.Errorf("another tool = %+v, want a prompt", d)
	}
	if asker.n != 2 {
		t.Errorf("asked %d times, want 2", asker.n)
	}

	// Always allow is stored for the first root and covers a new session.
	g2 := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerAllowAlways), Grants: store, IsKnown: known})
	if d := g2.Check(ctx, mcpWrite); d.Grant != "always" {
		t.Fatalf("always = %+v", d)
	}
	wantGrant := permission.PersistentGrant{Workspace: "/ws", Tool: "mcp_fs_write_file", Capability: "mcp.fs.write_file", Action: "write", Scope: "tool:mcp_fs_write_file"}
	if got := store.Grants(); !slices.Contains(got, wantGrant) {
		t.Errorf("stored %+v, want %+v among them", got, wantGrant)
	}
	g3 := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerDeny), Grants: store, IsKnown: known})
	if d := g3.Check(ctx, with(mcpWrite, func(r *permission.Request) { r.SessionID = "new" })); d.Source != permission.SourcePersistentGrant {
		t.Errorf("new session = %+v, want the persistent grant", d)
	}

	// Without WholeTool a call without paths stays ungrantable.
	plain := with(mcpWrite, func(r *permission.Request) { r.WholeTool = false })
	e := g.Evaluate(ctx, plain)
	if got := choiceAnswers(permission.Question{Choices: e.Choices}); !slices.Equal(got, []permission.Answer{permission.AnswerAllow, permission.AnswerDeny}) {
		t.Errorf("choices without WholeTool = %v, want allow and deny only", got)
	}
}

func TestNoAlwaysWithholdsAlwaysAllow(t *testing.T) {
	ctx := context.Background()
	store := permission.NewMemoryGrantStore()
	destructive := with(mcpWrite, func(r *permission.Request) { r.NoAlways = "the server marks write_file destructive" })
	// A grant stored earlier (when the server said otherwise) does not cover it.
	store.Save(ctx, permission.PersistentGrant{Workspace: "/ws", Tool: "mcp_fs_write_file", Capability: "mcp.fs.write_file", Action: "write", Scope: "tool:mcp_fs_write_file"})
	asker := &lastQuestion{a: permission.AnswerAllowAlways}
	g := newGate(t, policy(nil), permission.Options{Asker: asker, Grants: store, IsKnown: func(permission.Capability) bool { return true }})

	d := g.Check(ctx, destructive)
	if d.Kind != permission.Deny || !strings.Contains(d.Reason, "not one of the offered choices") {
		t.Errorf("answering always = %+v, want a deny: the choice was not offered", d)
	}
	want := []permission.Answer{permission.AnswerAllow, permission.AnswerAllowSession, permission.AnswerDeny}
	if got := choiceAnswers(asker.q); !slices.Equal(got, want) {
		t.Errorf("choices = %v, want %v", got, want)
	}
	if !strings.Contains(asker.q.Message, "(not offered: Always allow — the server marks write_file destructive)") {
		t.Errorf("message = %q, want the reason Always allow is not offered", asker.q.Message)
	}
	// The session grant still works.
	asker.a = permission.AnswerAllowSession
	if d := g.Check(ctx, destructive); d.Grant != "session" {
		t.Errorf("session answer = %+v", d)
	}
	if d := g.Check(ctx, destructive); d.Source != permission.SourceSessionGrant {
		t.Errorf("after the session grant = %+v", d)
	}
}

func TestOpenWorldIsEgress(t *testing.T) {
	ctx := context.Background()
	read := permission.Request{SessionID: "s", Tool: "mcp_web_search", Capability: "mcp.web.search",
		Action: permission.ActionRead, ReadOnly: true, WholeTool: true}
	known := func(c permission.Capability) bool { return c == "mcp.web.search" }
	g := newGate(t, policy(nil), permission.Options{IsKnown: known})
	if e := g.Evaluate(ctx, read); e.Decision != permission.Allow {
		t.Errorf("closed-world read-only call = %s (%s), want allow", e.Decision, e.Reason)
	}
	open := with(read, func(r *permission.Request) { r.OpenWorld = true })
	e := g.Evaluate(ctx, open)
	if e.Decision != permission.Ask || e.Source != "inspector:egress" || len(e.Warnings) != 1 ||
		!strings.Contains(e.Warnings[0], "mcp_web_search sends data to services outside this machine") {
		t.Errorf("open-world read-only call = %s from %s %v, want an egress ask", e.Decision, e.Source, e.Warnings)
	}
	noEgress := newGate(t, policy(func(p *permission.Policy) { p.Egress = false }), permission.Options{IsKnown: known})
	if e := noEgress.Evaluate(ctx, open); e.Decision != permission.Allow {
		t.Errorf("open-world read-only call with egress off = %s (%s), want allow", e.Decision, e.Reason)
	}
}

func TestIsKnown(t *testing.T) {
	ctx := context.Background()
	read := permission.Request{SessionID: "s", Tool: "mcp_e_echo", Capability: "mcp.e.echo", Action: permission.ActionRead, ReadOnly: true}
	if e := newGate(t, policy(nil), permission.Options{}).Evaluate(ctx, read); e.Decision != permission.Deny {
		t.Errorf("unknown capability = %s, want deny", e.Decision)
	}
	var offered []permission.Capability
	g := newGate(t, policy(nil), permission.Options{IsKnown: func(c permission.Capability) bool { return slices.Contains(offered, c) }})
	if e := g.Evaluate(ctx, read); e.Decision != permission.Deny {
		t.Errorf("capability no tool offers = %s, want deny", e.Decision)
	}
	offered = append(offered, "mcp.e.echo") // the source now offers it
	if e := g.Evaluate(ctx, read); e.Decision != permission.Allow {
		t.Errorf("capability the source offers = %s (%s), want allow", e.Decision, e.Reason)
	}
}
