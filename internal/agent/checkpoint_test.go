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

// A rewind past a model switch does not bring back the old model's
// thinking signatures: the model now running refuses a signature it did
// not issue. The rewind's history is read as the switch read it.
func TestRewindPastAModelSwitchDropsSignatures(t *testing.T) {
	mk := func(kind string, v any) agent.JournalRecord {
		b, _ := json.Marshal(v)
		return agent.JournalRecord{Kind: kind, Data: b}
	}
	recs := []agent.JournalRecord{
		mk(agent.RecordModel, map[string]any{"model": "anthropic:claude-opus-4-1", "chosen": true}),
		mk(agent.RecordTurn, map[string]string{"id": "s-t1"}),
		mk(agent.RecordMessage, agent.Message{Role: "user", Content: "hi"}),
		mk(agent.RecordMessage, agent.Message{Role: "assistant", Content: "ok", Thinking: []agent.Thinking{{Text: "t", Signature: "sig-opus"}}}),
		mk(agent.RecordTurn, map[string]string{"id": "s-t2"}), // record 4: turn 2's checkpoints stand on 4
		mk(agent.RecordMessage, agent.Message{Role: "user", Content: "more"}),
		mk(agent.RecordMessage, agent.Message{Role: "assistant", Content: "done"}),
		// the person switches models, runs turn 3...
		mk(agent.RecordModel, map[string]any{"model": "anthropic:claude-sonnet-4-5", "chosen": true}),
		mk(agent.RecordTurn, map[string]string{"id": "s-t3"}),
		mk(agent.RecordMessage, agent.Message{Role: "user", Content: "again"}),
		// ...and restores the conversation to a checkpoint of turn 2
		mk(agent.RecordRewind, agent.RewindRecord{To: 4}),
	}
	r, err := agent.Restore(recs)
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != "anthropic:claude-sonnet-4-5" || len(r.History) != 2 {
		t.Fatalf("model %s, history %+v", r.Model, r.History)
	}
	if th := r.History[1].Thinking; len(th) != 1 || th[0].Signature != "" || th[0].Text != "t" {
		t.Errorf("thinking after the rewind = %+v, want the text without opus's signature", th)
	}
	// Without a switch in between, the signature stays.
	same := append(append([]agent.JournalRecord(nil), recs[:7]...), mk(agent.RecordRewind, agent.RewindRecord{To: 4}))
	if r, err := agent.Restore(same); err != nil || r.History[1].Thinking[0].Signature != "sig-opus" {
		t.Errorf("rewind without a switch: %v %+v", err, r.History)
	}
}

// A live session reset to a history its journal says another model wrote
// reads it as after a switch.
func TestResetConversationToAnotherModelsHistory(t *testing.T) {
	s := agent.NewSession("s", agent.Config{Model: "anthropic:claude-sonnet-4-5"})
	signed := []agent.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "ok", Thinking: []agent.Thinking{{Text: "t", Signature: "sig-opus"}}}}
	if err := s.ResetConversation(agent.Restored{History: signed, Model: "anthropic:claude-opus-4-1"}); err != nil {
		t.Fatal(err)
	}
	if th := s.History()[1].Thinking; len(th) != 1 || th[0].Signature != "" {
		t.Errorf("thinking = %+v, want no signature", th)
	}
	if err := s.ResetConversation(agent.Restored{History: signed, Model: "anthropic:claude-sonnet-4-5"}); err != nil {
		t.Fatal(err)
	}
	if th := s.History()[1].Thinking; len(th) != 1 || th[0].Signature != "sig-opus" {
		t.Errorf("thinking of the model running = %+v, want its signature kept", th)
	}
}

// A restore holds its session busy: no turn, compaction or model switch
// starts under it (the restore's own reset of the conversation goes
// through); and a restore is refused while a compaction runs, whose
// summary would replace the restored history.
func TestRestoreHoldsTheSession(t *testing.T) {
	one := &scripted{steps: []step{{block: true}}, inFlight: make(chan struct{}, 1)}
	history := []agent.Message{
		{Role: agent.RoleUser, Content: "one"}, {Role: agent.RoleAssistant, Content: "a"},
		{Role: agent.RoleUser, Content: "two"}, {Role: agent.RoleAssistant, Content: "b"},
	}
	r := newSwitchRig(t, one, 5000, agent.Restored{History: history}, "a:one", false)
	release, err := r.sess.HoldForRestore()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.sess.Start(context.Background(), "go on", func(agent.Event) {}); !errors.Is(err, agent.ErrBusy) {
		t.Errorf("a turn during a restore: %v, want ErrBusy", err)
	}
	if err := r.sess.Compact(context.Background(), func(agent.Event) {}); !errors.Is(err, agent.ErrBusy) {
		t.Errorf("a compaction during a restore: %v, want ErrBusy", err)
	}
	if err := r.sess.SwitchModel(agent.Model{Spec: "b:two", Provider: &scripted{}}, nil); !errors.Is(err, agent.ErrBusy) {
		t.Errorf("a model switch during a restore: %v, want ErrBusy", err)
	}
	if _, err := r.sess.HoldForRestore(); err == nil {
		t.Error("a second restore was let in")
	}
	if err := r.sess.ResetConversation(agent.Restored{History: history[:2]}); err != nil {
		t.Errorf("the restore's own reset: %v", err)
	}
	release()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.sess.Compact(ctx, func(agent.Event) {}) }()
	select {
	case <-one.inFlight:
	case err := <-done:
		t.Fatalf("the compaction did not ask the model: %v", err)
	}
	if _, err := r.sess.HoldForRestore(); err == nil {
		t.Error("a restore was let in during a compaction")
	}
	if err := r.sess.ResetConversation(agent.Restored{}); err == nil {
		t.Error("the conversation was reset during a compaction")
	}
	cancel()
	<-done
	if got := len(r.sess.History()); got != 2 {
		t.Errorf("history after the cancelled compaction: %d messages, want the 2 the restore left", got)
	}
}
