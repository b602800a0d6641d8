package permission

import (
	"context"
	"fmt"
	"strings"
)

// verdict is the chain's result before anyone is asked.
type verdict struct {
	d        Decision  // Kind may be Ask
	warnings []Finding // inspector asks, shown with the question
	// noGrant: an ask_always entry, a hook's ask or approve mode forces a
	// prompt that no grant may skip, so none is offered.
	noGrant bool
}

// Step outcomes besides allow, ask and deny.
const (
	outcomePass       = "pass"        // no opinion, next step
	outcomeOff        = "off"         // the step is switched off
	outcomeHeld       = "held"        // an allow turned into an ask by a forced prompt
	outcomeNotReached = "not reached" // an earlier step decided
)

// decide runs the chain (docs/security.md). Steps 1-11 are cheap and
// never block on a person; step 12 (the ask) is Check's job.
func (g *Gate) decide(ctx context.Context, r *Request, repeats int, tr *tracer) verdict {
	v := newView(r, g.rootList())
	mode := g.currentMode() // one mode for the whole chain, whatever SetMode does meanwhile
	out := func(n int, step string, k Kind, source, rule, reason string) verdict {
		tr.add(n, step, string(k), reason)
		if k == Allow {
			reason = "" // an allow needs no reason; explain keeps the detail
		}
		return verdict{d: Decision{Kind: k, Source: source, Rule: rule, Reason: reason, Scope: r.scope(), Channel: g.channel}}
	}

	// 1. Chat mode: nothing runs.
	switch {
	case g.badMode != "":
		return out(1, "chat", Deny, SourceMode, "", fmt.Sprintf("unknown permission mode %q: use chat, approve, smart or auto", g.badMode))
	case mode == ModeChat:
		res := out(1, "chat", Deny, SourceMode, "", "chat mode: tools do not run; the call was skipped, answer in text instead")
		res.d.Skipped = true
		return res
	}
	tr.add(1, "chat", outcomePass, "mode "+string(mode))

	// 2. Parent scope: a subagent only gets what its parent allows.
	if r.ParentAllowed != nil {
		keys, err := parseKeys("parent scope", r.ParentAllowed)
		if err != nil {
			return out(2, "scope", Deny, SourceScope, "", err.Error())
		}
		k, ok := keys.match(v, true)
		if !ok {
			return out(2, "scope", Deny, SourceScope, "", fmt.Sprintf("a subagent may only use what its parent allows (%s); %s is not among it",
				strings.Join(r.ParentAllowed, ", "), r.Capability))
		}
		tr.add(2, "scope", outcomePass, "parent allows "+k.raw)
	} else {
		tr.add(2, "scope", outcomePass, "no parent session")
	}

	// 3. Hard blocks: malformed requests, the tool's own blocks, writes
	// outside the roots. No mode, rule or person can lift them.
	switch {
	case !r.Capability.Valid():
		return out(3, "block", Deny, SourceDefault, "", fmt.Sprintf("tool %q declares no valid capability (%q)", r.Tool, r.Capability))
	case !r.Action.valid():
		return out(3, "block", Deny, SourceDefault, "", fmt.Sprintf("tool %q declares unknown action %q", r.Tool, r.Action))
	case r.Blocked != "":
		return out(3, "block", Deny, SourceBlock, "", r.Blocked)
	case r.OutsideRoots && !r.ReadOnly:
		return out(3, "block", Deny, SourceBlock, "", fmt.Sprintf("%s changes files outside the workspace roots (%s); that is never allowed", r.Tool, strings.Join(r.Paths, ", ")))
	}
	tr.add(3, "block", outcomePass, "")

	// 4. Inspectors: strictest wins; their asks stick to the end.
	ins := g.runInspectors(ctx, v, mode, repeats, tr)
	if ins.denyBy != "" {
		msgs := make([]string, len(ins.denies))
		for i, f := range ins.denies {
			msgs[i] = f.Message
		}
		res := out(4, "", Deny, SourceInspector+ins.denyBy, "", strings.Join(msgs, "; "))
		res.warnings = ins.warnings
		return res
	}

	win := g.pol.rules.lookup(v)
	aa, askAlways := g.pol.askAlways.match(v, false)
	hook := r.Hook

	// 5. Explicit denies: the winning rule, or a hook. They beat auto mode,
	// allowed_tools and every grant.
	switch hook.Decision {
	case "", Allow, Ask:
	case Deny:
		reason := hook.Reason
		if reason == "" {
			reason = "denied by a PreToolUse hook"
		}
		return out(5, "deny-rules", Deny, SourceHook, "", reason)
	default:
		return out(5, "deny-rules", Deny, SourceHook, "", fmt.Sprintf("a PreToolUse hook returned %q, which is not allow, ask or deny", hook.Decision))
	}
	if win != nil && win.kind == Deny {
		return out(5, "deny-rules", Deny, SourceRule, win.key.raw, fmt.Sprintf("rule %q denies this call", win.key.raw))
	}
	tr.add(5, "deny-rules", outcomePass, "")

	// A forced prompt: inspector warnings, ask_always or a hook's ask turn
	// every later allow into an ask.
	var forced verdict
	forcedOn := true
	switch {
	case len(ins.warnings) > 0:
		msgs := make([]string, len(ins.warnings))
		for i, f := range ins.warnings {
			msgs[i] = f.Message
		}
		forced.d = Decision{Source: SourceInspector + ins.askBy, Reason: strings.Join(msgs, "; ")}
	case askAlways:
		forced.d = Decision{Source: SourceRule, Rule: aa.raw, Reason: fmt.Sprintf("ask_always %q matches", aa.raw)}
	case hook.Decision == Ask:
		forced.d = Decision{Source: SourceHook, Reason: strings.TrimSuffix("a PreToolUse hook asks: "+hook.Reason, ": ")}
	default:
		forcedOn = false
	}
	noGrant := askAlways || hook.Decision == Ask || mode == ModeApprove
	held := false
	finish := func(res verdict) verdict {
		res.warnings, res.noGrant = ins.warnings, noGrant
		return res
	}
	allowAt := func(n int, step, source, rule, detail string) (verdict, bool) {
		if !forcedOn {
			return finish(out(n, step, Allow, source, rule, detail)), true
		}
		held = true
		tr.add(n, step, outcomeHeld, strings.TrimPrefix(detail+"; ", "; ")+"held for a person: "+forced.d.Reason)
		return verdict{}, false
	}

	// 6. Auto mode allows what nothing above stopped.
	if mode == ModeAuto {
		if res, ok := allowAt(6, "auto", SourceMode, "", ""); ok {
			return res
		}
	} else {
		tr.add(6, "auto", outcomePass, "")
	}

	// 7. allowed_tools.
	matched := false
	for _, e := range g.pol.allowedTools {
		if e.matches(r) {
			matched = true
			if res, ok := allowAt(7, "allowed-tools", SourceAllowedTools, e.raw, "allowed_tools "+e.raw); ok {
				return res
			}
			break
		}
	}
	if !matched {
		tr.add(7, "allowed-tools", outcomePass, "")
	}

	// 8. A hook's allow skips the prompt (and is still recorded).
	if hook.Decision == Allow {
		if res, ok := allowAt(8, "hook", SourceHook, "", hook.Reason); ok {
			return res
		}
	} else {
		tr.add(8, "hook", outcomePass, string(hook.Decision))
	}

	// 9. The rules table; ask_always turns its allow into an ask.
	var ruleAsk *rule
	switch {
	case win != nil && win.kind == Allow:
		if res, ok := allowAt(9, "rules", SourceRule, win.key.raw, "rule "+win.key.raw); ok {
			return res
		}
	case win != nil && win.kind == Ask:
		ruleAsk = win
		tr.add(9, "rules", string(Ask), "rule "+win.key.raw)
	default:
		detail := "no rule matches"
		if askAlways {
			detail += "; ask_always " + aa.raw + " matches"
		}
		tr.add(9, "rules", outcomePass, detail)
	}

	// 10. Grants: session, then persistent. Approve mode ignores both.
	switch {
	case !forcedOn && ruleAsk == nil && r.ReadOnly && !r.OutsideRoots && mode != ModeApprove && g.isKnown(r.Capability):
		tr.add(10, "grants", outcomePass, "not needed: the default allows read-only calls inside the workspace")
	case mode == ModeApprove:
		tr.add(10, "grants", outcomeOff, "approve mode asks every time")
	case noGrant:
		tr.add(10, "grants", outcomeOff, "this call must be asked every time")
	default:
		if res, ok := g.grantFor(ctx, v, ins.warnings, tr); ok {
			res.d.Scope, res.d.Channel = r.scope(), g.channel
			return finish(res)
		}
	}

	// 11. Defaults.
	switch {
	case held:
		return finish(out(11, "default", Ask, forced.d.Source, forced.d.Rule, forced.d.Reason))
	case ruleAsk != nil:
		reason := fmt.Sprintf("rule %q asks", ruleAsk.key.raw)
		if forcedOn {
			reason += "; " + forced.d.Reason
		}
		return finish(out(11, "default", Ask, SourceRule, ruleAsk.key.raw, reason))
	case personal(r.Capability) && !forcedOn:
		return finish(out(11, "default", Allow, SourceDefault, "", "the agent's own plan, a question to the person or a subagent"))
	case !g.isKnown(r.Capability):
		return finish(out(11, "default", Deny, SourceDefault, "",
			fmt.Sprintf("capability %s is unknown and no rule covers it; add a permissions rule such as {%q: \"ask\"} to use it", r.Capability, string(r.Capability))))
	case mode == ModeApprove:
		return g.forcedOr(finish(out(11, "default", Ask, SourceDefault, "", "approve mode asks before every call")), forcedOn, forced)
	case r.Confined && !r.OutsideRoots && !forcedOn && mode == ModeSmart:
		return finish(out(11, "default", Allow, SourceSandbox, "", "a known build or test command in a trusted workspace, confined by the kernel's sandbox"))
	case r.ReadOnly && !r.OutsideRoots:
		if forcedOn {
			return finish(out(11, "default", Ask, forced.d.Source, forced.d.Rule, forced.d.Reason))
		}
		return finish(out(11, "default", Allow, SourceDefault, "", "read-only inside the workspace"))
	case r.ReadOnly:
		return g.forcedOr(finish(out(11, "default", Ask, SourceDefault, "", "reads outside the workspace roots")), forcedOn, forced)
	}
	return g.forcedOr(finish(out(11, "default", Ask, SourceDefault, "", fmt.Sprintf("%s (%s) may change things", r.Tool, r.Capability))), forcedOn, forced)
}

// forcedOr attributes a default ask to the forced prompt when there is one,
// so the event names the inspector or ask_always entry that insisted.
func (g *Gate) forcedOr(res verdict, on bool, forced verdict) verdict {
	if on {
		res.d.Source, res.d.Rule, res.d.Reason = forced.d.Source, forced.d.Rule, forced.d.Reason
	}
	return res
}

// tracer records explain steps; a nil tracer (Check) records nothing and
// costs nothing.
type tracer struct {
	steps []Step
}

func (t *tracer) add(n int, step, outcome, detail string) {
	if t == nil || step == "" {
		return
	}
	t.steps = append(t.steps, Step{N: n, Step: step, Outcome: outcome, Detail: detail})
}
