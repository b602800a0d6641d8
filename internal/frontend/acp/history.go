package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
)

// replay sends a stored session's conversation to the client as
// session/update notifications, as it happened: the person's prompts,
// the agent's thinking and answers, its tool calls and their results.
// It reads the journal itself, not the model's compacted view, so a
// summarised part is shown as it was said.
func (ss *session) replay(ctx context.Context) error {
	recs, err := ss.env.Journal(ctx, ss.id)
	if err != nil {
		return err
	}
	said, err := agent.Transcript(recs)
	if err != nil {
		return err
	}
	for _, s := range said {
		for _, u := range ss.messageUpdates(s.TurnID, s.Message) {
			ss.send(u)
		}
	}
	return nil
}

// messageUpdates are the notifications one stored message becomes.
func (ss *session) messageUpdates(turnID string, m agent.Message) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	switch m.Role {
	case agent.RoleUser:
		if m.Content != "" {
			out = append(out, sdk.UpdateUserMessageText(m.Content))
		}
	case agent.RoleAssistant:
		for _, th := range m.Thinking {
			if th.Text != "" {
				out = append(out, sdk.UpdateAgentThoughtText(th.Text))
			}
		}
		if m.Content != "" {
			out = append(out, sdk.UpdateAgentMessageText(m.Content))
		}
		for _, c := range m.ToolCalls {
			out = append(out, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
				ToolCallId: callID(turnID, c.ID), Title: c.Title(), Kind: ss.kindOf(c.Name), Status: sdk.ToolCallStatusPending,
				RawInput: rawJSON(c.Input), Locations: ss.inputLocations(c.Input),
			}})
		}
	case agent.RoleTool:
		// The journal keeps what the model saw, not whether it was an error.
		status := sdk.ToolCallStatusCompleted
		u := &sdk.SessionToolCallUpdate{ToolCallId: callID(turnID, m.ToolCallID), Status: &status}
		if m.Content != "" {
			u.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(clip(m.Content, maxToolText)))}
		}
		out = append(out, sdk.SessionUpdate{ToolCallUpdate: u})
	}
	return out
}
