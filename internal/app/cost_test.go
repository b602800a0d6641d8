package app_test

import (
	"context"
	"math"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// TestSessionPrice: a session's turn costs what the server billed at the
// model's price — agentls's estimate for a model it knows, the settings'
// price over it — and a model nobody priced shows tokens only.
func TestSessionPrice(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name   string
		model  string
		prices config.Provider
		perM   *[2]float64 // input, output price; nil: no cost
	}{
		{"a known model", "gpt-4.1", config.Provider{}, &[2]float64{2, 8}},
		{"the setting over the estimate", "gpt-4.1", config.Provider{Models: map[string]config.ModelLimits{"gpt-4.1": {Price: &config.Price{Input: f(1), Output: f(4)}}}}, &[2]float64{1, 4}},
		{"a provider's price", "test-model", config.Provider{Price: &config.Price{Input: f(0), Output: f(0)}}, &[2]float64{0, 0}},
		{"nobody's price", "test-model", config.Provider{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{"hello there"}} })
			defer srv.Close()
			a, root := newApp(t, srv.URL, func(o *app.Options) {
				o.Config.Model = "openai:" + c.model
				p := c.prices
				p.BaseURL, p.APIKeyEnv = srv.URL, "TEST_KEY"
				o.Config.Providers = map[string]config.Provider{"openai": p}
			})
			env, _ := a.Open(app.Frontend{Roots: []string{root}})
			defer env.Close()
			sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "headless"})
			if err != nil {
				t.Fatal(err)
			}
			var end agent.Event
			turn, _ := sess.Start(context.Background(), "hi", func(e agent.Event) {
				if e.Type == agent.EventTurnEnd {
					end = e
				}
			})
			turn.Wait()
			billed := srv.Usage()
			if end.TurnUsage == nil || end.TurnUsage.Input != billed.Input || billed.Input == 0 {
				t.Fatalf("turn_end %+v, billed %+v", end, billed)
			}
			got := end.TurnUsage.Cost
			if c.perM == nil {
				if got != nil || end.SessionUsage.Cost != nil {
					t.Errorf("an unpriced model has a cost: turn %v, session %v", got, end.SessionUsage.Cost)
				}
				return
			}
			want := (float64(billed.Input)*c.perM[0] + float64(billed.Output)*c.perM[1]) / 1e6
			if got == nil || math.Abs(*got-want) > 1e-12 || end.SessionUsage.Cost == nil || *end.SessionUsage.Cost != *got {
				t.Errorf("turn cost %v, session %v; want %v for %+v", got, end.SessionUsage.Cost, want, billed)
			}
		})
	}
}
