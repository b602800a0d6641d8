package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/replay"
)

// playOut plays every turn of a script: the conversation's turns in order
// until the script is exhausted, then its summary turns.
func playOut(t *testing.T, p *replay.Provider) (turns, summaries []agent.Response) {
	t.Helper()
	ctx := context.Background()
	for {
		r, err := p.Complete(ctx, agent.Request{}, agent.Stream{})
		if errors.Is(err, replay.ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		turns = append(turns, r)
	}
	for {
		r, err := p.Complete(ctx, agent.Request{Purpose: agent.PurposeCompaction}, agent.Stream{})
		if err != nil {
			t.Fatalf("Complete (summary): %v", err)
		}
		if len(r.ToolCalls) == 0 && r.Text == "(replay: the script has no summary turn here; the earlier conversation was dropped)" {
			break
		}
		summaries = append(summaries, r)
	}
	return turns, summaries
}

// FuzzParse loads arbitrary replay scripts. Parse must never panic; a
// script it accepts must play: every tool call named, its input a JSON
// object (what events and tools need). Exported back as a script — the
// way `agentls sessions export --replay` writes a stored session — it
// must load again and play the same answers.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"turns":[{"text":"looking","tool_calls":[{"name":"ls"},{"name":"view","input":{"file_path":"a.go"}}]},{"text":"done"}]}`,
		`{"turns":[{"text":"s","summary":true},{"tool_calls":[{"name":"grep","input":{"pattern":"x","n":1.5e3}}]},{"text":"é😀\u0000"}]}`,
		`{"turns":[{"tool_calls":[{"name":"edit","input":{"file_path":"a.go","old_string":"a\r\n","new_string":""}}]}]}`,
		`{"turns":[{"text":"a"}]} {"turns":[]}`,
		`{"turns":[{"text":"s","summary":true,"tool_calls":[{"name":"ls"}]},{"text":"x"}]}`,
		`{"turns":[{"tool_calls":[{"name":"ls","input":null}]}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := replay.Parse("fuzz.json", data)
		if err != nil {
			return
		}
		turns, summaries := playOut(t, p)
		var records []agent.JournalRecord
		for _, r := range turns {
			for _, c := range r.ToolCalls {
				var obj map[string]json.RawMessage
				if c.Name == "" || json.Unmarshal(c.Input, &obj) != nil || obj == nil {
					t.Fatalf("script %s plays tool call %+v: no name, or input not an object", data, c)
				}
			}
			m, _ := json.Marshal(agent.Message{Role: agent.RoleAssistant, Content: r.Text, ToolCalls: r.ToolCalls})
			records = append(records, agent.JournalRecord{Kind: agent.RecordMessage, Data: m})
		}
		for _, r := range summaries {
			c, _ := json.Marshal(map[string]any{"replaced": 1, "summary": r.Text})
			records = append(records, agent.JournalRecord{Kind: agent.RecordCompaction, Data: c})
		}
		script, err := replay.FromJournal(records)
		if err != nil {
			t.Fatalf("script %s played, but its export fails: %v", data, err)
		}
		exported, err := json.Marshal(script)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := replay.Parse("exported.json", exported)
		if err != nil {
			t.Fatalf("script %s exported as %s does not load: %v", data, exported, err)
		}
		turns2, summaries2 := playOut(t, p2)
		if !sameAnswers(turns, turns2) || !sameAnswers(summaries, summaries2) {
			t.Fatalf("script %s exported as %s plays differently", data, exported)
		}
	})
}

// sameAnswers compares answers by text and calls (names and inputs by
// value; call ids are the provider's own).
func sameAnswers(a, b []agent.Response) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Text != b[i].Text || len(a[i].ToolCalls) != len(b[i].ToolCalls) {
			return false
		}
		for j, c := range a[i].ToolCalls {
			d := b[i].ToolCalls[j]
			var x, y any
			_ = json.Unmarshal(c.Input, &x)
			_ = json.Unmarshal(d.Input, &y)
			if c.Name != d.Name || !reflect.DeepEqual(x, y) {
				return false
			}
		}
	}
	return true
}
