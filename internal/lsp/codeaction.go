package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/lsp/overlay"
)

// codeAction offers the agent where the person is: "Fix with agent" for
// each diagnostic in the range, and "Ask agent about selection" for a
// non-empty selection. Each runs agentls.ask with the uri and range.
func (s *Server) codeAction(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	uri := string(p.TextDocument.URI)
	name := uri
	if path, err := overlay.URIToPath(uri); err == nil {
		name = s.ws.Rel(path)
		if name == path {
			name = filepath.Base(path)
		}
	}
	actions := s.pendingActions()
	if actions == nil {
		actions = []protocol.CodeAction{}
	}
	for _, d := range p.Context.Diagnostics {
		msg := firstLine(d.Message, 80)
		prompt := fmt.Sprintf("Fix this problem in %s at line %d: %s", name, d.Range.Start.Line+1, strings.TrimSpace(d.Message))
		if d.Source != "" {
			prompt += " (reported by " + d.Source + ")"
		}
		prompt += ". Read the code around it first, make the smallest correct change, and say what you changed."
		actions = append(actions, protocol.CodeAction{
			Title:       "Fix with agent: " + msg,
			Kind:        protocol.QuickFix,
			Diagnostics: []protocol.Diagnostic{d},
			Command: &protocol.Command{Title: "Fix with agent", Command: CommandAsk, Arguments: []any{
				map[string]any{"prompt": prompt, "uri": uri, "range": d.Range},
			}},
		})
	}
	if p.Range.Start != p.Range.End {
		actions = append(actions, protocol.CodeAction{
			Title: "Ask agent about selection",
			Kind:  protocol.Refactor,
			Command: &protocol.Command{Title: "Ask agent about selection", Command: CommandAsk, Arguments: []any{
				map[string]any{"prompt": "Explain the selected code: what it does, anything wrong with it, and how it could be improved.", "uri": uri, "range": p.Range},
			}},
		})
	}
	return actions, nil
}
