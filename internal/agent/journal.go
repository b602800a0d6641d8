package agent

import (
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/internal/tools"
)

// Journal keeps a session's record as it happens: the history store
// implements it (internal/app). A session without one keeps its history
// in memory only.
type Journal interface {
	// Append adds one record; data is JSON.
	Append(kind string, data json.RawMessage) error
}

// Record kinds of a session's journal.
const (
	RecordMessage    = "message"    // a Message appended to the history
	RecordCompaction = "compaction" // the first Replaced messages became Summary
	RecordElision    = "elision"    // a message's content was cut (Index, Content)
	RecordUsage      = "usage"      // one model call's Usage
	RecordTurn       = "turn"       // a turn started (ID)
	RecordTodos      = "todos"      // the todo list ([]tools.Todo)
	RecordModel      = "model"      // the session runs another model from here on
	// RecordRewind puts the conversation back to what the journal's first
	// To records made it (a checkpoint's restore); usage and turns count
	// on, so turn ids stay unique.
	RecordRewind = "rewind"
)

// RewindRecord is a RecordRewind's data.
type RewindRecord struct {
	To int `json:"to"`
}

// compactionRecord is a RecordCompaction's data.
type compactionRecord struct {
	Replaced int    `json:"replaced"`
	Summary  string `json:"summary"`
}

// elisionRecord is a RecordElision's data.
type elisionRecord struct {
	Index   int    `json:"index"`
	Content string `json:"content"`
}

// turnRecord is a RecordTurn's data.
type turnRecord struct {
	ID string `json:"id"`
}

// JournalRecord is one stored record, for Restore.
type JournalRecord struct {
	Kind string
	Data json.RawMessage
}

// Restored is a session's state rebuilt from its journal.
type Restored struct {
	History []Message
	Turns   int
	Usage   Usage
	Todos   []tools.Todo
	// Model is the model the journal last names ("" when it names none:
	// the session never changed models, and its store entry says which it
	// ran); ChosenModel is that model when a person chose it for the
	// session (Config.ModelChosen), which a resumed session keeps.
	Model, ChosenModel string
}

// Restore replays a journal: the history as the model last saw it
// (compactions, elisions and rewinds applied), the number of turns (so
// turn ids go on) and the usage so far. A record that does not decode is
// an error naming it: a resumed conversation must not silently lose a
// part.
func Restore(records []JournalRecord) (Restored, error) {
	var r Restored
	for i, rec := range records {
		bad := func(err error) (Restored, error) {
			return Restored{}, fmt.Errorf("session record %d (%s): %w", i+1, rec.Kind, err)
		}
		switch rec.Kind {
		case RecordMessage:
			var m Message
			if err := json.Unmarshal(rec.Data, &m); err != nil {
				return bad(err)
			}
			r.History = append(r.History, m)
		case RecordCompaction:
			var c compactionRecord
			if err := json.Unmarshal(rec.Data, &c); err != nil {
				return bad(err)
			}
			if c.Replaced < 0 || c.Replaced > len(r.History) {
				return bad(fmt.Errorf("replaces %d of %d messages", c.Replaced, len(r.History)))
			}
			r.History = append([]Message{summaryMessage(c.Summary)}, r.History[c.Replaced:]...)
		case RecordElision:
			var e elisionRecord
			if err := json.Unmarshal(rec.Data, &e); err != nil {
				return bad(err)
			}
			if e.Index < 0 || e.Index >= len(r.History) {
				return bad(fmt.Errorf("elides message %d of %d", e.Index, len(r.History)))
			}
			r.History[e.Index].Content = e.Content
		case RecordUsage:
			var u Usage
			if err := json.Unmarshal(rec.Data, &u); err != nil {
				return bad(err)
			}
			r.Usage = r.Usage.Add(u)
		case RecordTurn:
			r.Turns++
		case RecordTodos:
			var t []tools.Todo
			if err := json.Unmarshal(rec.Data, &t); err != nil {
				return bad(err)
			}
			r.Todos = t
		case RecordModel:
			var m modelRecord
			if err := json.Unmarshal(rec.Data, &m); err != nil {
				return bad(err)
			}
			if m.Model == "" {
				return bad(fmt.Errorf("names no model"))
			}
			r.History = crossModel(r.History)
			r.Model, r.ChosenModel = m.Model, ""
			if m.Chosen {
				r.ChosenModel = m.Model
			}
		case RecordRewind:
			var w RewindRecord
			if err := json.Unmarshal(rec.Data, &w); err != nil {
				return bad(err)
			}
			if w.To < 0 || w.To > i {
				return bad(fmt.Errorf("rewinds to record %d of %d", w.To, i))
			}
			back, err := Restore(records[:w.To])
			if err != nil {
				return bad(err)
			}
			r.History, r.Todos = back.History, back.Todos
			for _, between := range records[w.To:i] {
				if between.Kind == RecordModel {
					// The history rewound to was the previous model's:
					// read it as a switch does.
					r.History = crossModel(r.History)
					break
				}
			}
		}
		// Unknown kinds come from a newer agentls: they add, never change,
		// the conversation, so they are skipped.
	}
	return r, nil
}

