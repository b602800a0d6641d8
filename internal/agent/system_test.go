package agent_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// TestSystemPromptParts: the system prompt is the session's own, then the
// project's instructions, then the list of skills, each read at the start
// of every turn and left out when empty.
func TestSystemPromptParts(t *testing.T) {
	tests := []struct {
		name                 string
		instructions, skills func() string
		want                 string
	}{
		{"neither", nil, nil, "SYS"},
		{"instructions", func() string { return "INSTR" }, nil, "SYS\n\nINSTR"},
		{"skills", nil, func() string { return "SKILLS" }, "SYS\n\nSKILLS"},
		{"both, in order", func() string { return "INSTR" }, func() string { return "SKILLS" }, "SYS\n\nINSTR\n\nSKILLS"},
		{"empty parts", func() string { return "" }, func() string { return "" }, "SYS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prov := &scripted{steps: []step{text("ok")}}
			reg, _ := tools.NewRegistry()
			s := agent.NewSession("x", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate("", nil, nil),
				System: "SYS", Instructions: tc.instructions, Skills: tc.skills})
			turn, err := s.Start(context.Background(), "hi", func(agent.Event) {})
			if err != nil {
				t.Fatal(err)
			}
			wait(t, turn)
			if r := prov.requests(); len(r) != 1 || r[0].System != tc.want {
				t.Errorf("system prompt %q, want %q", r[0].System, tc.want)
			}
		})
	}
}

// TestSkillsEveryTurnAndInSubagents: the list of skills is read again at
// each turn (once: the steps of a turn share it), and a subagent's
// prompt has it after its own.
func TestSkillsEveryTurnAndInSubagents(t *testing.T) {
	prov := &scripted{steps: []step{
		text("first"),
		calls("", call("a1", "agent", `{"prompt":"look"}`)),
		text("the subagent's answer"),
		text("second"),
	}}
	reg, _ := tools.NewRegistry(tools.NewAgentTool())
	subs, _ := tools.NewRegistry()
	version := 0
	s := agent.NewSession("x", agent.Config{Provider: prov, Tools: reg, Subagents: subs, Gate: permission.NewGate(permission.ModeSmart, nil, nil),
		System: "SYS", Skills: func() string { version++; return "SKILLS v" + strconv.Itoa(version) }})
	for _, prompt := range []string{"one", "two"} {
		turn, err := s.Start(context.Background(), prompt, func(agent.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, turn)
	}
	r := prov.requests()
	if len(r) != 4 {
		t.Fatalf("%d requests, want 4", len(r))
	}
	want := []string{"SYS\n\nSKILLS v1", "SYS\n\nSKILLS v2", agent.SubagentSystemPrompt + "\n\nSKILLS v3", "SYS\n\nSKILLS v2"}
	for i, w := range want {
		if r[i].System != w {
			t.Errorf("request %d: system prompt %q, want %q", i+1, r[i].System, w)
		}
	}
	if !strings.HasPrefix(r[2].System, "You are a subagent") {
		t.Errorf("request 3 is not the subagent's: %q", r[2].System)
	}
}
