package permission_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/permission"
)

func titles(q permission.Question) []string {
	var out []string
	for _, c := range q.Choices {
		out = append(out, c.Title)
	}
	return out
}

// TestQuestionChoices: the offered choices and their titles.
func TestQuestionChoices(t *testing.T) {
	store := permission.NewMemoryGrantStore()
	approve := func(p *permission.Policy) { p.Mode = permission.ModeApprove }
	tests := []struct {
		name    string
		pol     func(*permission.Policy)
		noStore bool
		req     permission.Request
		titles  []string
		message string
	}{
		{name: "shell command", req: goTest,
			titles:  []string{"Allow", `Allow "go test" this session`, "Always allow", "Deny"},
			message: "agentls wants to run `go test ./...` in internal/"},
		{name: "edit", req: edit,
			titles:  []string{"Allow", "Allow edits in internal/ this session", "Always allow", "Deny"},
			message: "agentls wants to edit internal/a.go (+1 −1)"},
		{name: "edit at the root", req: with(edit, func(r *permission.Request) { r.Paths = []string{"/ws/main.go"} }),
			titles: []string{"Allow", "Allow edits in the workspace root this session", "Always allow", "Deny"}},
		{name: "read outside roots is not persistable", req: readOutside,
			titles: []string{"Allow", "Allow reads in /etc/ this session", "Deny"}},
		{name: "compound command is not grantable", req: shell("go vet ./... && go test ./...", ""),
			titles: []string{"Allow", "Deny"}},
		{name: "no summary", req: with(goTest, func(r *permission.Request) { r.Summary = "" }),
			message: "agentls wants to use bash (shell.exec)", titles: []string{"Allow", `Allow "go test" this session`, "Always allow", "Deny"}},
		{name: "no grant store", noStore: true, req: goTest,
			titles: []string{"Allow", `Allow "go test" this session`, "Deny"}},
		{name: "inspector warning drops always", req: shell("git push origin main", "git push", "git", "push", "origin", "main"),
			titles: []string{"Allow", `Allow "git push" this session`, "Deny"}, message: "\n⚠ egress:"},
		{name: "ask_always is never grantable", pol: func(p *permission.Policy) { p.AskAlways = []string{"fs.edit"} }, req: edit,
			titles: []string{"Allow", "Deny"}},
		{name: "approve mode offers no grants", pol: approve, req: edit, titles: []string{"Allow", "Deny"}},
		{name: "no scope is not grantable", pol: func(p *permission.Policy) { p.Rules = map[string]permission.Kind{"mcp.*": "ask"} }, req: mcp,
			titles: []string{"Allow", "Deny"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got permission.Question
			o := permission.Options{Grants: store, Asker: askerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
				got = q
				return permission.AnswerDeny, nil
			})}
			if tt.noStore {
				o.Grants = nil
			}
			g := newGate(t, policy(tt.pol), o)
			if d := g.Check(context.Background(), tt.req); d.Kind != permission.Deny || d.Source != "user" {
				t.Fatalf("Check = %+v, want the person's deny", d)
			}
			if !reflect.DeepEqual(titles(got), tt.titles) {
				t.Errorf("choices %q, want %q", titles(got), tt.titles)
			}
			if !strings.Contains(got.Message, tt.message) {
				t.Errorf("message %q does not contain %q", got.Message, tt.message)
			}
			// A grant's choices name its scope as data, the words of the
			// session choice's title, for front-ends that word their own.
			session := ""
			for _, c := range got.Choices {
				switch c.Answer {
				case permission.AnswerAllowSession:
					session = c.Scope
					if c.Scope == "" || c.Title != "Allow "+c.Scope+" this session" {
						t.Errorf("session choice %+v: its scope is not the words of its title", c)
					}
				case permission.AnswerAllowAlways:
					if c.Scope != session {
						t.Errorf("always choice scope %q, want the session's %q", c.Scope, session)
					}
				default:
					if c.Scope != "" {
						t.Errorf("choice %+v has a scope", c)
					}
				}
			}
			if got.ID == "" || got.Request.Tool != tt.req.Tool {
				t.Errorf("question id %q, request %+v", got.ID, got.Request)
			}
			// Evaluate offers the same choices without asking.
			if e := g.Evaluate(context.Background(), tt.req); !reflect.DeepEqual(e.Choices, got.Choices) {
				t.Errorf("Evaluate choices %+v, want %+v", e.Choices, got.Choices)
			}
		})
	}
}

