package permission_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/permission"
)

func TestCapabilityValid(t *testing.T) {
	tests := []struct {
		c    permission.Capability
		want bool
	}{
		{"fs.read", true},
		{"fs.write", true},
		{"shell.exec", true},
		{"mcp.github.create_issue", true},
		{"lsp.go-to-definition", true},
		{"a.b", true},
		{"fs2.read_v2", true},
		{"x.0", true},
		{"", false},
		{"fs", false},
		{"FS.read", false},
		{"fs.Read", false},
		{"fs..read", false},
		{"fs.read.", false},
		{".fs.read", false},
		{"1fs.read", false},
		{"_fs.read", false},
		{"fs.-read", false},
		{"fs read", false},
		{"fs.read\n", false},
		{"fs/read", false},
		{"fs-x.read", false},
	}
	for _, tt := range tests {
		if got := tt.c.Valid(); got != tt.want {
			t.Errorf("Capability(%q).Valid() = %v, want %v", tt.c, got, tt.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    permission.Mode
		wantErr bool
	}{
		{"", permission.ModeSmart, false},
		{"smart", permission.ModeSmart, false},
		{"auto", permission.ModeAuto, false},
		{"Auto", "", true},
		{" auto", "", true},
		{"yolo", "", true},
	}
	for _, tt := range tests {
		got, err := permission.ParseMode(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseMode(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseMode(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err != nil && (!strings.Contains(err.Error(), "smart") || !strings.Contains(err.Error(), "auto") || !strings.Contains(err.Error(), tt.in)) {
			t.Errorf("ParseMode(%q) error %q should name the value and the valid modes", tt.in, err)
		}
	}
}

func TestNewGateDefaultMode(t *testing.T) {
	if m := permission.NewGate("", nil, nil).Mode(); m != permission.ModeSmart {
		t.Errorf("NewGate(\"\").Mode() = %q, want smart", m)
	}
	if m := permission.NewGate(permission.ModeAuto, nil, nil).Mode(); m != permission.ModeAuto {
		t.Errorf("NewGate(auto).Mode() = %q, want auto", m)
	}
}

// Requests used by the gate tables.
var (
	readInside  = permission.Request{Tool: "view", Capability: "fs.read", Action: permission.ActionRead, ReadOnly: true, Paths: []string{"/ws/a.go"}}
	readOutside = permission.Request{Tool: "view", Capability: "fs.read", Action: permission.ActionRead, ReadOnly: true, Paths: []string{"/etc/passwd"}, OutsideRoots: true}
	write       = permission.Request{Tool: "edit", Capability: "fs.write", Action: permission.ActionWrite, Paths: []string{"/ws/a.go"}}
	execute     = permission.Request{Tool: "bash", Capability: "shell.exec", Action: permission.ActionExecute}
	badCap      = permission.Request{Tool: "weird", Capability: "Nope", Action: permission.ActionRead, ReadOnly: true}
	noCap       = permission.Request{Tool: "weird", Action: permission.ActionRead, ReadOnly: true}
)

func blocked(r permission.Request) permission.Request {
	r.Blocked = "rm -rf / is never allowed"
	return r
}

func TestGateEvaluate(t *testing.T) {
	tests := []struct {
		name       string
		mode       permission.Mode
		req        permission.Request
		kind       permission.Kind
		source     string
		reasonPart string
	}{
		{"invalid capability smart", permission.ModeSmart, badCap, permission.Deny, "default", `"weird"`},
		{"invalid capability auto", permission.ModeAuto, badCap, permission.Deny, "default", "no valid capability"},
		{"missing capability auto", permission.ModeAuto, noCap, permission.Deny, "default", "no valid capability"},
		{"blocked smart read", permission.ModeSmart, blocked(readInside), permission.Deny, "block", "never allowed"},
		{"blocked smart exec", permission.ModeSmart, blocked(execute), permission.Deny, "block", "never allowed"},
		{"blocked auto exec", permission.ModeAuto, blocked(execute), permission.Deny, "block", "never allowed"},
		{"blocked auto write", permission.ModeAuto, blocked(write), permission.Deny, "block", "never allowed"},
		{"blocked unknown mode", "paranoid", blocked(readInside), permission.Deny, "block", "never allowed"},
		{"auto read", permission.ModeAuto, readInside, permission.Allow, "mode", ""},
		{"auto read outside", permission.ModeAuto, readOutside, permission.Allow, "mode", ""},
		{"auto write", permission.ModeAuto, write, permission.Allow, "mode", ""},
		{"auto exec", permission.ModeAuto, execute, permission.Allow, "mode", ""},
		{"smart read inside", permission.ModeSmart, readInside, permission.Allow, "default", ""},
		{"smart read outside", permission.ModeSmart, readOutside, permission.Ask, "default", ""},
		{"smart write", permission.ModeSmart, write, permission.Ask, "default", ""},
		{"smart exec", permission.ModeSmart, execute, permission.Ask, "default", ""},
		{"unknown mode fails closed", "paranoid", readInside, permission.Deny, "mode", `"paranoid"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := permission.NewGate(tt.mode, nil, nil)
			d := g.Evaluate(tt.req)
			if d.Kind != tt.kind || d.Source != tt.source {
				t.Fatalf("Evaluate = %+v, want kind %q source %q", d, tt.kind, tt.source)
			}
			if !strings.Contains(d.Reason, tt.reasonPart) {
				t.Errorf("reason %q does not contain %q", d.Reason, tt.reasonPart)
			}
		})
	}
}

// askerFunc adapts a function to permission.Asker.
type askerFunc func(ctx context.Context, q permission.Question) (permission.Answer, error)

func (f askerFunc) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	return f(ctx, q)
}

func TestGateCheck(t *testing.T) {
	allow := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		return permission.AnswerAllow, nil
	})
	deny := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		return permission.AnswerDeny, nil
	})
	odd := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		return "maybe", nil
	})
	failing := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		return permission.AnswerAllow, errors.New("editor went away")
	})
	tests := []struct {
		name       string
		asker      permission.Asker
		req        permission.Request
		kind       permission.Kind
		source     string
		reasonPart string
		asked      bool
	}{
		{"allow", allow, write, permission.Allow, "user", "", true},
		{"deny", deny, write, permission.Deny, "user", "denied by the user", true},
		{"unknown answer denies", odd, write, permission.Deny, "user", "denied", true},
		{"asker error denies even with allow", failing, write, permission.Deny, "user", "editor went away", true},
		{"nil asker denies naming --mode auto", nil, write, permission.Deny, "user", "--mode auto", false},
		{"no ask needed", deny, readInside, permission.Allow, "default", "", false},
		{"blocked not asked", allow, blocked(write), permission.Deny, "block", "never allowed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked int
			var question permission.Question
			var asker permission.Asker
			if tt.asker != nil {
				inner := tt.asker
				asker = askerFunc(func(ctx context.Context, q permission.Question) (permission.Answer, error) {
					asked++
					question = q
					return inner.Ask(ctx, q)
				})
			}
			var decisions []permission.Decision
			g := permission.NewGate(permission.ModeSmart, asker, func(r permission.Request, d permission.Decision) {
				if r.Tool != tt.req.Tool {
					t.Errorf("onDecision request tool = %q, want %q", r.Tool, tt.req.Tool)
				}
				decisions = append(decisions, d)
			})
			d := g.Check(context.Background(), tt.req)
			if d.Kind != tt.kind || d.Source != tt.source {
				t.Fatalf("Check = %+v, want kind %q source %q", d, tt.kind, tt.source)
			}
			if !strings.Contains(d.Reason, tt.reasonPart) {
				t.Errorf("reason %q does not contain %q", d.Reason, tt.reasonPart)
			}
			if (asked == 1) != tt.asked || asked > 1 {
				t.Errorf("asker called %d times, want asked=%v", asked, tt.asked)
			}
			if tt.asked && question.Request.Tool != tt.req.Tool {
				t.Errorf("question request tool = %q, want %q", question.Request.Tool, tt.req.Tool)
			}
			if len(decisions) != 1 || decisions[0] != d {
				t.Errorf("onDecision got %+v, want exactly [%+v]", decisions, d)
			}
		})
	}
}

func TestGateCheckQuestionMessage(t *testing.T) {
	var got []string
	asker := askerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
		got = append(got, q.Message)
		return permission.AnswerDeny, nil
	})
	g := permission.NewGate(permission.ModeSmart, asker, nil)
	withSummary := write
	withSummary.Summary = "agentls wants to edit a.go (+3 −1)"
	g.Check(context.Background(), withSummary)
	g.Check(context.Background(), execute)
	want := []string{"agentls wants to edit a.go (+3 −1)", "agentls wants to use bash (shell.exec)"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("question messages = %q, want %q", got, want)
	}
}

func TestGateCheckNeverReturnsAsk(t *testing.T) {
	for _, mode := range []permission.Mode{permission.ModeSmart, permission.ModeAuto, "paranoid"} {
		g := permission.NewGate(mode, nil, nil)
		for _, req := range []permission.Request{readInside, readOutside, write, execute, badCap, blocked(write)} {
			if d := g.Check(context.Background(), req); d.Kind != permission.Allow && d.Kind != permission.Deny {
				t.Errorf("mode %s, %s: Check returned %q", mode, req.Tool, d.Kind)
			}
		}
	}
}

func TestGateCheckCancelledBeforeAsking(t *testing.T) {
	var asked atomic.Int32
	asker := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		asked.Add(1)
		return permission.AnswerAllow, nil
	})
	var calls atomic.Int32
	g := permission.NewGate(permission.ModeSmart, asker, func(permission.Request, permission.Decision) { calls.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := g.Check(ctx, write)
	if d.Kind != permission.Deny || d.Source != "user" || !strings.Contains(d.Reason, "cancelled") {
		t.Errorf("Check with cancelled ctx = %+v, want deny from user, cancelled", d)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("asker called %d times with a cancelled context", n)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("onDecision called %d times, want 1", n)
	}
	// A call that needs no ask is still decided by the chain.
	if d := g.Check(ctx, readInside); d.Kind != permission.Allow {
		t.Errorf("read inside roots with cancelled ctx = %+v, want allow", d)
	}
}

// TestGateAsksSerialized: concurrent Checks reach the asker one at a time,
// and every Check produces exactly one decision.
func TestGateAsksSerialized(t *testing.T) {
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
		time.Sleep(200 * time.Microsecond) // give overlapping asks a chance
		cur.Add(-1)
		return permission.AnswerAllow, nil
	})
	var decided atomic.Int32
	g := permission.NewGate(permission.ModeSmart, asker, func(permission.Request, permission.Decision) { decided.Add(1) })
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			if d := g.Check(context.Background(), write); d.Kind != permission.Allow {
				t.Errorf("Check = %+v, want allow", d)
			}
		})
	}
	close(start)
	wg.Wait()
	if m := maxSeen.Load(); m != 1 {
		t.Errorf("max concurrent asks = %d, want 1", m)
	}
	if a := asked.Load(); a != n {
		t.Errorf("asker called %d times, want %d", a, n)
	}
	if d := decided.Load(); d != n {
		t.Errorf("onDecision called %d times, want %d", d, n)
	}
}

// TestGateQueuedAskCancelled: a Check waiting for another person's answer
// returns as soon as its own context is cancelled, without asking.
func TestGateQueuedAskCancelled(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	var asked atomic.Int32
	asker := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		asked.Add(1)
		entered <- struct{}{}
		<-release
		return permission.AnswerAllow, nil
	})
	g := permission.NewGate(permission.ModeSmart, asker, nil)
	first := make(chan permission.Decision, 1)
	go func() { first <- g.Check(context.Background(), write) }()
	<-entered // the first ask holds the person's attention

	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan permission.Decision, 1)
	go func() { second <- g.Check(ctx, execute) }()
	time.Sleep(20 * time.Millisecond) // let the second Check queue up
	cancel()
	select {
	case d := <-second:
		if d.Kind != permission.Deny || d.Source != "user" || !strings.Contains(d.Reason, "cancelled") {
			t.Errorf("queued Check after cancel = %+v, want deny from user, cancelled", d)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("a queued Check did not return after its context was cancelled")
	}
	close(release)
	if d := <-first; d.Kind != permission.Allow {
		t.Errorf("first Check = %+v, want allow", d)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("asker called %d times, want 1", n)
	}
	// The gate is usable again after the queue drained.
	if d := g.Check(context.Background(), write); d.Kind != permission.Allow {
		t.Errorf("Check after the queue drained = %+v, want allow", d)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	g := permission.NewGate(permission.ModeSmart, nil, nil)
	reqs := []permission.Request{readInside, blocked(execute), badCap}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if d := g.Evaluate(reqs[i%len(reqs)]); d.Kind == permission.Ask {
			b.Fatal("unexpected ask")
		}
	}
}
