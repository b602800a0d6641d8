package permission_test

import (
	"context"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// reviewer is a reviewing asker: it records how it was called.
type reviewer struct {
	asks, reviews int
	answer        permission.Answer
	rev           *permission.Revision
}

func (r *reviewer) Ask(context.Context, permission.Question) (permission.Answer, error) {
	r.asks++
	return r.answer, nil
}

func (r *reviewer) Review(_ context.Context, q permission.Question) (permission.Answer, *permission.Revision, error) {
	r.reviews++
	return r.answer, r.rev, nil
}

// TestReview: a question about a Change goes to the reviewer, whose
// revision comes back on the decision; other questions are asked; a
// deny carries no revision.
func TestReview(t *testing.T) {
	ctx := context.Background()
	change := with(edit, func(r *permission.Request) {
		r.Change = &permission.Change{Path: "/ws/internal/a.go", Old: "a\nb\n", New: "A\nB\n", Exists: true}
	})
	rev := &permission.Revision{Old: "a\nb\n", Text: "A\nb\n", Note: "hunk 2 rejected"}
	rv := &reviewer{answer: permission.AnswerAllow, rev: rev}
	g := newGate(t, policy(nil), permission.Options{Asker: rv})
	d := g.Check(ctx, change)
	if d.Kind != permission.Allow || d.Source != "user" || d.Revision != rev || rv.reviews != 1 || rv.asks != 0 {
		t.Fatalf("reviewed change = %+v (reviews %d, asks %d)", d, rv.reviews, rv.asks)
	}
	if d := g.Check(ctx, goTest); d.Kind != permission.Allow || d.Revision != nil || rv.asks != 1 {
		t.Errorf("a command = %+v (asks %d), want it asked, with no revision", d, rv.asks)
	}
	rv.answer = permission.AnswerDeny
	if d := g.Check(ctx, change); d.Kind != permission.Deny || !d.StopTurn || d.Revision != nil {
		t.Errorf("a rejected review = %+v, want a deny that ends the turn", d)
	}
	// A session grant given in a review covers the next change there,
	// which then runs as proposed.
	rv.answer, rv.rev = permission.AnswerAllowSession, nil
	if d := g.Check(ctx, change); d.Grant != "session" {
		t.Fatalf("grant in a review = %+v", d)
	}
	if d := g.Check(ctx, change); d.Source != "session-grant" || d.Revision != nil || rv.reviews != 3 {
		t.Errorf("after the grant = %+v (reviews %d)", d, rv.reviews)
	}
}
