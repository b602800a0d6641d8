package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/agent/remote"
	"github.com/agentls/agentls/internal/benchpair"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// longHistory is a 100-step reading session: prompt, call, an 8 KiB
// result each (about 200,000 tokens).
func longHistory() []agent.Message {
	var h []agent.Message
	result := strings.Repeat("line of a file the agent read\n", 280)
	for i := range 100 {
		id := fmt.Sprintf("c%d", i)
		h = append(h,
			agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("read f%02d.go", i)},
			agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: id, Name: "view", Input: []byte(`{"file_path":"f.go"}`)}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: "view", Content: result},
			agent.Message{Role: agent.RoleAssistant, Content: "read it"})
	}
	return h
}

// BenchmarkCompaction measures what compacting a long conversation costs
// against one ordinary step on it, through the OpenAI-compatible provider
// and a loopback model that answers at once (so the model's own time is
// left out): agentls.compact on a 32k-token model (cutting old results,
// then the summary call) against a turn whose one call sends the whole
// history to a model whose window it fits, interleaved (benchpair).
func BenchmarkCompaction(b *testing.B) {
	hist := longHistory()
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "You compact a coding session") {
			return openaitest.Reply{Parts: []string{"the user asked for 100 files to be read; all were read"}}
		}
		return openaitest.Reply{Parts: []string{"ok"}}
	})
	defer srv.Close()
	prov, err := openai.New(openai.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "m"}})
	if err != nil {
		b.Fatal(err)
	}
	reg, err := tools.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	session := func(window int) *agent.Session {
		return agent.NewSession("b", agent.Config{Provider: prov, Tools: reg, Gate: permission.NewGate(permission.ModeAuto, nil, nil),
			ContextWindow: window, Restored: agent.Restored{History: slices.Clone(hist)}})
	}
	ctx := context.Background()
	compact := func() time.Duration {
		s := session(32768)
		t0 := time.Now()
		var done agent.Event
		if err := s.Compact(ctx, func(e agent.Event) { done = e }); err != nil || done.Type != agent.EventCompaction {
			b.Fatalf("compact: %v %+v", err, done)
		}
		return time.Since(t0)
	}
	step := func() time.Duration {
		s := session(10 << 20)
		t0 := time.Now()
		turn, err := s.Start(ctx, "one more", func(agent.Event) {})
		if err != nil {
			b.Fatal(err)
		}
		if r := turn.Wait(); r.Reason != agent.ReasonCompleted {
			b.Fatalf("step: %+v", r)
		}
		return time.Since(t0)
	}
	benchpair.Run(b, time.Millisecond, compact, step)
}
