package acp

import (
	"encoding/json"
	"sync"

	"github.com/agentls/agentls/internal/textclip"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
)

// maxToolText bounds the text of a tool's result shown in the client (the
// model gets all of it).
const maxToolText = 32 << 10

// translator turns one session's agent events into session/update
// notifications, in order, on the turn's goroutine.
type translator struct {
	ss *session

	mu sync.Mutex
	// streamedText and streamedThought: the step's text (thinking) went
	// out as deltas, so the whole text event that follows is not sent.
	streamedText, streamedThought bool
	// current is the ACP id of the tool call that runs now (asks name it).
	current   string
	compacted bool
	// used is what the last step put in the context window; cost is the
	// session's cost the client last got (sentCost: any), so a turn's end
	// can tell it what calls without a step of their own added (a
	// subagent's last, a compaction's summary).
	used     int
	cost     float64
	sentCost bool
}

func newTranslator(ss *session) *translator { return &translator{ss: ss} }

// startTurn forgets what the last turn streamed.
func (t *translator) startTurn() {
	t.mu.Lock()
	t.streamedText, t.streamedThought, t.current, t.compacted = false, false, "", false
	t.mu.Unlock()
}

// callID is a tool call's ACP id: unique in the session, since a model's
// own ids may repeat across turns (a resumed session's provider counts
// from 1 again).
func callID(turnID, id string) sdk.ToolCallId {
	if turnID == "" {
		return sdk.ToolCallId(id)
	}
	return sdk.ToolCallId(turnID + "/" + id)
}

// currentCall is the tool call running now, for a permission request.
func (t *translator) currentCall() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.current
}

// takeCompacted reports whether a compaction happened since startTurn.
func (t *translator) takeCompacted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.compacted
	t.compacted = false
	return c
}

// event is the emit function of the session's turns.
func (t *translator) event(e agent.Event) {
	for _, u := range t.updates(e) {
		t.ss.send(u)
	}
}

// updates maps one event to the notifications it becomes (often none).
func (t *translator) updates(e agent.Event) []sdk.SessionUpdate {
	t.mu.Lock()
	defer t.mu.Unlock()
	one := func(u sdk.SessionUpdate) []sdk.SessionUpdate { return []sdk.SessionUpdate{u} }
	switch e.Type {
	case agent.EventTextDelta, agent.EventText:
		return chunk(&t.streamedText, e.Type == agent.EventTextDelta, e.Text, sdk.UpdateAgentMessageText)
	case agent.EventThinkingDelta, agent.EventThinking:
		return chunk(&t.streamedThought, e.Type == agent.EventThinkingDelta, e.Text, sdk.UpdateAgentThoughtText)
	case agent.EventToolCall:
		id := callID(e.TurnID, e.ID)
		t.current = string(id)
		title := e.Title
		if title == "" {
			title = e.Name
		}
		kind := sdk.ToolKind(e.Kind)
		if kind == "" {
			kind = t.ss.kindOf(e.Name)
		}
		return one(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: id, Title: title, Kind: kind, Status: sdk.ToolCallStatusPending,
			RawInput: rawJSON(e.Input), Locations: t.ss.inputLocations(e.Input),
		}})
	case agent.EventPermission:
		if e.Decision == "allow" && t.current != "" {
			status := sdk.ToolCallStatusInProgress
			return one(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: sdk.ToolCallId(t.current), Status: &status}})
		}
	case agent.EventToolResult:
		t.current = ""
		return one(t.toolResult(e))
	case agent.EventCompaction:
		t.compacted = true
		return one(sdk.UpdateAgentThoughtText("agentls compacted the conversation: " + e.Message + "\n"))
	case agent.EventWarning, agent.EventHookWarning:
		return one(sdk.UpdateAgentMessageText("\nagentls: " + e.Message + "\n"))
	case agent.EventTodos:
		return one(planUpdate(e))
	case agent.EventUsage:
		if e.Usage != nil && e.ParentID == "" {
			// What the last step put in the context window: its prompt
			// and its answer. A subagent's window is its own.
			t.used = e.Usage.Input + e.Usage.Output
			return one(t.usageUpdate(e.SessionUsage))
		}
	case agent.EventTurnEnd:
		if e.ParentID == "" && t.used > 0 && e.SessionUsage != nil && e.SessionUsage.Cost != nil && (!t.sentCost || *e.SessionUsage.Cost != t.cost) {
			return one(t.usageUpdate(e.SessionUsage))
		}
	}
	// turn_start, turn_end (but for a cost its steps did not report),
	// error (the prompt's response carries them), hook runs.
	return nil
}

// usageUpdate is a usage_update with the last step's use of the window
// and, when the model's price is known, the session's cost so far (ACP's
// cost is cumulative).
func (t *translator) usageUpdate(session *agent.Usage) sdk.SessionUpdate {
	u := &sdk.SessionUsageUpdate{SessionUpdate: "usage_update", Used: t.used, Size: t.ss.as.ContextWindow()}
	if session != nil && session.Cost != nil {
		u.Cost = &sdk.Cost{Amount: *session.Cost, Currency: "USD"}
		t.cost, t.sentCost = *session.Cost, true
	}
	return sdk.SessionUpdate{UsageUpdate: u}
}

// chunk streams text: every delta is sent and marks the step streamed;
// the step's whole text is sent only when nothing streamed before it.
func chunk(streamed *bool, delta bool, text string, mk func(string) sdk.SessionUpdate) []sdk.SessionUpdate {
	if delta {
		*streamed = true
		return []sdk.SessionUpdate{mk(text)}
	}
	was := *streamed
	*streamed = false
	if was || text == "" {
		return nil
	}
	return []sdk.SessionUpdate{mk(text)}
}

// toolResult is a tool call's final update: its status, the diff of the
// change it made (one entry per hunk), and its text.
func (t *translator) toolResult(e agent.Event) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if e.IsError != nil && *e.IsError {
		status = sdk.ToolCallStatusFailed
	}
	u := &sdk.SessionToolCallUpdate{ToolCallId: callID(e.TurnID, e.ID), Status: &status}
	if t.ss.ws != nil {
		if id, ok := t.ss.ws.terms.take(u.ToolCallId); ok {
			// The update's content replaces the call's: keep the terminal.
			u.Content = append(u.Content, sdk.ToolTerminalRef(id))
		}
	}
	if len(e.Hunks) > 0 {
		u.Content, u.Locations = t.ss.hunkContent(e.Hunks)
	}
	if e.Content != nil && *e.Content != "" {
		u.Content = append(u.Content, sdk.ToolContent(sdk.TextBlock(clip(*e.Content, maxToolText))))
	}
	return sdk.SessionUpdate{ToolCallUpdate: u}
}

// planUpdate maps the todo list of a todos event to ACP's plan, which
// replaces the client's whole plan each time (an empty list clears it).
func planUpdate(e agent.Event) sdk.SessionUpdate {
	entries := []sdk.PlanEntry{}
	for _, td := range e.Todos {
		st := sdk.PlanEntryStatusPending
		switch td.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: td.Content, Status: st, Priority: sdk.PlanEntryPriorityMedium})
	}
	return sdk.UpdatePlan(entries...)
}

// rawJSON keeps a tool's input as JSON (nil when there is none).
func rawJSON(b json.RawMessage) any {
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}

// clip shortens s to about n bytes, on a character boundary.
func clip(s string, n int) string {
	return textclip.Bytes(s, n, "\n… (cut here; the agent saw all of it)")
}
