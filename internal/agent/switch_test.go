package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

func (j *memJournal) kinds() []string {
	var out []string
	for _, r := range j.records() {
		out = append(out, r.Kind)
	}
	return out
}

// switchRig is a session on model "a:one" with the echo tool and a
// journal; other models are scripted providers of their own.
type switchRig struct {
	sess    *agent.Session
	journal *memJournal
}

func newSwitchRig(t *testing.T, first *scripted, window int, restored agent.Restored, spec string, chosen bool) *switchRig {
	t.Helper()
	reg, err := tools.NewRegistry(&testTool{name: "echo", readOnly: true, log: &runLog{}})
	if err != nil {
		t.Fatal(err)
	}
	j := &memJournal{}
	sess := agent.NewSession("s", agent.Config{
		Provider: first, Model: spec, ModelChosen: chosen, Tools: reg,
		Gate: permission.NewGate(permission.ModeSmart, nil, nil), ContextWindow: window,
		Journal: j, Restored: restored,
	})
	return &switchRig{sess: sess, journal: j}
}

func (r *switchRig) turn(t *testing.T, prompt string) (agent.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	turn, err := r.sess.Start(context.Background(), prompt, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	return wait(t, turn), rec
}

// signed is a thinking block only its model can read back.
var signed = []agent.Thinking{{Text: "look at a", Signature: "sig-1"}, {Redacted: "opaque"}}

// TestSwitchModelKeepsTheConversation: after a turn on one model (a tool
// call, signed thinking), the switch to another makes the next turn's
// first request the whole conversation — minus the signatures and
// encrypted thinking only the first model reads back — sent to the new
// model only; the switch is an event and a journal record, and the turn
// says which model it runs.
func TestSwitchModelKeepsTheConversation(t *testing.T) {
	one := &scripted{steps: []step{
		{resp: agent.Response{ToolCalls: []agent.ToolCall{call("c1", "echo", `{"path":"a"}`)}, Thinking: signed}},
		text("a is echoed."),
	}}
	two := &scripted{steps: []step{text("Still here.")}}
	r := newSwitchRig(t, one, 0, agent.Restored{}, "a:one", false)
	if res, _ := r.turn(t, "echo a"); res.Reason != agent.ReasonCompleted {
		t.Fatalf("first turn: %+v", res)
	}
	var got []agent.Event
	if err := r.sess.SwitchModel(agent.Model{Spec: "b:two", Provider: two, ContextWindow: 100000}, func(e agent.Event) { got = append(got, e) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Type != agent.EventModel || got[0].Model != "b:two" || got[0].SessionID != "s" ||
		!strings.Contains(got[0].Message, "was a:one") {
		t.Errorf("switch events %+v, want one model event naming b:two and a:one", got)
	}
	if r.sess.Model() != "b:two" || r.sess.ContextWindow() != 100000 {
		t.Errorf("after the switch: model %q, window %d", r.sess.Model(), r.sess.ContextWindow())
	}
	res, rec := r.turn(t, "still there?")
	if res.Reason != agent.ReasonCompleted || res.Text != "Still here." {
		t.Fatalf("second turn: %+v", res)
	}
	if starts := rec.ofType(agent.EventTurnStart); len(starts) != 1 || starts[0].Model != "b:two" {
		t.Errorf("turn_start %+v, want model b:two", starts)
	}
	if n := len(one.requests()); n != 2 {
		t.Errorf("the first model got %d requests, want its 2", n)
	}
	reqs := two.requests()
	if len(reqs) != 1 {
		t.Fatalf("the new model got %d requests", len(reqs))
	}
	checkMessages(t, reqs[0].Messages, []agent.Message{
		{Role: agent.RoleUser, Content: "echo a"},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{call("c1", "echo", `{"path":"a"}`)}},
		toolMsg("c1", "echo", "echo ran on a"),
		{Role: agent.RoleAssistant, Content: "a is echoed."},
		{Role: agent.RoleUser, Content: "still there?"},
	})
	if th := reqs[0].Messages[1].Thinking; !reflect.DeepEqual(th, []agent.Thinking{{Text: "look at a"}}) {
		t.Errorf("thinking sent to the new model = %+v, want its text without signature or redacted block", th)
	}
	if th := one.requests()[1].Messages[1].Thinking; !reflect.DeepEqual(th, signed) {
		t.Errorf("the first model's own request lost its signed thinking: %+v", th)
	}
	if k := strings.Join(r.journal.kinds(), " "); !strings.Contains(k, "message model turn") {
		t.Errorf("journal kinds %s: want the model record between the turns", k)
	}
}

// TestSwitchModelRefused: a switch while a turn runs, without a model, or
// to the model the session runs changes nothing — no event, no record.
func TestSwitchModelRefused(t *testing.T) {
	other := &scripted{}
	tests := []struct {
		name    string
		busy    bool
		m       agent.Model
		wantErr error
		errText string
	}{
		{"while a turn runs", true, agent.Model{Spec: "b:two", Provider: other}, agent.ErrBusy, ""},
		{"no provider", false, agent.Model{Spec: "b:two"}, nil, "no model"},
		{"no name", false, agent.Model{Provider: other}, nil, "no model"},
		{"the same model", false, agent.Model{Spec: "a:one", Provider: other}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			one := &scripted{steps: []step{{block: true}}, inFlight: make(chan struct{}, 1)}
			r := newSwitchRig(t, one, 5000, agent.Restored{}, "a:one", false)
			if tt.busy {
				turn, err := r.sess.Start(context.Background(), "wait", func(agent.Event) {})
				if err != nil {
					t.Fatal(err)
				}
				<-one.inFlight
				defer func() { turn.Cancel(); wait(t, turn) }()
			}
			events := 0
			err := r.sess.SwitchModel(tt.m, func(agent.Event) { events++ })
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			case tt.errText != "" && (err == nil || !strings.Contains(err.Error(), tt.errText)):
				t.Errorf("err = %v, want one saying %q", err, tt.errText)
			case tt.wantErr == nil && tt.errText == "" && err != nil:
				t.Errorf("err = %v", err)
			}
			if r.sess.Model() != "a:one" || r.sess.ContextWindow() != 5000 || events != 0 {
				t.Errorf("model %q, window %d, %d events: want a:one, 5000, none", r.sess.Model(), r.sess.ContextWindow(), events)
			}
			for _, k := range r.journal.kinds() {
				if k == agent.RecordModel {
					t.Error("a model record was written")
				}
			}
		})
	}
}

