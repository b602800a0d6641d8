package agent_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/providertest"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

func usd(v float64) *float64 { return &v }

// near compares dollar amounts summed in floating point.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestPriceCost(t *testing.T) {
	sonnet := agent.Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}
	for _, c := range []struct {
		name string
		p    agent.Price
		u    agent.Usage
		want float64
	}{
		{"plain", sonnet, agent.Usage{Input: 1_000_000, Output: 1_000_000}, 18},
		// Input counts the cached tokens too: only the rest is fresh.
		{"cache read", sonnet, agent.Usage{Input: 1_000_000, CacheRead: 800_000, Output: 0}, 0.2*3 + 0.8*0.3},
		{"cache write", sonnet, agent.Usage{Input: 1_000_000, CacheWrite: 1_000_000}, 3.75},
		{"all kinds", sonnet, agent.Usage{Input: 2000, CacheRead: 1000, CacheWrite: 500, Output: 100},
			(500*3 + 1000*0.3 + 500*3.75 + 100*15) / 1e6},
		// A provider that counts cached tokens beyond the prompt is not
		// billed negative fresh tokens.
		{"inconsistent counts", sonnet, agent.Usage{Input: 10, CacheRead: 20}, 20 * 0.3 / 1e6},
		{"free local model", agent.Price{}, agent.Usage{Input: 5000, Output: 500}, 0},
	} {
		if got := c.p.Cost(c.u); !near(got, c.want) {
			t.Errorf("%s: Cost = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPriced(t *testing.T) {
	p := agent.Price{Input: 1, Output: 2}
	if got := p.Priced(agent.Usage{}); got.Cost != nil {
		t.Errorf("a usage without tokens got cost %v", *got.Cost)
	}
	if got := p.Priced(agent.Usage{Input: 1e6, Output: 1e6}); got.Cost == nil || !near(*got.Cost, 3) {
		t.Errorf("Priced = %+v, want cost 3", got)
	}
	if got := p.Priced(agent.Usage{Input: 1e6, Cost: usd(0.5)}); *got.Cost != 0.5 {
		t.Errorf("a billed cost was replaced: %v", *got.Cost)
	}
}

func TestUsageAddCost(t *testing.T) {
	priced := func(in int, c float64) agent.Usage { return agent.Usage{Input: in, Cost: usd(c)} }
	for _, c := range []struct {
		name string
		a, b agent.Usage
		want *float64
	}{
		{"both priced", priced(10, 0.25), priced(20, 0.5), usd(0.75)},
		{"from zero", agent.Usage{}, priced(10, 0.25), usd(0.25)},
		{"plus zero", priced(10, 0.25), agent.Usage{}, usd(0.25)},
		{"unpriced tokens make the sum unknown", priced(10, 0.25), agent.Usage{Input: 5}, nil},
		{"unknown first", agent.Usage{Output: 5}, priced(10, 0.25), nil},
		{"neither priced", agent.Usage{Input: 1}, agent.Usage{Input: 2}, nil},
		{"nothing", agent.Usage{}, agent.Usage{}, nil},
		{"free is known", priced(10, 0), priced(10, 0), usd(0)},
	} {
		got := c.a.Add(c.b)
		switch {
		case (got.Cost == nil) != (c.want == nil):
			t.Errorf("%s: cost %v, want %v", c.name, got.Cost, c.want)
		case c.want != nil && !near(*got.Cost, *c.want):
			t.Errorf("%s: cost %v, want %v", c.name, *got.Cost, *c.want)
		}
		if got.Input != c.a.Input+c.b.Input || got.Output != c.a.Output+c.b.Output {
			t.Errorf("%s: tokens %+v", c.name, got)
		}
	}
	// The sum never writes through a part's cost.
	a := priced(1, 1)
	_ = a.Add(priced(1, 2))
	if *a.Cost != 1 {
		t.Errorf("Add changed its receiver's cost to %v", *a.Cost)
	}
}

func TestUsageJSON(t *testing.T) {
	for _, c := range []struct {
		u    agent.Usage
		want string
	}{
		{agent.Usage{Input: 3, Output: 1}, `{"input_tokens":3,"output_tokens":1}`},
		{agent.Usage{Input: 3, Output: 1, Cost: usd(0.0125)}, `{"input_tokens":3,"output_tokens":1,"cost_usd":0.0125}`},
		{agent.Usage{Input: 3, Output: 1, Cost: usd(0)}, `{"input_tokens":3,"output_tokens":1,"cost_usd":0}`},
	} {
		b, _ := json.Marshal(c.u)
		if string(b) != c.want {
			t.Errorf("%+v encodes as %s, want %s", c.u, b, c.want)
		}
		var back agent.Usage
		if err := json.Unmarshal(b, &back); err != nil || (back.Cost == nil) != (c.u.Cost == nil) || (back.Cost != nil && *back.Cost != *c.u.Cost) {
			t.Errorf("%s decodes as %+v (%v)", b, back, err)
		}
	}
}

func TestFormatCost(t *testing.T) {
	for _, c := range []struct {
		usd  float64
		want string
	}{
		{0, "$0"}, {0.00004, "<$0.0001"}, {0.0042, "$0.0042"}, {0.0123, "$0.012"}, {0.5, "$0.500"}, {1.5, "$1.50"}, {42.129, "$42.13"},
	} {
		if got := agent.FormatCost(c.usd); got != c.want {
			t.Errorf("FormatCost(%v) = %q, want %q", c.usd, got, c.want)
		}
	}
}

// memJournal keeps a session's records.
type memJournal struct {
	mu   sync.Mutex
	recs []agent.JournalRecord
}

func (j *memJournal) Append(kind string, data json.RawMessage) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.recs = append(j.recs, agent.JournalRecord{Kind: kind, Data: append(json.RawMessage(nil), data...)})
	return nil
}

func (j *memJournal) records() []agent.JournalRecord {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]agent.JournalRecord(nil), j.recs...)
}

