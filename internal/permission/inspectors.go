package permission

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Inspection is what an inspector judges: the call, the mode and how many
// times in a row the session has made this same call (this one included).
type Inspection struct {
	Request Request
	Mode    Mode
	Repeats int
}

// Finding is one inspector concern. Verdict Ask puts the Message in front
// of a person; Deny refuses the call. Allow (or "") is no concern and can
// never undo another inspector's ask or deny.
type Finding struct {
	Verdict Kind `json:"verdict"`
	// Key names the concern stably ("security:pipe_to_shell",
	// "egress:push:origin"); a session grant remembers the keys the
	// person accepted.
	Key     string `json:"key"`
	Message string `json:"message"`
}

// Inspector reviews a call before the rules. The adversary (an LLM review)
// is one the caller supplies; security, egress and repetition are built in.
type Inspector interface {
	// Name is used in sources ("inspector:<name>") and explain steps.
	Name() string
	// Inspect returns the concerns about the call. An error, a panic or a
	// timeout counts as an ask naming the failure: inspectors fail closed.
	Inspect(ctx context.Context, in Inspection) ([]Finding, error)
}

// DefaultInspectTimeout bounds a supplied (adversary) inspector.
const DefaultInspectTimeout = 30 * time.Second

// inspectResult is step 4's outcome.
type inspectResult struct {
	denyBy   string    // inspector that denied first
	denies   []Finding // deny findings, for the reason
	warnings []Finding // ask findings, in inspector order
	askBy    string    // inspector of the first warning
}

// inspectorSlot is one inspector of the chain with whether the policy
// enabled it.
type inspectorSlot struct {
	name, step string
	insp       Inspector
	on         bool
	timeout    time.Duration // 0: built in, runs inline
}

// inspectorSlots lists the chain's inspectors in their fixed order:
// security, egress, repetition, adversary.
func inspectorSlots(pol *compiled, adversary Inspector, timeout time.Duration) []inspectorSlot {
	return []inspectorSlot{
		{name: "security", step: "inspector:security", insp: securityInspector{}, on: pol.security},
		{name: "egress", step: "inspector:egress", insp: egressInspector{}, on: pol.egress},
		{name: "repetition", step: "inspector:repetition", insp: repetitionInspector{limit: pol.repetition}, on: pol.repetition > 0},
		{name: "adversary", step: "inspector:adversary", insp: adversary, on: pol.adversary, timeout: timeout},
	}
}

func (g *Gate) runInspectors(ctx context.Context, v *view, mode Mode, repeats int, tr *tracer) inspectResult {
	var res inspectResult
	in := Inspection{Request: *v.r, Mode: mode, Repeats: repeats}
	for _, s := range g.slots {
		step := s.step
		if !s.on {
			tr.add(4, step, outcomeOff, "")
			continue
		}
		findings := callInspector(ctx, s, in)
		worst := Allow
		var msgs []string
		for _, f := range findings {
			switch f.Verdict {
			case Allow, "":
				continue
			case Ask, Deny:
			default:
				f = Finding{Verdict: Ask, Key: s.name + ":bad-verdict",
					Message: fmt.Sprintf("inspector %s returned verdict %q: %s", s.name, f.Verdict, f.Message)}
			}
			if f.Key == "" {
				f.Key = s.name + ":" + f.Message
			}
			if f.Verdict.strictness() > worst.strictness() {
				worst = f.Verdict
			}
			msgs = append(msgs, f.Message)
			if f.Verdict == Deny {
				if res.denyBy == "" {
					res.denyBy = s.name
				}
				res.denies = append(res.denies, f)
				continue
			}
			if res.askBy == "" {
				res.askBy = s.name
			}
			res.warnings = append(res.warnings, f)
		}
		if tr != nil {
			outcome := string(worst)
			if worst == Allow {
				outcome = outcomePass // an inspector never allows; it only has no concern
			}
			tr.add(4, step, outcome, strings.Join(msgs, "; "))
		}
	}
	return res
}

