package replay_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/replay"
)

// The replay provider is an agent.Provider.
var _ agent.Provider = (*replay.Provider)(nil)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		errParts []string
	}{
		{"empty input", ``, []string{"replay script t.json", "format:"}},
		{"not json", `turns: []`, []string{"replay script t.json", "format:"}},
		{"no turns key", `{}`, []string{"t.json has no turns"}},
		{"empty turns", `{"turns":[]}`, []string{"t.json has no turns"}},
		{"null turns", `{"turns":null}`, []string{"has no turns"}},
		{"unknown top-level field", `{"turns":[{"text":"x"}],"model":"gpt"}`, []string{`"model"`, "format:"}},
		{"unknown turn field", `{"turns":[{"txt":"x"}]}`, []string{`"txt"`}},
		{"unknown tool call field", `{"turns":[{"tool_calls":[{"name":"view","args":{}}]}]}`, []string{`"args"`}},
		{"tool call without name", `{"turns":[{"text":"a"},{"tool_calls":[{"name":"ls"},{"input":{}}]}]}`, []string{"turn 2, tool call 2 has no name"}},
		{"array input", `{"turns":[{"tool_calls":[{"name":"ls","input":[1]}]}]}`, []string{"turn 1, tool call 1", "input must be a JSON object"}},
		{"string input", `{"turns":[{"tool_calls":[{"name":"ls","input":"main.go"}]}]}`, []string{"input must be a JSON object"}},
		{"number input", `{"turns":[{"tool_calls":[{"name":"ls","input":3}]}]}`, []string{"input must be a JSON object"}},
		{"null input", `{"turns":[{"tool_calls":[{"name":"ls","input":null}]}]}`, []string{"input must be a JSON object"}},
		{"summary with tool calls", `{"turns":[{"text":"s","summary":true,"tool_calls":[{"name":"ls"}]}]}`, []string{"turn 1 is a summary turn with tool calls", "text only"}},
		{"trailing data", `{"turns":[{"text":"a"}]} {"turns":[]}`, []string{"after the top-level JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := replay.Parse("t.json", []byte(tt.data))
			if err == nil {
				t.Fatalf("Parse = %v, want an error", p)
			}
			for _, part := range tt.errParts {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not contain %q", err, part)
				}
			}
		})
	}
}

func TestPlaysTurnsInOrder(t *testing.T) {
	p, err := replay.Parse("demo", []byte(`{"turns":[
		{"text":"looking","tool_calls":[{"name":"ls"},{"name":"view","input":{"file_path":"a.go"}}]},
		{"tool_calls":[{"name":"grep","input":{"pattern":"x"}}]},
		{"text":"done"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "demo" {
		t.Errorf("Name() = %q, want demo", p.Name())
	}
	want := []agent.Response{
		{Text: "looking", ToolCalls: []agent.ToolCall{
			{ID: "call_1", Name: "ls", Input: []byte(`{}`)},
			{ID: "call_2", Name: "view", Input: []byte(`{"file_path":"a.go"}`)},
		}},
		{ToolCalls: []agent.ToolCall{{ID: "call_3", Name: "grep", Input: []byte(`{"pattern":"x"}`)}}},
		{Text: "done"},
	}
	ctx := context.Background()
	for i, w := range want {
		var streamed []string
		got, err := p.Complete(ctx, agent.Request{}, agent.Stream{Text: func(s string) { streamed = append(streamed, s) }})
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		if got.Text != w.Text || len(got.ToolCalls) != len(w.ToolCalls) {
			t.Fatalf("request %d = %+v, want %+v", i+1, got, w)
		}
		for j, c := range got.ToolCalls {
			wc := w.ToolCalls[j]
			if c.ID != wc.ID || c.Name != wc.Name || string(c.Input) != string(wc.Input) {
				t.Errorf("request %d call %d = {%s %s %s}, want {%s %s %s}", i+1, j+1, c.ID, c.Name, c.Input, wc.ID, wc.Name, wc.Input)
			}
		}
		// onText receives the text once; an empty text is not streamed.
		wantStream := []string{}
		if w.Text != "" {
			wantStream = []string{w.Text}
		}
		if strings.Join(streamed, "|") != strings.Join(wantStream, "|") || len(streamed) != len(wantStream) {
			t.Errorf("request %d streamed %q, want %q", i+1, streamed, wantStream)
		}
	}
	for range 2 {
		_, err = p.Complete(ctx, agent.Request{}, agent.Stream{})
		if !errors.Is(err, replay.ErrExhausted) || !strings.Contains(err.Error(), "replay script exhausted") || !strings.Contains(err.Error(), "after 3 turns") {
			t.Errorf("request after the last turn: error %v, want replay script exhausted after 3 turns", err)
		}
	}
}

func TestCompleteCancelledConsumesNothing(t *testing.T) {
	p, err := replay.Parse("t", []byte(`{"turns":[{"text":"first"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Complete(ctx, agent.Request{}, agent.Stream{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Complete with a cancelled context: %v, want context.Canceled", err)
	}
	resp, err := p.Complete(context.Background(), agent.Request{}, agent.Stream{})
	if err != nil || resp.Text != "first" {
		t.Errorf("Complete after a cancelled request = %+v, %v; the turn should still be there", resp, err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	if err := os.WriteFile(path, []byte(`{"turns":[{"text":"hi"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "replay:"+path {
		t.Errorf("Name() = %q, want replay:%s", p.Name(), path)
	}

	missing := filepath.Join(dir, "missing.json")
	_, err = replay.Load(missing)
	if err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
	if !strings.HasPrefix(err.Error(), "replay script: ") || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: error %q should start with \"replay script: \", name %s and wrap ErrNotExist", err, missing)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"turns":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Load(bad); err == nil || !strings.Contains(err.Error(), "replay:"+bad) {
		t.Errorf("Load of an invalid script: error %v should name replay:%s", err, bad)
	}
}

// TestConcurrent: every turn is played exactly once and every id is unique,
// whatever the interleaving (run with -race).
func TestConcurrent(t *testing.T) {
	const turns = 200
	var b strings.Builder
	b.WriteString(`{"turns":[`)
	for i := range turns {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"text":"t","tool_calls":[{"name":"a"},{"name":"b"}]}`)
	}
	b.WriteString(`]}`)
	p, err := replay.Parse("c", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	const workers = 16
	var (
		mu        sync.Mutex
		ids       = map[string]bool{}
		ok, exhau int
		wg        sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for range turns/workers + 5 {
				resp, err := p.Complete(context.Background(), agent.Request{}, agent.Stream{Text: func(string) {}})
				mu.Lock()
				switch {
				case errors.Is(err, replay.ErrExhausted):
					exhau++
				case err != nil:
					t.Errorf("Complete: %v", err)
				default:
					ok++
					if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Name != "a" || resp.ToolCalls[1].Name != "b" {
						t.Errorf("response %+v", resp)
					}
					for _, c := range resp.ToolCalls {
						if ids[c.ID] {
							t.Errorf("id %s given twice", c.ID)
						}
						ids[c.ID] = true
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != turns || len(ids) != 2*turns {
		t.Errorf("played %d turns with %d ids, want %d turns and %d ids", ok, len(ids), turns, 2*turns)
	}
	if exhau != workers*(turns/workers+5)-turns {
		t.Errorf("%d exhausted errors, want %d", exhau, workers*(turns/workers+5)-turns)
	}
}