// TestSwitchModelCompactsToTheNewWindow: a conversation that fits the
// first model's window is compacted before the first request to a model
// with a smaller one — with the new model writing the summary.
func TestSwitchModelCompactsToTheNewWindow(t *testing.T) {
	big := strings.Repeat("a long answer that fills the window. ", 400) // ~3,700 tokens
	one := &scripted{steps: []step{text(big)}}
	two := &scripted{steps: []step{text("summary of the long answer"), text("short answer")}}
	r := newSwitchRig(t, one, 200000, agent.Restored{}, "a:one", false)
	if res, rec := r.turn(t, "say a lot"); res.Reason != agent.ReasonCompleted || len(rec.ofType(agent.EventCompaction)) != 0 {
		t.Fatalf("first turn: %+v, compactions %d", res, len(rec.ofType(agent.EventCompaction)))
	}
	if err := r.sess.SwitchModel(agent.Model{Spec: "b:two", Provider: two, ContextWindow: 4000}, nil); err != nil {
		t.Fatal(err)
	}
	res, rec := r.turn(t, "and now?")
	if res.Reason != agent.ReasonCompleted || res.Text != "short answer" {
		t.Fatalf("second turn: %+v", res)
	}
	if len(rec.ofType(agent.EventCompaction)) != 1 {
		t.Errorf("%d compactions on the smaller window, want 1", len(rec.ofType(agent.EventCompaction)))
	}
	reqs := two.requests()
	if len(reqs) != 2 || reqs[0].Purpose != agent.PurposeCompaction || strings.Contains(reqs[1].Messages[0].Content, big) {
		t.Errorf("the new model's requests: %d, first purpose %q; want the summary first, then the compacted conversation", len(reqs), reqs[0].Purpose)
	}
	if len(one.requests()) != 1 {
		t.Errorf("the first model was asked %d times, want once", len(one.requests()))
	}
}