// TestAnswers maps every answer and failure to a decision.
func TestAnswers(t *testing.T) {
	tests := []struct {
		name   string
		asker  permission.Asker
		kind   permission.Kind
		reason string
		grant  string
	}{
		{"allow", answer(permission.AnswerAllow), permission.Allow, "", ""},
		{"allow session", answer(permission.AnswerAllowSession), permission.Allow, "", "session"},
		{"allow always", answer(permission.AnswerAllowAlways), permission.Allow, "", "always"},
		{"deny", answer(permission.AnswerDeny), permission.Deny, "denied by the user", ""},
		{"nil answer", answer(""), permission.Deny, "dismissed", ""},
		{"unknown answer", answer("maybe"), permission.Deny, `"maybe" was not one of the offered choices`, ""},
		{"error wins over allow", askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
			return permission.AnswerAllow, errors.New("editor went away")
		}), permission.Deny, "ask failed: editor went away", ""},
		{"client without prompts", askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
			return "", permission.ErrCannotAsk
		}), permission.Deny, "cannot show permission prompts", ""},
		{"asker panics", askerFunc(func(context.Context, permission.Question) (permission.Answer, error) { panic("boom") }),
			permission.Deny, "panic: boom", ""},
		{"nobody to ask", nil, permission.Deny, "--mode auto", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			g := newGate(t, policy(nil), permission.Options{Asker: tt.asker, Grants: permission.NewMemoryGrantStore(), OnDecision: rec.on, Channel: "terminal"})
			d := g.Check(context.Background(), goTest)
			if d.Kind != tt.kind || d.Source != "user" || d.Grant != tt.grant || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("Check = %+v, want %s from user, reason %q, grant %q", d, tt.kind, tt.reason, tt.grant)
			}
			if d.StopTurn != (tt.kind == permission.Deny) {
				t.Errorf("StopTurn = %v for %s", d.StopTurn, tt.kind)
			}
			evs := rec.all()
			want := permission.Event{SessionID: "s", Tool: "bash", Capability: "shell.exec", Action: "execute", Scope: "go test ./...",
				Decision: string(tt.kind), Source: "user", Reason: d.Reason, Channel: "terminal", Grant: tt.grant}
			if len(evs) != 1 || evs[0] != want {
				t.Errorf("events %+v, want [%+v]", evs, want)
			}
		})
	}
}

// TestAskTimeout: no answer in time is a deny naming the timeout, and a
// late answer changes nothing.
func TestAskTimeout(t *testing.T) {
	late := make(chan struct{})
	asker := askerFunc(func(ctx context.Context, q permission.Question) (permission.Answer, error) {
		<-late // ignores ctx on purpose: a badly behaved client
		return permission.AnswerAllow, nil
	})
	rec := &recorder{}
	g := newGate(t, policy(func(p *permission.Policy) { p.AskTimeout = 30 * time.Millisecond }), permission.Options{Asker: asker, OnDecision: rec.on})
	start := time.Now()
	d := g.Check(context.Background(), edit)
	close(late)
	if d.Kind != permission.Deny || d.Source != "user" || d.Reason != "no answer within 30ms" || !d.StopTurn {
		t.Fatalf("Check = %+v, want deny: no answer within 30ms", d)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
	time.Sleep(10 * time.Millisecond)
	if n := len(rec.all()); n != 1 {
		t.Errorf("%d events, want 1", n)
	}
}

func TestDefaultAskTimeout(t *testing.T) {
	if permission.DefaultPolicy().AskTimeout != 10*time.Minute || permission.DefaultAskTimeout != 10*time.Minute {
		t.Errorf("default ask timeout = %v", permission.DefaultPolicy().AskTimeout)
	}
}

// TestAskCancelled: a cancelled context before or during the ask denies
// without (or while) asking.
func TestAskCancelled(t *testing.T) {
	var asked atomic.Int32
	asker := askerFunc(func(ctx context.Context, _ permission.Question) (permission.Answer, error) {
		asked.Add(1)
		<-ctx.Done()
		return "", ctx.Err()
	})
	g := newGate(t, policy(nil), permission.Options{Asker: asker})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := g.Check(ctx, edit); d.Kind != permission.Deny || !strings.Contains(d.Reason, "cancelled before asking") {
		t.Errorf("cancelled Check = %+v", d)
	}
	if asked.Load() != 0 {
		t.Errorf("asked %d times with a cancelled context", asked.Load())
	}
	if d := g.Check(ctx, readInside); d.Kind != permission.Allow {
		t.Errorf("a call that needs no ask is still decided: %+v", d)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if d := g.Check(ctx2, edit); d.Kind != permission.Deny || d.Reason != "cancelled while asking" {
		t.Errorf("Check cancelled while asking = %+v", d)
	}
}

// TestAsksSerialized: 50 goroutines asking at once reach the person one at
// a time, and each gets exactly one decision and one event.
func TestAsksSerialized(t *testing.T) {
	const n = 50
	var cur, maxSeen, asked atomic.Int32
	asker := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		c := cur.Add(1)
		for {
			m := maxSeen.Load()
			if c <= m || maxSeen.CompareAndSwap(m, c) {
				break
			}
		}
		asked.Add(1)
		time.Sleep(200 * time.Microsecond)
		cur.Add(-1)
		return permission.AnswerAllow, nil
	})
	rec := &recorder{}
	g := newGate(t, policy(nil), permission.Options{Asker: asker, OnDecision: rec.on})
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			r := with(edit, func(r *permission.Request) { r.SessionID = fmt.Sprint("s", i) })
			if d := g.Check(context.Background(), r); d.Kind != permission.Allow {
				t.Errorf("Check = %+v", d)
			}
		})
	}
	close(start)
	wg.Wait()
	if m := maxSeen.Load(); m != 1 {
		t.Errorf("max concurrent prompts = %d, want 1", m)
	}
	if a := asked.Load(); a != n {
		t.Errorf("asked %d times, want %d", a, n)
	}
	if e := len(rec.all()); e != n {
		t.Errorf("%d events, want %d", e, n)
	}
}

