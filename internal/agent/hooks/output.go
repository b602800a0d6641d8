package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
)

// Decision is a hook's verdict on what the agent is about to do.
type Decision string

// Decisions, weakest first; when hooks disagree the strongest wins.
const (
	// NoOpinion leaves the decision to the rest of the agent.
	NoOpinion Decision = ""
	// Allow approves: for PreToolUse it skips only the person's ask.
	Allow Decision = "allow"
	// Deny refuses, with a reason for the model (or the user).
	Deny Decision = "deny"
)

// Default reasons when a hook gives none.
const (
	defaultDenyReason = "denied by a hook"
	defaultHaltReason = "turn halted by a hook"
)

// verdict is what one hook said.
type verdict struct {
	decision   Decision
	reason     string // why it allowed or denied
	halt       bool
	haltReason string
	context    string
	patch      map[string]json.RawMessage
}

// hookOutput is every stdout field understood: ours, and Claude Code's.
// Unknown fields are ignored so hooks written for newer versions work.
type hookOutput struct {
	Decision     *string         `json:"decision"`
	Reason       string          `json:"reason"`
	Context      json.RawMessage `json:"context"`
	UpdatedInput json.RawMessage `json:"updated_input"`
	Halt         bool            `json:"halt"`
	// Claude Code's general fields.
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	// Claude Code's per-event fields.
	Specific *struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parseOutput reads the stdout of a hook that exited 0. Empty output is no
// opinion. On an error the verdict is no opinion; warnings are problems
// that did not void the rest of the output.
func parseOutput(event EventName, stdout string) (verdict, []string, error) {
	var v verdict
	text := strings.TrimSpace(stdout)
	if text == "" {
		return v, nil, nil
	}
	var o hookOutput
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		return verdict{}, nil, fmt.Errorf("stdout is not a JSON object (%w); print nothing, or one JSON object such as {\"decision\":\"deny\",\"reason\":\"…\"}", err)
	}
	var warnings []string
	var reasons []string
	if o.Decision != nil {
		switch d := strings.ToLower(*o.Decision); d {
		case "allow", "approve":
			v.decision = Allow
		case "deny", "block":
			v.decision = Deny
		case "":
		default:
			warnings = append(warnings, fmt.Sprintf("unknown decision %q ignored; use \"allow\" or \"deny\"", *o.Decision))
		}
	}
	reasons = appendNonEmpty(reasons, o.Reason)
	ctx, err := contextText(o.Context)
	if err != nil {
		return verdict{}, nil, err
	}
	v.context = ctx
	if v.patch, err = inputPatch(nil, o.UpdatedInput, "updated_input"); err != nil {
		warnings = append(warnings, err.Error())
	}
	if o.Halt {
		v.halt, v.haltReason = true, strings.TrimSpace(o.Reason)
	}
	if o.Continue != nil && !*o.Continue {
		v.halt = true
		v.haltReason = firstNonEmpty(strings.TrimSpace(o.StopReason), strings.TrimSpace(o.Reason))
	}
	if s := o.Specific; s != nil {
		if s.HookEventName != "" && s.HookEventName != string(event) {
			warnings = append(warnings, fmt.Sprintf("hookSpecificOutput.hookEventName is %q but the event is %s; it was applied anyway", s.HookEventName, event))
		}
		switch d := strings.ToLower(s.PermissionDecision); d {
		case "allow":
			v.decision = stronger(v.decision, Allow)
		case "deny":
			v.decision = Deny
		case "", "ask":
			// Ask is what the gate does without an opinion.
		default:
			warnings = append(warnings, fmt.Sprintf("unknown permissionDecision %q ignored; use \"allow\", \"deny\" or \"ask\"", s.PermissionDecision))
		}
		if r := strings.TrimSpace(s.PermissionDecisionReason); r != "" && r != strings.TrimSpace(o.Reason) {
			reasons = append(reasons, r)
		}
		if v.context != "" && s.AdditionalContext != "" {
			v.context += "\n"
		}
		v.context += strings.TrimSpace(s.AdditionalContext)
		if v.patch, err = inputPatch(v.patch, s.UpdatedInput, "hookSpecificOutput.updatedInput"); err != nil {
			warnings = append(warnings, err.Error())
		}
	}
	v.reason = strings.Join(reasons, "\n")
	if v.halt {
		v.decision = Deny // a halted turn runs nothing more, whatever else was said
		v.haltReason = firstNonEmpty(v.haltReason, defaultHaltReason)
	}
	if v.decision == Deny && v.reason == "" {
		v.reason = firstNonEmpty(v.haltReason, defaultDenyReason)
	}
	return v, warnings, nil
}