// TestResumedSessionRestoresItsModel: the journal of a session switched
// mid-way restores to the history the new model saw and names the model
// chosen; opened again with another model, the session journals that
// change too (not chosen: the defaults'), and a third reading names no
// chosen model any more.
func TestResumedSessionRestoresItsModel(t *testing.T) {
	one := &scripted{steps: []step{{resp: agent.Response{Text: "thought it over", Thinking: signed}}}}
	two := &scripted{steps: []step{text("second")}}
	r := newSwitchRig(t, one, 0, agent.Restored{}, "a:one", false)
	r.turn(t, "first")
	if err := r.sess.SwitchModel(agent.Model{Spec: "b:two", Provider: two}, nil); err != nil {
		t.Fatal(err)
	}
	r.turn(t, "go on")
	restored, err := agent.Restore(r.journal.records())
	if err != nil {
		t.Fatal(err)
	}
	if restored.Model != "b:two" || restored.ChosenModel != "b:two" || restored.Turns != 2 {
		t.Errorf("restored model %q, chosen %q, %d turns; want b:two twice, 2 turns", restored.Model, restored.ChosenModel, restored.Turns)
	}
	if !reflect.DeepEqual(restored.History, r.sess.History()) {
		t.Errorf("restored history differs from the session's:\n%s\nvs\n%s", dump(restored.History), dump(r.sess.History()))
	}

	// Opened again on the defaults' model c:three.
	three := &scripted{steps: []step{text("third")}}
	r2 := newSwitchRig(t, three, 0, restored, "c:three", false)
	r2.turn(t, "and again")
	if k := r2.journal.kinds(); len(k) == 0 || k[0] != agent.RecordModel {
		t.Errorf("the reopened session's journal starts %v, want the model record", k)
	}
	again, err := agent.Restore(append(r.journal.records(), r2.journal.records()...))
	if err != nil {
		t.Fatal(err)
	}
	if again.Model != "c:three" || again.ChosenModel != "" {
		t.Errorf("after the defaults' model: model %q, chosen %q; want c:three and none chosen", again.Model, again.ChosenModel)
	}
	// Opened on the model it last ran: nothing to record.
	r3 := newSwitchRig(t, &scripted{}, 0, again, "c:three", true)
	if k := r3.journal.kinds(); len(k) != 0 {
		t.Errorf("reopened on its own model, the journal got %v", k)
	}
}

// TestRestoreModelRecords: how model records read back — each one drops
// the signed thinking before it, the last names the model, only a chosen
// one names the chosen model, and a broken one is an error.
func TestRestoreModelRecords(t *testing.T) {
	msg := func(m agent.Message) agent.JournalRecord {
		b, _ := json.Marshal(m)
		return agent.JournalRecord{Kind: agent.RecordMessage, Data: b}
	}
	model := func(data string) agent.JournalRecord {
		return agent.JournalRecord{Kind: agent.RecordModel, Data: json.RawMessage(data)}
	}
	thought := agent.Message{Role: agent.RoleAssistant, Content: "x", Thinking: signed}
	tests := []struct {
		name         string
		recs         []agent.JournalRecord
		model, chose string
		thinking     []agent.Thinking // of the first assistant message
		err          string
	}{
		{"no record", []agent.JournalRecord{msg(thought)}, "", "", signed, ""},
		{"a chosen model", []agent.JournalRecord{msg(thought), model(`{"model":"b:two","chosen":true}`)}, "b:two", "b:two", []agent.Thinking{{Text: "look at a"}}, ""},
		{"the defaults' model", []agent.JournalRecord{msg(thought), model(`{"model":"b:two"}`)}, "b:two", "", []agent.Thinking{{Text: "look at a"}}, ""},
		{"chosen, then the defaults'", []agent.JournalRecord{model(`{"model":"b:two","chosen":true}`), model(`{"model":"c:three"}`)}, "c:three", "", nil, ""},
		{"thinking after the switch kept", []agent.JournalRecord{model(`{"model":"b:two","chosen":true}`), msg(thought)}, "b:two", "b:two", signed, ""},
		{"no model named", []agent.JournalRecord{model(`{"chosen":true}`)}, "", "", nil, "names no model"},
		{"not JSON", []agent.JournalRecord{model(`{`)}, "", "", nil, "record 1 (model)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := agent.Restore(tt.recs)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Model != tt.model || r.ChosenModel != tt.chose {
				t.Errorf("model %q chosen %q, want %q %q", r.Model, r.ChosenModel, tt.model, tt.chose)
			}
			var th []agent.Thinking
			for _, m := range r.History {
				if m.Role == agent.RoleAssistant {
					th = m.Thinking
					break
				}
			}
			if !reflect.DeepEqual(th, tt.thinking) {
				t.Errorf("thinking %+v, want %+v", th, tt.thinking)
			}
		})
	}
}