// callInspector runs one inspector, turning errors, panics, timeouts and a
// missing implementation into an ask.
func callInspector(ctx context.Context, s inspectorSlot, in Inspection) (fs []Finding) {
	fail := func(why string) []Finding {
		return []Finding{{Verdict: Ask, Key: s.name + ":error",
			Message: fmt.Sprintf("inspector %s could not review this call (%s); check it yourself", s.name, why)}}
	}
	if s.insp == nil {
		return fail("it is enabled but no implementation was supplied")
	}
	defer func() {
		if p := recover(); p != nil {
			fs = fail(fmt.Sprintf("panic: %v", p))
		}
	}()
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	out, err := s.insp.Inspect(ctx, in)
	if err != nil {
		return fail(err.Error())
	}
	return out
}

// securityInspector flags dangerous command patterns (security_patterns.go):
// critical ones deny, the rest ask. It scans any call with a command,
// whatever the tool is called.
type securityInspector struct{}

// Name implements Inspector.
func (securityInspector) Name() string { return "security" }

// Inspect implements Inspector: every pattern the command matches is a finding.
func (securityInspector) Inspect(_ context.Context, in Inspection) ([]Finding, error) {
	cmd := in.Request.Command
	if cmd == "" {
		// A tool that only gave argvs is still scanned, command by command.
		lines := make([]string, len(in.Request.Argvs))
		for i, argv := range in.Request.Argvs {
			lines[i] = strings.Join(argv, " ")
		}
		cmd = strings.Join(lines, "; ")
	}
	var out []Finding
	for _, t := range in.Request.Deletes {
		if why := Catastrophic(t, ""); why != "" {
			out = append(out, Finding{Verdict: Deny, Key: "security:catastrophic_delete",
				Message: fmt.Sprintf("security: deleting %s (critical risk): %s; agentls never runs this, run it yourself if you mean it", t, why)})
			break
		}
	}
	if cmd == "" {
		return out, nil
	}
	for _, m := range scanCommand(cmd) {
		f := Finding{Verdict: Ask, Key: "security:" + m.id,
			Message: fmt.Sprintf("security: %s (%s risk): `%s`", m.desc, m.risk, m.excerpt)}
		if m.risk == riskCritical {
			f.Verdict = Deny
			f.Message += "; agentls never runs this, run it yourself if you mean it"
		}
		out = append(out, f)
	}
	return out, nil
}

// egressInspector asks before data leaves the machine: uploads, pushes,
// publishes, remote copies and raw connections (egress.go).
type egressInspector struct{}

// Name implements Inspector.
func (egressInspector) Name() string { return "egress" }

// Inspect implements Inspector: one ask per outbound destination.
func (egressInspector) Inspect(_ context.Context, in Inspection) ([]Finding, error) {
	var out []Finding
	for _, h := range detectEgress(&in.Request) {
		msg := h.message
		if msg == "" {
			msg = fmt.Sprintf("egress: %s sends data to %s (%s)", h.what, h.dest, h.kind)
		}
		out = append(out, Finding{Verdict: Ask, Key: "egress:" + h.kind + ":" + h.dest, Message: msg})
	}
	return out, nil
}

// repetitionInspector denies the same call made more than limit times in a
// row in one session: a model stuck in a loop.
type repetitionInspector struct{ limit int }

// Name implements Inspector.
func (repetitionInspector) Name() string { return "repetition" }

// Inspect implements Inspector: over the limit is a deny.
func (r repetitionInspector) Inspect(_ context.Context, in Inspection) ([]Finding, error) {
	if r.limit <= 0 || in.Repeats <= r.limit {
		return nil, nil
	}
	return []Finding{{Verdict: Deny, Key: "repetition",
		Message: fmt.Sprintf("repetition: %s was called %d times in a row with the same input (limit %d); change approach instead of repeating it",
			in.Request.Tool, in.Repeats, r.limit)}}, nil
}
