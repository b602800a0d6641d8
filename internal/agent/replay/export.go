package replay

import (
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/internal/agent"
)

// FromJournal turns a stored session into a replay script: each model
// answer (an assistant message) is a turn, each compaction's summary a
// summary turn, in the order they happened. Played with
// --model replay:FILE, the session reproduces offline.
func FromJournal(records []agent.JournalRecord) (Script, error) {
	var s Script
	for i, r := range records {
		switch r.Kind {
		case agent.RecordMessage:
			var m agent.Message
			if err := json.Unmarshal(r.Data, &m); err != nil {
				return s, fmt.Errorf("record %d: %w", i+1, err)
			}
			if m.Role != agent.RoleAssistant {
				continue
			}
			t := Turn{Text: m.Content}
			for _, c := range m.ToolCalls {
				in := c.Input
				var obj map[string]json.RawMessage
				if json.Unmarshal(in, &obj) != nil || obj == nil {
					in = json.RawMessage("{}") // the model's arguments were not an object; the tool refused them then too
				}
				t.ToolCalls = append(t.ToolCalls, ToolCall{Name: c.Name, Input: in})
			}
			s.Turns = append(s.Turns, t)
		case agent.RecordCompaction:
			var c struct {
				Summary string `json:"summary"`
			}
			if err := json.Unmarshal(r.Data, &c); err != nil {
				return s, fmt.Errorf("record %d: %w", i+1, err)
			}
			s.Turns = append(s.Turns, Turn{Text: c.Summary, Summary: true})
		}
	}
	if len(s.Turns) == 0 {
		return s, fmt.Errorf("the session has no model answers to replay")
	}
	return s, nil
}
