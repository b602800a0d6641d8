package agent_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// stepSource is a tools.Source whose tools change after its first call,
// as an MCP server's do after tools/list_changed.
type stepSource struct {
	mu    sync.Mutex
	calls int
	first []tools.Tool
	later []tools.Tool
}

func (s *stepSource) Tools(context.Context) ([]tools.Tool, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.calls == 1 {
		return s.first, []string{"mcp: server x failed to start"}
	}
	return s.later, nil
}

func TestToolSourceIsReadEveryStep(t *testing.T) {
	log := &runLog{}
	src := &stepSource{
		first: []tools.Tool{&testTool{name: "mcp_x_old", readOnly: true, log: log}},
		later: []tools.Tool{&testTool{name: "mcp_x_new", readOnly: true, log: log}},
	}
	reg, err := tools.NewRegistry(&testTool{name: "echo", readOnly: true, log: log})
	if err != nil {
		t.Fatal(err)
	}
	reg.AddSource(src)
	prov := &scripted{steps: []step{calls("", call("c1", "mcp_x_old", `{"path":"a"}`)), calls("", call("c2", "mcp_x_new", `{"path":"b"}`)), text("done")}}
	sess := agent.NewSession("s", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate(permission.ModeSmart, nil, nil), MaxSteps: 5})
	rec := &recorder{}
	turn, err := sess.Start(context.Background(), "go", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res := wait(t, turn); res.Reason != agent.ReasonCompleted {
		t.Fatalf("turn = %+v", res)
	}
	reqs := prov.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range [][]string{{"echo", "mcp_x_old"}, {"echo", "mcp_x_new"}, {"echo", "mcp_x_new"}} {
		var names []string
		for _, d := range reqs[i].Tools {
			names = append(names, d.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("step %d offered %v, want %v", i+1, names, want)
		}
	}
	// Each step ran the tool offered at that step.
	if got := log.get(); !slices.Equal(got, []string{"mcp_x_old a", "mcp_x_new b"}) {
		t.Errorf("runs = %v", got)
	}
	var warnings []string
	for _, e := range rec.all() {
		if e.Type == agent.EventWarning {
			warnings = append(warnings, e.Message)
		}
	}
	if !slices.Equal(warnings, []string{"mcp: server x failed to start"}) {
		t.Errorf("warnings = %q, want the source's notice once", warnings)
	}
}