// Said is one message of a conversation as it happened, with the turn
// it belongs to.
type Said struct {
	TurnID  string
	Message Message
}

// Transcript reads a journal as the conversation happened — every
// message, not the model's compacted view — for front-ends that show a
// stored session again. A record that does not decode is an error naming
// it.
func Transcript(records []JournalRecord) ([]Said, error) {
	var out []Said
	turn := ""
	for i, rec := range records {
		switch rec.Kind {
		case RecordRewind:
			var w RewindRecord
			if err := json.Unmarshal(rec.Data, &w); err != nil {
				return nil, fmt.Errorf("session record %d (rewind): %w", i+1, err)
			}
			if w.To < 0 || w.To > i {
				return nil, fmt.Errorf("session record %d (rewind): rewinds to record %d", i+1, w.To)
			}
			// The conversation is what the first To records said (their own
			// rewinds applied): an undone restore's rewind brings back what
			// an earlier one unsaid.
			back, err := Transcript(records[:w.To])
			if err != nil {
				return nil, err
			}
			out = back
		case RecordTurn:
			var t turnRecord
			if err := json.Unmarshal(rec.Data, &t); err != nil {
				return nil, fmt.Errorf("session record %d (turn): %w", i+1, err)
			}
			turn = t.ID
		case RecordMessage:
			var m Message
			if err := json.Unmarshal(rec.Data, &m); err != nil {
				return nil, fmt.Errorf("session record %d (message): %w", i+1, err)
			}
			out = append(out, Said{TurnID: turn, Message: m})
		}
	}
	return out, nil
}

// journal writes a record, reporting the first failure once.
func (s *Session) journal(kind string, v any) {
	if s.cfg.Journal == nil {
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		err = s.cfg.Journal.Append(kind, data)
	}
	if err != nil {
		s.mu.Lock()
		first := !s.journalFailed
		s.journalFailed = true
		send := s.hookSend
		s.mu.Unlock()
		if first && send != nil {
			send(Event{Type: EventWarning, Message: "the conversation is not being saved, so it cannot be resumed: " + err.Error()})
		}
	}
}

// ResetConversation puts the conversation back to r's history and todos
// (a checkpoint's restore: r is the journal up to the checkpoint, and a
// RecordRewind the store keeps says so). It is refused while a turn or a
// compaction runs. The turn count and usage go on.
func (s *Session) ResetConversation(r Restored) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil {
		return ErrBusy
	}
	if s.compacting {
		return errCompacting
	}
	s.history = append([]Message(nil), r.History...)
	if r.Model != "" && r.Model != s.cfg.Model {
		// The journal's model is not the one running (a switch not
		// journaled): its thinking signatures are not this model's.
		s.history = crossModel(s.history)
	}
	s.todos = append([]tools.Todo(nil), r.Todos...)
	return nil
}