// contextText accepts a string or an array of strings (joined by lines).
func contextText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s), nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", errors.New("\"context\" must be a string or an array of strings")
	}
	var parts []string
	for _, p := range list {
		parts = appendNonEmpty(parts, p)
	}
	return strings.Join(parts, "\n"), nil
}

// inputPatch merges the object in raw onto patch. A JSON string holding an
// object is accepted too, as some hooks print the input re-encoded.
func inputPatch(patch map[string]json.RawMessage, raw json.RawMessage, field string) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return patch, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = []byte(s)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return patch, fmt.Errorf("%s ignored: it must be a JSON object of the tool's parameters", field)
	}
	if patch == nil {
		patch = make(map[string]json.RawMessage, len(obj))
	}
	maps.Copy(patch, obj)
	return patch, nil
}

// merge combines verdicts in configuration order: deny beats allow beats
// no opinion, halt is sticky, reasons and context are joined in order and
// input patches merge shallowly with later keys winning.
func merge(vs []verdict) Result {
	var (
		res                    Result
		deny, allow, halt, ctx []string
	)
	for _, v := range vs {
		res.Decision = stronger(res.Decision, v.decision)
		switch v.decision {
		case Deny:
			deny = appendNonEmpty(deny, v.reason)
		case Allow:
			allow = appendNonEmpty(allow, v.reason)
		}
		if v.halt {
			res.Halt = true
			halt = appendNonEmpty(halt, v.haltReason)
		}
		ctx = appendNonEmpty(ctx, v.context)
		if len(v.patch) > 0 {
			if res.UpdatedInput == nil {
				res.UpdatedInput = make(map[string]json.RawMessage, len(v.patch))
			}
			maps.Copy(res.UpdatedInput, v.patch)
		}
	}
	switch res.Decision {
	case Deny:
		res.Reason = strings.Join(deny, "\n")
	case Allow:
		res.Reason = strings.Join(allow, "\n")
	}
	res.HaltReason = strings.Join(halt, "\n")
	res.Context = strings.Join(ctx, "\n")
	return res
}

// stronger is the decision that wins between a and b.
func stronger(a, b Decision) Decision {
	rank := func(d Decision) int {
		switch d {
		case Deny:
			return 2
		case Allow:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// ApplyInput returns the tool input with patch's top-level keys replaced,
// which is what a PreToolUse rewrite means (nested objects are replaced
// whole). The gate must judge the result again: a hook's rewrite is not an
// approval of it.
func ApplyInput(input json.RawMessage, patch map[string]json.RawMessage) (json.RawMessage, error) {
	if len(patch) == 0 {
		return input, nil
	}
	obj := map[string]json.RawMessage{}
	if in := bytes.TrimSpace(input); len(in) > 0 && string(in) != "null" {
		if err := json.Unmarshal(in, &obj); err != nil {
			return nil, fmt.Errorf("apply hook rewrite: the tool input is not a JSON object: %w", err)
		}
		if obj == nil {
			obj = map[string]json.RawMessage{}
		}
	}
	maps.Copy(obj, patch)
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("apply hook rewrite: %w", err)
	}
	return out, nil
}

func appendNonEmpty(list []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		list = append(list, s)
	}
	return list
}

func firstNonEmpty(list ...string) string {
	for _, s := range list {
		if s != "" {
			return s
		}
	}
	return ""
}
