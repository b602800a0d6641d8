package lsp

import (
	"context"
	"errors"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/store"
)

// CommandHistory answers a stored session's conversation, for an editor to
// show the earlier turns when it resumes the session (docs/protocol.md).
const CommandHistory = "agentls.history"

// HistoryArgs is agentls.history's argument.
type HistoryArgs struct {
	SessionID string `json:"sessionId"`
}

// HistoryEntry is one part of a stored conversation as an editor shows
// it: what the person asked ("you": the prompt, without the file and
// selection agentls added), the agent's text ("agent"), a tool call
// ("tool": its name and input) and its result ("result": the first line).
type HistoryEntry struct {
	Kind    string `json:"kind"`
	Text    string `json:"text"`
	Tool    string `json:"tool,omitempty"`
	IsError bool   `json:"isError,omitempty"`
}

// history answers agentls.history.
func (s *Server) history(ctx context.Context, a HistoryArgs) (any, error) {
	if a.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.history needs a \"sessionId\" (agentls.sessions lists them)")
	}
	info, restored, err := s.env.StoredSession(ctx, a.SessionID)
	if errors.Is(err, store.ErrNoSession) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no stored session %q in this workspace (agentls.sessions lists them)", a.SessionID)
	}
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	}
	return map[string]any{"sessionId": info.ID, "title": info.Title, "entries": historyEntries(restored.History)}, nil
}

// historyEntries turns a conversation into what an editor shows.
func historyEntries(msgs []agent.Message) []HistoryEntry {
	out := []HistoryEntry{}
	for _, m := range msgs {
		switch m.Role {
		case agent.RoleUser:
			out = append(out, HistoryEntry{Kind: "you", Text: agent.PromptOf(m.Content)})
		case agent.RoleAssistant:
			if strings.TrimSpace(m.Content) != "" {
				out = append(out, HistoryEntry{Kind: "agent", Text: m.Content})
			}
			for _, c := range m.ToolCalls {
				out = append(out, HistoryEntry{Kind: "tool", Tool: c.Name, Text: string(c.Input)})
			}
		case agent.RoleTool:
			line, _, _ := strings.Cut(m.Content, "\n")
			out = append(out, HistoryEntry{Kind: "result", Tool: m.Name, Text: line, IsError: m.IsError})
		}
	}
	return out
}
