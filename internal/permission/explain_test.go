package permission_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

func TestEvaluateJSON(t *testing.T) {
	var asked bool
	g := newGate(t, policy(func(p *permission.Policy) {
		p.Rules = map[string]permission.Kind{"shell.exec:go test": "allow"}
	}), permission.Options{Asker: askerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
		asked = true
		return permission.AnswerAllow, nil
	})})
	e := g.Evaluate(context.Background(), goTest)
	if asked {
		t.Fatal("Evaluate asked a person")
	}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"capability", "decision", "rule", "scope", "source", "steps", "tool"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %v, want %v (%s)", keys, want, raw)
	}
	if m["decision"] != "allow" || m["source"] != "rule" || m["rule"] != "shell.exec:go test" || m["scope"] != "go test ./..." {
		t.Errorf("explanation %s", raw)
	}
	steps := m["steps"].([]any)
	if len(steps) != 15 {
		t.Fatalf("%d steps, want all 15", len(steps))
	}
	for _, s := range steps {
		st := s.(map[string]any)
		if st["step"] == "" || st["outcome"] == "" {
			t.Errorf("step %v lacks a name or outcome", st)
		}
	}
	var names []string
	for _, s := range e.Steps {
		names = append(names, s.Step+"="+s.Outcome)
	}
	wantNames := []string{"chat=pass", "scope=pass", "block=pass", "inspector:security=pass", "inspector:egress=pass",
		"inspector:repetition=pass", "inspector:adversary=off", "deny-rules=pass", "auto=pass", "allowed-tools=pass",
		"hook=pass", "rules=allow", "grants=not reached", "default=not reached", "ask=not reached"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("steps\n%v\nwant\n%v", names, wantNames)
	}
	if d := e.AsDecision(); d.Kind != permission.Allow || d.Rule != "shell.exec:go test" {
		t.Errorf("AsDecision = %+v", d)
	}
}

func TestEvaluateAsk(t *testing.T) {
	g := newGate(t, policy(nil), permission.Options{Asker: answer(permission.AnswerAllow)})
	push := shell("git push origin main", "git push", "git", "push", "origin", "main")
	e := g.Evaluate(context.Background(), push)
	if e.Decision != permission.Ask || e.Source != "inspector:egress" || len(e.Warnings) != 1 || len(e.Choices) != 3 {
		t.Fatalf("Evaluate = %+v", e)
	}
	last := e.Steps[len(e.Steps)-1]
	if last.Step != "ask" || last.Outcome != "ask" || last.Detail == "" {
		t.Errorf("ask step %+v", last)
	}
	// A denial short-circuits: later steps are "not reached".
	e = g.Evaluate(context.Background(), with(push, func(r *permission.Request) { r.Blocked = "no" }))
	for _, s := range e.Steps[3:] {
		if s.Outcome != "not reached" {
			t.Errorf("after a block, step %s = %s", s.Step, s.Outcome)
		}
	}
}