func withUsage(s step, in, out int) step {
	s.resp.Usage = agent.Usage{Input: in, Output: out}
	return s
}

// costSession is a session whose one provider serves the parent and its
// subagent in turn: the parent starts a subagent, the subagent answers,
// the parent answers; then a second turn of one step.
func costSession(t *testing.T, price *agent.Price, restored agent.Restored) (*agent.Session, *memJournal) {
	t.Helper()
	prov := &scripted{steps: []step{
		withUsage(calls("", call("a1", "agent", `{"prompt":"find it","description":"find"}`)), 1_000_000, 0),
		withUsage(text("found it"), 0, 1_000_000), // the subagent
		withUsage(text("done"), 2_000_000, 0),
		withUsage(text("again"), 0, 2_000_000), // turn 2
	}}
	reg, err := tools.NewRegistry(tools.NewAgentTool())
	if err != nil {
		t.Fatal(err)
	}
	subs, err := tools.NewRegistry(&testTool{name: "echo", readOnly: true, log: &runLog{}})
	if err != nil {
		t.Fatal(err)
	}
	j := &memJournal{}
	return agent.NewSession("s", agent.Config{Provider: prov, Tools: reg, Subagents: subs,
		Gate: permission.NewGate(permission.ModeAuto, nil, nil), Price: price, Journal: j, Restored: restored}), j
}

func cost(u *agent.Usage) any {
	if u == nil || u.Cost == nil {
		return nil
	}
	return math.Round(*u.Cost*1e6) / 1e6
}

