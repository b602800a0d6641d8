package agent

import "fmt"

// Model is what a session talks to: a person may switch it between turns
// and the conversation goes on.
type Model struct {
	// Spec is the "provider:model" string, as the person named it.
	Spec string
	// Provider reaches the model.
	Provider Provider
	// ContextWindow is the model's window in tokens for compaction, as
	// Config.ContextWindow.
	ContextWindow int
	// Price is what its tokens cost (nil: unknown), as Config.Price.
	Price *Price
}

// modelRecord is a RecordModel's data: the model the session runs from
// here on. Chosen marks a model a person picked for this session (a model
// picker, --model on a resumed session) rather than one that came from
// the defaults: a resumed session keeps a chosen model, and follows the
// defaults otherwise.
type modelRecord struct {
	Model  string `json:"model"`
	Chosen bool   `json:"chosen,omitempty"`
}

// Model returns the "provider:model" the session runs ("" when the
// session was made without one, as in tests).
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Model
}

// SwitchModel makes the session talk to m from its next turn on, with the
// conversation as it is: the history carries over, minus what only the
// previous model can read back (crossModel), and compaction works with
// the new model's window. It is refused with ErrBusy while a turn or a
// compaction runs, so one turn never mixes two models. The switch is
// journaled, so a resumed session goes on with m, and reported to emit as
// a model event. Switching to the model the session already runs does
// nothing.
func (s *Session) SwitchModel(m Model, emit func(Event)) error {
	if m.Provider == nil || m.Spec == "" {
		return fmt.Errorf("switch model: no model given")
	}
	s.mu.Lock()
	if err := s.betweenTurnsLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	prev := s.cfg.Model
	if m.Spec == prev {
		s.mu.Unlock()
		return nil
	}
	s.cfg.Model, s.cfg.Provider, s.cfg.ContextWindow, s.cfg.Price = m.Spec, m.Provider, m.ContextWindow, m.Price
	// What was learned of the previous model (the window its "too long"
	// answer named, its tokens per estimated token) is not the new one's.
	s.learned, s.calib = 0, 0
	s.history = crossModel(s.history)
	s.mu.Unlock()
	s.journal(RecordModel, modelRecord{Model: m.Spec, Chosen: true})
	if emit != nil {
		emit(Event{Type: EventModel, SessionID: s.ID, Model: m.Spec, Message: modelMessage(prev, m.Spec)})
	}
	return nil
}

// modelMessage is the model event's sentence.
func modelMessage(prev, next string) string {
	if prev == "" {
		return "model: " + next
	}
	return fmt.Sprintf("model: %s (was %s); the conversation goes on", next, prev)
}

// crossModel is history as another model may read it: thinking blocks
// lose their signatures and encrypted (redacted) parts, which only the
// provider and model that wrote them accept back — Anthropic refuses a
// signature it did not issue, and no other API takes them. The reasoning
// text stays for the person's transcript; Anthropic's provider sends
// unsigned thinking nowhere, and turns thinking on again at the next
// prompt. Messages without such blocks are shared, never changed.
func crossModel(history []Message) []Message {
	out := history
	copied := false
	for i, m := range history {
		if !hasSigned(m.Thinking) {
			continue
		}
		if !copied {
			out = append([]Message(nil), history...)
			copied = true
		}
		var kept []Thinking
		for _, th := range m.Thinking {
			if th.Text != "" {
				kept = append(kept, Thinking{Text: th.Text})
			}
		}
		out[i].Thinking = kept
	}
	return out
}

func hasSigned(ths []Thinking) bool {
	for _, th := range ths {
		if th.Signature != "" || th.Redacted != "" {
			return true
		}
	}
	return false
}
