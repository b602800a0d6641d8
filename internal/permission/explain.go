package permission

import "context"

// Step is one step of the chain as `permission explain` shows it.
type Step struct {
	N       int    `json:"n"`
	Step    string `json:"step"`
	Outcome string `json:"outcome"` // allow, ask, deny, pass, off, held, not reached
	Detail  string `json:"detail,omitempty"`
}

// Explanation is the chain's verdict on a call with every step, ready to
// print as JSON. Decision may be ask: nobody was asked.
type Explanation struct {
	Decision   Kind       `json:"decision"`
	Source     string     `json:"source"`
	Rule       string     `json:"rule,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	Tool       string     `json:"tool"`
	Capability Capability `json:"capability"`
	Scope      string     `json:"scope,omitempty"`
	// Choices are what the person would be offered when Decision is ask.
	Choices  []Choice `json:"choices,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	Steps    []Step   `json:"steps"`
}

// chainSteps names every step in order, so explain can show the ones an
// earlier decision skipped.
var chainSteps = []struct {
	n    int
	name string
}{
	{1, "chat"}, {2, "scope"}, {3, "block"},
	{4, "inspector:security"}, {4, "inspector:egress"}, {4, "inspector:repetition"}, {4, "inspector:adversary"},
	{5, "deny-rules"}, {6, "auto"}, {7, "allowed-tools"}, {8, "hook"}, {9, "rules"},
	{10, "grants"}, {11, "default"}, {12, "ask"},
}

// Evaluate runs the chain without running the tool, asking anyone or
// counting the call toward repetition, and explains the result. The
// inspectors do run (an adversary may call its model).
func (g *Gate) Evaluate(ctx context.Context, req Request) Explanation {
	tr := &tracer{}
	v := g.decide(ctx, &req, g.repeats(&req, false), tr)
	e := Explanation{
		Decision: v.d.Kind, Source: v.d.Source, Rule: v.d.Rule, Reason: v.d.Reason,
		Tool: req.Tool, Capability: req.Capability, Scope: v.d.Scope,
	}
	for _, w := range v.warnings {
		e.Warnings = append(e.Warnings, w.Message)
	}
	if v.d.Kind == Ask {
		q := g.question(&req, v)
		e.Choices = q.Choices
		tr.add(12, "ask", string(Ask), q.Message)
	}
	traced := make(map[string]Step, len(tr.steps))
	for _, s := range tr.steps {
		traced[s.Step] = s
	}
	for _, cs := range chainSteps {
		s, ok := traced[cs.name]
		if !ok {
			s = Step{N: cs.n, Step: cs.name, Outcome: outcomeNotReached}
		}
		e.Steps = append(e.Steps, s)
	}
	return e
}

// AsDecision returns the explanation's verdict as a Decision.
func (e Explanation) AsDecision() Decision {
	return Decision{Kind: e.Decision, Source: e.Source, Rule: e.Rule, Reason: e.Reason, Scope: e.Scope}
}
