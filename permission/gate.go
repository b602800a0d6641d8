package permission

import (
	"context"
	"fmt"
)

// Gate judges every tool call. It is safe for concurrent use; asks are
// serialized so a person sees one prompt at a time.
type Gate struct {
	mode  Mode
	asker Asker
	// OnDecision, when set, receives every decision (for events and audit).
	onDecision func(Request, Decision)

	// askSlot holds one token while a person is being asked. It is a
	// channel rather than a mutex so that a Check queued behind another
	// ask can give up when its own context is cancelled.
	askSlot chan struct{}
}

// NewGate returns a gate in the given mode. asker may be nil (nobody to ask:
// asks become denies). onDecision may be nil.
func NewGate(mode Mode, asker Asker, onDecision func(Request, Decision)) *Gate {
	if mode == "" {
		mode = ModeSmart
	}
	return &Gate{mode: mode, asker: asker, onDecision: onDecision, askSlot: make(chan struct{}, 1)}
}

// Mode reports the gate's mode.
func (g *Gate) Mode() Mode { return g.mode }

// Evaluate runs the chain without asking anyone: the result may be Ask.
func (g *Gate) Evaluate(req Request) Decision {
	switch {
	case !req.Capability.Valid():
		return Decision{Kind: Deny, Source: "default", Reason: fmt.Sprintf("tool %q declares no valid capability", req.Tool)}
	case req.Blocked != "":
		return Decision{Kind: Deny, Source: "block", Reason: req.Blocked}
	case g.mode == ModeAuto:
		return Decision{Kind: Allow, Source: "mode"}
	case g.mode != ModeSmart:
		return Decision{Kind: Deny, Source: "mode", Reason: fmt.Sprintf("unknown mode %q", g.mode)}
	case req.ReadOnly && !req.OutsideRoots:
		return Decision{Kind: Allow, Source: "default"}
	}
	return Decision{Kind: Ask, Source: "default"}
}

// Check decides a call, asking a person when the chain says Ask. The
// returned decision is never Ask: it is Allow or Deny, with its source.
func (g *Gate) Check(ctx context.Context, req Request) Decision {
	d := g.Evaluate(req)
	if d.Kind == Ask {
		d = g.ask(ctx, req)
	}
	if g.onDecision != nil {
		g.onDecision(req, d)
	}
	return d
}

func (g *Gate) ask(ctx context.Context, req Request) Decision {
	if g.asker == nil {
		return Decision{Kind: Deny, Source: "user", Reason: ErrNoAsker.Error()}
	}
	cancelled := Decision{Kind: Deny, Source: "user", Reason: "cancelled before asking"}
	select {
	case g.askSlot <- struct{}{}:
	case <-ctx.Done():
		return cancelled
	}
	defer func() { <-g.askSlot }()
	// select picks at random when both cases are ready: check again.
	if ctx.Err() != nil {
		return cancelled
	}
	msg := req.Summary
	if msg == "" {
		msg = fmt.Sprintf("agentls wants to use %s (%s)", req.Tool, req.Capability)
	}
	ans, err := g.asker.Ask(ctx, Question{Request: req, Message: msg})
	switch {
	case err != nil:
		return Decision{Kind: Deny, Source: "user", Reason: fmt.Sprintf("ask failed: %v", err)}
	case ans == AnswerAllow:
		return Decision{Kind: Allow, Source: "user"}
	}
	return Decision{Kind: Deny, Source: "user", Reason: "denied by the user"}
}
