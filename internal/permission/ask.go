package permission

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pendingAsk is a question waiting for its first answer. The asker's
// return, Gate.Resolve, the timeout and cancellation all race to resolve
// it; the first wins and the rest are no-ops.
type pendingAsk struct {
	done   chan struct{}
	once   sync.Once
	answer Answer
	reason string // set when the ask failed: the deny reason
	rev    *Revision
}

func (p *pendingAsk) resolve(a Answer, reason string) bool {
	return p.resolveRevised(a, nil, reason)
}

// resolveRevised resolves with a reviewer's revision.
func (p *pendingAsk) resolveRevised(a Answer, rev *Revision, reason string) bool {
	won := false
	p.once.Do(func() {
		p.answer, p.rev, p.reason, won = a, rev, reason, true
		close(p.done)
	})
	return won
}

// Resolve answers a pending question by its ID, for clients that answer
// out of band (a second editor, a CLI). It reports whether this answer was
// the first; later answers change nothing.
func (g *Gate) Resolve(questionID string, a Answer) bool {
	g.mu.Lock()
	p := g.pending[questionID]
	g.mu.Unlock()
	return p != nil && p.resolve(a, "")
}

// question builds what the person sees for an ask verdict.
func (g *Gate) question(r *Request, v verdict) Question {
	msg := r.Summary
	if msg == "" {
		msg = fmt.Sprintf("agentls wants to use %s (%s)", r.Tool, r.Capability)
	}
	var warnings []string
	for _, w := range v.warnings {
		warnings = append(warnings, w.Message)
		msg += "\n⚠ " + w.Message
	}
	q := Question{Request: *r, Message: msg, Warnings: warnings, Choices: []Choice{{Answer: AnswerAllow, Title: "Allow"}}}
	s, session, always := g.offered(r, v, g.rootList())
	if session {
		q.Choices = append(q.Choices, Choice{Answer: AnswerAllowSession, Title: s.title(r), Scope: s.phrase(r)})
		if g.lapsed(s.sessionKey(r)) {
			q.Message += fmt.Sprintf("\n(asked again: the session grant for %q lapsed — %s)", s.shown, grantLapsed)
		}
	}
	if always {
		c := Choice{Answer: AnswerAllowAlways, Title: "Always allow"}
		if session {
			c.Scope = s.phrase(r)
		}
		q.Choices = append(q.Choices, c)
	}
	if !session && r.NoGrant != "" && !v.noGrant {
		q.Message += "\n(not offered: Allow for session — " + r.NoGrant + ")"
	}
	if why := cmp.Or(r.NoAlways, g.noAlways); session && !always && why != "" {
		q.Message += "\n(not offered: Always allow — " + why + ")"
	}
	q.Choices = append(q.Choices, Choice{Answer: AnswerDeny, Title: "Deny"})
	return q
}

// ask is step 12: one prompt at a time, the first answer wins, and every
// failure (no asker, error, dismissal, timeout, cancellation, an answer
// not offered) is a deny that ends the turn.
func (g *Gate) ask(ctx context.Context, r *Request, v verdict) Decision {
	base := v.d
	deny := func(reason string) Decision {
		d := base
		d.Kind, d.Source, d.Reason, d.StopTurn = Deny, SourceUser, reason, true
		return d
	}
	if g.asker == nil {
		return deny(ErrNoAsker.Error())
	}
	select {
	case g.askSlot <- struct{}{}:
	case <-ctx.Done():
		return deny("cancelled before asking")
	}
	defer func() { <-g.askSlot }()
	// select picks at random when both cases are ready: check again.
	if ctx.Err() != nil {
		return deny("cancelled before asking")
	}
	// While this call waited, the person may have granted its scope.
	if !v.noGrant && g.currentMode() != ModeApprove {
		if gv, ok := g.grantFor(ctx, newView(r, g.rootList()), v.warnings, nil); ok {
			d := gv.d
			d.Scope, d.Channel = base.Scope, base.Channel
			return d
		}
	}

	q := g.question(r, v)
	p := &pendingAsk{done: make(chan struct{})}
	g.mu.Lock()
	g.nextID++
	q.ID = g.idPrefix + strconv.FormatUint(g.nextID, 10)
	g.pending[q.ID] = p
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.pending, q.ID)
		g.mu.Unlock()
	}()

	askCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		a, rev, reason := callAsker(askCtx, g.asker, q)
		if reason != "" && ctx.Err() != nil {
			reason = "cancelled while asking" // the asker only saw our cancellation
		}
		p.resolveRevised(a, rev, reason)
	}()
	timer := time.NewTimer(g.pol.askTimeout)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-ctx.Done():
		p.resolve("", "cancelled while asking")
	case <-timer.C:
		p.resolve("", fmt.Sprintf("no answer within %v", g.pol.askTimeout))
	}
	<-p.done

	switch {
	case p.reason != "":
		return deny(p.reason)
	case p.answer == "":
		return deny("the prompt was dismissed")
	case q.Title(p.answer) == "":
		return deny(fmt.Sprintf("answer %q was not one of the offered choices (%s)", p.answer, choiceList(q)))
	case p.answer == AnswerDeny:
		return deny("denied by the user")
	}
	d := base
	d.Kind, d.Source, d.Reason, d.Revision = Allow, SourceUser, "", p.rev
	s, _, _ := g.offered(r, v, g.rootList())
	switch p.answer {
	case AnswerAllowSession:
		g.addSessionGrant(s.sessionKey(r), v.warnings)
		d.Grant = "session"
	case AnswerAllowAlways:
		if err := g.grants.Save(ctx, s.persistent(r)); err != nil {
			d.Reason = fmt.Sprintf("allowed once: the grant could not be saved (%v)", err)
		} else {
			d.Grant = "always"
		}
	}
	return d
}

// callAsker runs the asker — its review for a question about a Change
// when it can review — turning an error or a panic into a reason.
func callAsker(ctx context.Context, a Asker, q Question) (ans Answer, rev *Revision, reason string) {
	defer func() {
		if p := recover(); p != nil {
			ans, rev, reason = "", nil, fmt.Sprintf("ask failed: panic: %v", p)
		}
	}()
	var err error
	if rv, ok := a.(Reviewer); ok && q.Request.Change != nil {
		ans, rev, err = rv.Review(ctx, q)
	} else {
		ans, err = a.Ask(ctx, q)
	}
	if err != nil {
		return "", nil, "ask failed: " + err.Error()
	}
	return ans, rev, ""
}

func choiceList(q Question) string {
	var s []string
	for _, c := range q.Choices {
		s = append(s, string(c.Answer))
	}
	return strings.Join(s, ", ")
}
