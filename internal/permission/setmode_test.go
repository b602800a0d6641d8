package permission_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// TestSetMode switches one gate through every mode: the next call is
// judged in the new one, while rules, hard blocks and the person's grants
// stay as they were.
func TestSetMode(t *testing.T) {
	var asked atomic.Int32
	asker := askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		asked.Add(1)
		return permission.AnswerAllow, nil
	})
	g := newGate(t, policy(func(p *permission.Policy) {
		p.Rules = map[string]permission.Kind{"shell.exec:go test": "deny"}
	}), permission.Options{Asker: asker})
	ctx := context.Background()
	if g.Mode() != permission.ModeSmart {
		t.Fatalf("starts in %s, want smart", g.Mode())
	}

	// smart: an edit is asked.
	if d := g.Check(ctx, edit); d.Kind != permission.Allow || asked.Load() != 1 {
		t.Fatalf("smart edit: %+v after %d asks, want allowed by the person", d, asked.Load())
	}

	// auto: the same edit runs unasked; a deny rule and a write outside still hold.
	if err := g.SetMode(permission.ModeAuto); err != nil {
		t.Fatal(err)
	}
	if g.Mode() != permission.ModeAuto {
		t.Fatalf("Mode() = %s after SetMode(auto)", g.Mode())
	}
	if d := g.Check(ctx, edit); d.Kind != permission.Allow || d.Source != permission.SourceMode || asked.Load() != 1 {
		t.Fatalf("auto edit: %+v after %d asks, want allowed by the mode without asking", d, asked.Load())
	}
	if d := g.Check(ctx, goTest); d.Kind != permission.Deny || d.Source != permission.SourceRule {
		t.Fatalf("auto go test: %+v, want the deny rule to win", d)
	}
	outside := with(edit, func(r *permission.Request) { r.Paths, r.OutsideRoots = []string{"/etc/x"}, true })
	if d := g.Check(ctx, outside); d.Kind != permission.Deny || d.Source != permission.SourceBlock {
		t.Fatalf("auto write outside: %+v, want a hard block", d)
	}

	// approve: even a read inside is asked.
	if err := g.SetMode(permission.ModeApprove); err != nil {
		t.Fatal(err)
	}
	if d := g.Check(ctx, readInside); d.Kind != permission.Allow || asked.Load() != 2 {
		t.Fatalf("approve read: %+v after %d asks, want one more ask", d, asked.Load())
	}

	// chat: nothing runs, and the call is reported as skipped.
	if err := g.SetMode(permission.ModeChat); err != nil {
		t.Fatal(err)
	}
	if d := g.Check(ctx, readInside); d.Kind != permission.Deny || !d.Skipped {
		t.Fatalf("chat read: %+v, want skipped", d)
	}

	// A bad mode is refused and changes nothing.
	for _, bad := range []permission.Mode{"", "yolo", "Auto"} {
		err := g.SetMode(bad)
		if err == nil || !strings.Contains(err.Error(), "chat, approve, smart or auto") {
			t.Errorf("SetMode(%q) = %v, want an error naming the modes", bad, err)
		}
	}
	if g.Mode() != permission.ModeChat {
		t.Errorf("Mode() = %s after refused changes, want chat", g.Mode())
	}
}

// TestSetModeConcurrent changes the mode while calls are judged (run with
// -race): every decision is one of the two modes' answers.
func TestSetModeConcurrent(t *testing.T) {
	g := newGate(t, policy(func(p *permission.Policy) { p.Repetition = 0 }), permission.Options{Asker: answer(permission.AnswerDeny)})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 200 {
			m := permission.ModeAuto
			if i%2 == 0 {
				m = permission.ModeChat
			}
			if err := g.SetMode(m); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range 200 {
			d := g.Check(context.Background(), edit)
			chat := d.Kind == permission.Deny && d.Skipped
			auto := d.Kind == permission.Allow && d.Source == permission.SourceMode
			smart := d.Kind == permission.Deny && d.Source == permission.SourceUser // before the first switch
			if !chat && !auto && !smart {
				t.Errorf("decision %+v fits no mode", d)
				return
			}
		}
	}()
	wg.Wait()
}

// TestSetModeLegacyBadMode: a gate that denies everything for an unknown
// mode cannot be switched into allowing.
func TestSetModeLegacyBadMode(t *testing.T) {
	g := permission.NewGate("paranoid", nil, nil)
	if err := g.SetMode(permission.ModeAuto); err == nil {
		t.Fatal("SetMode on a gate with an unknown mode succeeded")
	}
	if d := g.Check(context.Background(), readInside); d.Kind != permission.Deny {
		t.Fatalf("after a refused SetMode: %+v, want deny", d)
	}
}
