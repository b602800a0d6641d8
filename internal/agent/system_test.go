package agent_test

import (
	"context"
	"fmt"
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
				System: "SYS", Instructions: instr(tc.instructions), Skills: tc.skills})
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

// instr makes a Config.Instructions of a text function (nil stays nil).
func instr(f func() string) func(string) agent.Instructions {
	if f == nil {
		return nil
	}
	return func(string) agent.Instructions { return agent.Instructions{Text: f()} }
}

// TestInstructionsAnnouncedWhenTheyChange: the files the instructions
// come from are an event at the first turn that has any and whenever they
// change, not at every turn; the folder the person is in reaches the
// instructions.
func TestInstructionsAnnouncedWhenTheyChange(t *testing.T) {
	prov := &scripted{steps: []step{text("1"), text("2"), text("3"), text("4")}}
	reg, _ := tools.NewRegistry()
	files := []string{"AGENTS.md"}
	var folders []string
	s := agent.NewSession("x", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate("", nil, nil),
		Instructions: func(folder string) agent.Instructions {
			folders = append(folders, folder)
			return agent.Instructions{Text: "notes", Files: files}
		}})
	var announced [][]string
	turn := func(prompt string) {
		t.Helper()
		tn, err := s.Start(context.Background(), prompt, func(e agent.Event) {
			if e.Type == agent.EventInstructions {
				announced = append(announced, e.Files)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, tn)
	}
	turn("one")
	turn("two") // the same files: nothing announced
	s.SetFolder("/ws/sub")
	files = []string{"AGENTS.md", "sub/AGENTS.md"}
	turn("three")
	files = nil
	turn("four")
	want := [][]string{{"AGENTS.md"}, {"AGENTS.md", "sub/AGENTS.md"}, nil}
	if fmt.Sprint(announced) != fmt.Sprint(want) {
		t.Errorf("announced %v, want %v", announced, want)
	}
	if fmt.Sprint(folders) != "[  /ws/sub /ws/sub]" {
		t.Errorf("folders given to Instructions %q", folders)
	}
}
