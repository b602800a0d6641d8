package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// stepLog is a Checkpointer that records the steps it is asked about and
// whether each ended; fail makes BeginStep fail.
type stepLog struct {
	mu    sync.Mutex
	steps []string
	fail  error
}

func (l *stepLog) BeginStep(_ context.Context, s agent.Step) (func(context.Context) error, error) {
	if l.fail != nil {
		return nil, l.fail
	}
	l.mu.Lock()
	l.steps = append(l.steps, "begin "+s.SessionID+" "+s.TurnID+" "+s.CallID+" "+s.Title)
	l.mu.Unlock()
	return func(context.Context) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.steps = append(l.steps, "end "+s.CallID)
		return nil
	}, nil
}

// A checkpoint is taken around every call that may change files, and
// around none that only reads; one that fails is a warning and the call
// still runs.
func TestCheckpointsAroundSteps(t *testing.T) {
	f := newFixture(t, setup{mode: permission.ModeAuto, steps: []step{
		calls("", call("c1", "echo", `{"path":"a"}`), call("c2", "write", `{"path":"b"}`)),
		text("done"),
	}})
	log := &stepLog{}
	f.sess = agent.NewSession("s", agent.Config{Provider: f.prov, Tools: registryOf(t, f), Gate: permission.NewGate(permission.ModeAuto, nil, nil),
		Checkpoints: log})
	f.runTurn(t, "go")
	want := []string{"begin s s-t1 c2 write b", "end c2"}
	if !reflect.DeepEqual(log.steps, want) {
		t.Errorf("steps = %q, want %q", log.steps, want)
	}

	g := newFixture(t, setup{mode: permission.ModeAuto, steps: []step{calls("", call("c1", "write", `{"path":"b"}`)), text("done")}})
	g.sess = agent.NewSession("s", agent.Config{Provider: g.prov, Tools: registryOf(t, g), Gate: permission.NewGate(permission.ModeAuto, nil, nil),
		Checkpoints: &stepLog{fail: errors.New("disk full")}})
	_, rec := g.runTurn(t, "go")
	if got := g.log.get(); !reflect.DeepEqual(got, []string{"write b"}) {
		t.Errorf("ran %q, want the write to run", got)
	}
	var warned bool
	for _, e := range rec.ofType(agent.EventWarning) {
		warned = warned || e.ID == "c1" && strings.Contains(e.Message, "no checkpoint before this step") && strings.Contains(e.Message, "disk full")
	}
	if !warned {
		t.Errorf("no warning of the missing checkpoint: %+v", rec.ofType(agent.EventWarning))
	}
}

func registryOf(t *testing.T, f *fixture) *tools.Registry {
	t.Helper()
	reg, err := tools.NewRegistry(&testTool{name: "write", log: f.log}, &testTool{name: "echo", readOnly: true, log: f.log})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// A rewind record puts the conversation back to what the records before
// it made it, todos included; usage and turns count on; a later rewind
// can bring the rewound part back (an undone restore). The transcript
// unsays what was rewound, and says it again when the rewind is undone.
func TestRewind(t *testing.T) {
	rec := func(kind string, v any) agent.JournalRecord {
		b, _ := json.Marshal(v)
		return agent.JournalRecord{Kind: kind, Data: b}
	}
	msg := func(role agent.Role, text string) agent.JournalRecord {
		return rec(agent.RecordMessage, agent.Message{Role: role, Content: text})
	}
	turn1 := []agent.JournalRecord{
		rec(agent.RecordTurn, map[string]string{"id": "s-t1"}), msg(agent.RoleUser, "one"), msg(agent.RoleAssistant, "a1"),
		rec(agent.RecordUsage, agent.Usage{Input: 10}),
	}
	turn2 := []agent.JournalRecord{
		rec(agent.RecordTurn, map[string]string{"id": "s-t2"}), msg(agent.RoleUser, "two"),
		rec(agent.RecordTodos, []tools.Todo{{Content: "x", Status: "pending"}}), msg(agent.RoleAssistant, "a2"),
		rec(agent.RecordUsage, agent.Usage{Input: 5}),
	}
	journal := append(append([]agent.JournalRecord{}, turn1...), turn2...)
	rewound := append(append([]agent.JournalRecord{}, journal...), rec(agent.RecordRewind, agent.RewindRecord{To: len(turn1)}))
	undone := append(append([]agent.JournalRecord{}, rewound...), rec(agent.RecordRewind, agent.RewindRecord{To: len(journal)}))
	for _, tc := range []struct {
		name    string
		records []agent.JournalRecord
		history []string
		todos   int
		said    []string
	}{
		{"as it happened", journal, []string{"one", "a1", "two", "a2"}, 1, []string{"one", "a1", "two", "a2"}},
		{"rewound to before turn 2", rewound, []string{"one", "a1"}, 0, []string{"one", "a1"}},
		{"the rewind undone", undone, []string{"one", "a1", "two", "a2"}, 1, []string{"one", "a1", "two", "a2"}},
		{"then a new turn", append(append([]agent.JournalRecord{}, rewound...), msg(agent.RoleUser, "three")),
			[]string{"one", "a1", "three"}, 0, []string{"one", "a1", "three"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := agent.Restore(tc.records)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range r.History {
				got = append(got, m.Content)
			}
			if !reflect.DeepEqual(got, tc.history) || len(r.Todos) != tc.todos {
				t.Errorf("history %q todos %d, want %q %d", got, len(r.Todos), tc.history, tc.todos)
			}
			if r.Turns != 2 || r.Usage.Input != 15 {
				t.Errorf("turns %d usage %d: they count on", r.Turns, r.Usage.Input)
			}
			said, err := agent.Transcript(tc.records)
			if err != nil {
				t.Fatal(err)
			}
			got = nil
			for _, s := range said {
				got = append(got, s.Message.Content)
			}
			if !reflect.DeepEqual(got, tc.said) {
				t.Errorf("transcript %q, want %q", got, tc.said)
			}
		})
	}
	if _, err := agent.Restore(append(journal, rec(agent.RecordRewind, agent.RewindRecord{To: 99}))); err == nil {
		t.Error("a rewind past its own record was accepted")
	}
}
