package permission

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// rule is one compiled rules-table entry.
type rule struct {
	key  RuleKey
	kind Kind
}

// ruleTable indexes rules by capability pattern so a lookup costs a few map
// reads whatever the table size.
type ruleTable struct {
	byPattern map[string][]*rule
}

func compileRules(rules map[string]Kind) (ruleTable, error) {
	t := ruleTable{byPattern: map[string][]*rule{}}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range rules {
			if !yield(k) {
				return
			}
		}
	})
	for _, raw := range keys {
		kind := rules[raw]
		if _, err := ParseKind(string(kind)); err != nil {
			return t, fmt.Errorf("rule %q: %w", raw, err)
		}
		k, err := ParseRuleKey(raw)
		if err != nil {
			return t, err
		}
		p := k.pattern()
		t.byPattern[p] = append(t.byPattern[p], &rule{key: k, kind: kind})
	}
	for _, list := range t.byPattern {
		// Scoped before unscoped, more specific scope first, then the
		// stricter value, then the key for a stable order.
		slices.SortFunc(list, func(a, b *rule) int {
			switch {
			case a.key.Scoped() != b.key.Scoped():
				if a.key.Scoped() {
					return -1
				}
				return 1
			case a.key.spec != b.key.spec:
				return b.key.spec - a.key.spec
			case a.kind != b.kind:
				return b.kind.strictness() - a.kind.strictness()
			}
			return strings.Compare(a.key.raw, b.key.raw)
		})
	}
	return t, nil
}

// lookup returns the winning rule for r, or nil: exact capability beats
// wildcards, a longer wildcard beats a shorter one, "*" comes last; within
// one pattern a scoped key beats an unscoped one. Allow keys match
// strictly, ask and deny keys generously.
func (t *ruleTable) lookup(v *view) *rule {
	if len(t.byPattern) == 0 {
		return nil
	}
	c := string(v.r.Capability)
	if rl := t.first(c, v); rl != nil {
		return rl
	}
	for i := strings.LastIndexByte(c, '.'); i > 0; i = strings.LastIndexByte(c[:i], '.') {
		if rl := t.first(c[:i]+".*", v); rl != nil {
			return rl
		}
	}
	return t.first("*", v)
}

func (t *ruleTable) first(pattern string, v *view) *rule {
	for _, rl := range t.byPattern[pattern] {
		if rl.key.matches(v, rl.kind == Allow) {
			return rl
		}
	}
	return nil
}

// covers reports whether any rule names capability c, scoped or not: such
// a capability is not "unknown".
func (t *ruleTable) covers(c Capability) bool {
	if _, ok := t.byPattern[string(c)]; ok {
		return true
	}
	if _, ok := t.byPattern["*"]; ok {
		return true
	}
	s := string(c)
	for i := strings.LastIndexByte(s, '.'); i > 0; i = strings.LastIndexByte(s[:i], '.') {
		if _, ok := t.byPattern[s[:i]+".*"]; ok {
			return true
		}
	}
	return false
}

// keyList is a list of keys matched in order (ask_always, parent scope).
type keyList []RuleKey

func parseKeys(what string, keys []string) (keyList, error) {
	out := make(keyList, 0, len(keys))
	for _, s := range keys {
		k, err := ParseRuleKey(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, k)
	}
	return out, nil
}

// match returns the first key covering r.
func (l keyList) match(v *view, strict bool) (RuleKey, bool) {
	for i := range l {
		if l[i].matches(v, strict) {
			return l[i], true
		}
	}
	return RuleKey{}, false
}

// covers reports whether any key names capability c.
func (l keyList) covers(c Capability) bool {
	for i := range l {
		if l[i].coversCapability(c) {
			return true
		}
	}
	return false
}

// toolEntry is one allowed_tools entry: a tool name, optionally with an
// action.
type toolEntry struct {
	raw    string
	tool   string
	action Action
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*$`)

// ParseAllowedTool validates an allowed_tools entry: "tool" or
// "tool:action" with action read, write or execute.
func ParseAllowedTool(s string) error {
	_, err := parseToolEntry(s)
	return err
}

func parseToolEntry(s string) (toolEntry, error) {
	tool, action, hasAction := strings.Cut(s, ":")
	if !toolNameRE.MatchString(tool) {
		return toolEntry{}, fmt.Errorf("allowed_tools entry %q: %q is not a tool name; use \"view\" or \"edit:write\"", s, tool)
	}
	e := toolEntry{raw: s, tool: tool}
	if hasAction {
		e.action = Action(action)
		if action == "" || !e.action.valid() {
			return toolEntry{}, fmt.Errorf("allowed_tools entry %q: action %q is not read, write or execute", s, action)
		}
	}
	return e, nil
}

func (e toolEntry) matches(r *Request) bool {
	return e.tool == r.Tool && (e.action == "" || e.action == r.Action)
}
