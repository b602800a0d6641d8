package agent_test

import (
	"context"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// TestEnvironmentBetweenPromptAndInstructions: the environment follows
// the system prompt and precedes the instructions; it is read once per
// turn, after the tool sources were refreshed (so it can name what they
// offer), with the turn's context; an empty one leaves no gap.
func TestEnvironmentBetweenPromptAndInstructions(t *testing.T) {
	type ctxKey struct{}
	cases := []struct {
		name         string
		env          string
		instructions string
		want         string
	}{
		{"both", "ENV", "RULES", "SYS\n\nENV\n\nRULES"},
		{"environment only", "ENV", "", "SYS\n\nENV"},
		{"instructions only", "", "RULES", "SYS\n\nRULES"},
		{"neither", "", "", "SYS"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := &runLog{}
			src := &stepSource{first: []tools.Tool{&testTool{name: "mcp_x_a", readOnly: true, log: log}}}
			reg, err := tools.NewRegistry()
			if err != nil {
				t.Fatal(err)
			}
			reg.AddSource(src)
			var reads []int // the source's calls when the environment was read
			var sawCtx bool
			prov := &scripted{steps: []step{calls("", call("c1", "mcp_x_a", `{"path":"a"}`)), text("done")}}
			sess := agent.NewSession("s", agent.Config{
				Provider: prov, Tools: reg, Gate: permission.NewGate(permission.ModeAuto, nil, nil), System: "SYS",
				Environment: func(ctx context.Context) string {
					src.mu.Lock()
					reads = append(reads, src.calls)
					src.mu.Unlock()
					sawCtx = ctx.Value(ctxKey{}) == "turn"
					return c.env
				},
				Instructions: func(string) agent.Instructions { return agent.Instructions{Text: c.instructions} },
			})
			turn, err := sess.Start(context.WithValue(context.Background(), ctxKey{}, "turn"), "go", func(agent.Event) {})
			if err != nil {
				t.Fatal(err)
			}
			if res := wait(t, turn); res.Reason != agent.ReasonCompleted {
				t.Fatalf("turn = %+v", res)
			}
			reqs := prov.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for i, r := range reqs {
				if r.System != c.want {
					t.Errorf("request %d system %q, want %q", i+1, r.System, c.want)
				}
			}
			if len(reads) != 1 || reads[0] != 1 {
				t.Errorf("the environment was read at source calls %v, want once, after the first refresh ([1])", reads)
			}
			if !sawCtx {
				t.Error("the environment was not read with the turn's context")
			}
		})
	}
}