// TestQueuedCallsUseNewGrant: calls queued behind a prompt whose answer
// was "Allow for session" run without a prompt of their own.
func TestQueuedCallsUseNewGrant(t *testing.T) {
	var asked atomic.Int32
	release := make(chan struct{})
	asker := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		asked.Add(1)
		<-release
		return permission.AnswerAllowSession, nil
	})
	// Repetition off: ten identical calls in a row would trip it.
	g := newGate(t, policy(func(p *permission.Policy) { p.Repetition = 0 }), permission.Options{Asker: asker})
	var wg sync.WaitGroup
	results := make(chan permission.Decision, 10)
	for range 10 {
		wg.Go(func() { results <- g.Check(context.Background(), goTest) })
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	close(results)
	sources := map[string]int{}
	for d := range results {
		if d.Kind != permission.Allow {
			t.Errorf("decision %+v", d)
		}
		sources[d.Source]++
	}
	if asked.Load() != 1 || sources["user"] != 1 || sources["session-grant"] != 9 {
		t.Errorf("asked %d times, sources %v; want one prompt, 9 session grants", asked.Load(), sources)
	}
}

// TestRacingAnswers: the asker, Resolve from several clients and the
// timeout race; the first answer wins and exactly one event is emitted.
func TestRacingAnswers(t *testing.T) {
	for round := range 20 {
		rec := &recorder{}
		var wins atomic.Int32
		var g *permission.Gate
		finished := make(chan struct{})
		asker := askerFunc(func(ctx context.Context, q permission.Question) (permission.Answer, error) {
			defer close(finished)
			var wg sync.WaitGroup
			for i := range 8 {
				a := permission.AnswerAllow
				if i%2 == 1 {
					a = permission.AnswerDeny
				}
				wg.Go(func() {
					if g.Resolve(q.ID, a) {
						wins.Add(1)
					}
				})
			}
			wg.Wait()
			return permission.AnswerDeny, nil // too late: a no-op
		})
		g = newGate(t, policy(func(p *permission.Policy) { p.AskTimeout = time.Second }), permission.Options{Asker: asker, OnDecision: rec.on})
		d := g.Check(context.Background(), edit)
		<-finished // Check returns at the first answer; the others still run
		if w := wins.Load(); w != 1 {
			t.Fatalf("round %d: %d Resolve calls won, want 1 (decision %+v, events %+v)", round, w, d, rec.all())
		}
		if evs := rec.all(); len(evs) != 1 || evs[0].Decision != string(d.Kind) {
			t.Fatalf("round %d: events %+v for decision %+v, want exactly one", round, evs, d)
		}
		if g.Resolve("ask-1", permission.AnswerAllow) {
			t.Error("Resolve after the decision reported a win")
		}
	}
	g := newGate(t, policy(nil), permission.Options{})
	if g.Resolve("nope", permission.AnswerAllow) {
		t.Error("Resolve of an unknown id reported a win")
	}
}

// Question ids never repeat across gates (a gate per server process): an
// editor that keeps its transcript across a restart of the server (VS
// Code's chat) keys cards by id and must never see an old one again.
func TestQuestionIDsUniqueAcrossGates(t *testing.T) {
	seen := map[string]bool{}
	for range 3 {
		var id string
		asker := askerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
			id = q.ID
			return permission.AnswerDeny, nil
		})
		g := newGate(t, policy(nil), permission.Options{Asker: asker})
		g.Check(context.Background(), edit)
		if id == "" || seen[id] {
			t.Fatalf("first question id of a new gate = %q, seen before: %v", id, seen)
		}
		seen[id] = true
	}
}