// TestSessionCost: at a known price every usage event has the step's,
// the turn's (the subagent's step included) and the session's cost;
// turn_end has the turn's and the session's; the journal keeps each
// call's, so a restored session sums to the same.
func TestSessionCost(t *testing.T) {
	sess, j := costSession(t, &agent.Price{Input: 1, Output: 10}, agent.Restored{}) // $1 a million in, $10 out
	type costs struct {
		parent            string
		step, turn, total any
	}
	seen := func(rec *recorder) []costs {
		var out []costs
		for _, e := range rec.all() {
			if e.Type == agent.EventUsage || e.Type == agent.EventTurnEnd {
				out = append(out, costs{e.ParentID, cost(e.Usage), cost(e.TurnUsage), cost(e.SessionUsage)})
			}
		}
		return out
	}
	rec := &recorder{}
	res := providertest.RunTurn(t, sess, "go", rec.emit)
	want := []costs{
		{"", 1.0, 1.0, 1.0},
		{"a1", 10.0, 10.0, 10.0}, // the subagent's own turn and session
		{"a1", nil, 10.0, 10.0},
		{"", 2.0, 13.0, 13.0},
		{"", nil, 13.0, 13.0}, // turn_end
	}
	if got := seen(rec); !reflect.DeepEqual(got, want) {
		t.Errorf("turn 1 costs (parent, step, turn, session):\n got %v\nwant %v", got, want)
	}
	if cost(&res.Usage) != 13.0 {
		t.Errorf("the turn's result costs %v, want 13", cost(&res.Usage))
	}
	rec = &recorder{}
	providertest.RunTurn(t, sess, "again", rec.emit)
	if got, want := seen(rec), []costs{{"", 20.0, 20.0, 33.0}, {"", nil, 20.0, 33.0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("turn 2 costs:\n got %v\nwant %v", got, want)
	}
	if u := sess.Usage(); cost(&u) != 33.0 || u.Input != 3_000_000 || u.Output != 3_000_000 {
		t.Errorf("session usage %+v, want 3M in, 3M out, $33", u)
	}
	r, err := agent.Restore(j.records())
	if err != nil {
		t.Fatal(err)
	}
	if cost(&r.Usage) != 33.0 || r.Usage.Input != 3_000_000 {
		t.Errorf("restored usage %+v, want the session's", r.Usage)
	}
}

// TestSessionCostUnknown: without a price there are tokens only — no
// cost_usd in any event — and a resumed session whose earlier calls had
// no price has a turn cost but no session cost.
func TestSessionCostUnknown(t *testing.T) {
	sess, _ := costSession(t, nil, agent.Restored{})
	rec := &recorder{}
	providertest.RunTurn(t, sess, "go", rec.emit)
	usages := 0
	for _, e := range rec.all() {
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), "cost_usd") {
			t.Errorf("an event of an unpriced model has a cost: %s", b)
		}
		if e.Type == agent.EventUsage {
			usages++
		}
	}
	if usages != 3 {
		t.Errorf("%d usage events, want 3 (tokens are still counted)", usages)
	}

	resumed, _ := costSession(t, &agent.Price{Input: 1, Output: 10}, agent.Restored{Usage: agent.Usage{Input: 5}})
	rec = &recorder{}
	providertest.RunTurn(t, resumed, "go", rec.emit)
	ends := rec.ofType(agent.EventTurnEnd)
	end := ends[len(ends)-1]
	if cost(end.TurnUsage) != 13.0 || end.SessionUsage.Cost != nil || end.SessionUsage.Input != 3_000_005 {
		t.Errorf("turn_end turn %+v session %+v: want the turn's $13 and the session's tokens without a cost", end.TurnUsage, end.SessionUsage)
	}
}

// TestCompactionCostIsTheTurns: the summary a turn needed is paid by that
// turn, as well as by the session.
func TestCompactionCostIsTheTurns(t *testing.T) {
	var old []agent.Message
	for i := range 12 {
		old = append(old, agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("question %d %s", i, strings.Repeat("x", 1000))},
			agent.Message{Role: agent.RoleAssistant, Content: fmt.Sprintf("answer %d", i)})
	}
	prov := &scripted{steps: []step{withUsage(text("the summary"), 3000, 1_000_000), withUsage(text("done"), 1_000_000, 0)}}
	reg, _ := tools.NewRegistry()
	sess := agent.NewSession("s", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate(permission.ModeAuto, nil, nil),
		Price: &agent.Price{Input: 1, Output: 10}, ContextWindow: 2048, Restored: agent.Restored{History: old}})
	rec := &recorder{}
	res := providertest.RunTurn(t, sess, "go on", rec.emit)
	if len(rec.ofType(agent.EventCompaction)) != 1 || prov.requests()[0].Purpose != agent.PurposeCompaction {
		t.Fatalf("no compaction before the turn's call: %v", rec.types())
	}
	if got := cost(&res.Usage); got != 11.003 || res.Usage.Input != 1_003_000 {
		t.Errorf("turn usage %+v (cost %v), want the summary's and the answer's: 1003000 in, $11.003", res.Usage, got)
	}
}
