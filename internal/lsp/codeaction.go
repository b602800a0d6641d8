package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/lsp/overlay"
)

type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   lspRange `json:"range"`
	Context struct {
		Diagnostics []diagnostic `json:"diagnostics"`
	} `json:"context"`
}

type diagnostic struct {
	Range    lspRange        `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

type codeAction struct {
	Title       string       `json:"title"`
	Kind        string       `json:"kind"`
	Diagnostics []diagnostic `json:"diagnostics,omitempty"`
	Command     *command     `json:"command"`
}

// codeAction offers the agent where the person is: "Fix with agent" for
// each diagnostic in the range, and "Ask agent about selection" for a
// non-empty selection. Each runs agentls.ask with the uri and range.
func (s *Server) codeAction(_ context.Context, params json.RawMessage) (any, error) {
	var p codeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	name := p.TextDocument.URI
	if path, err := overlay.URIToPath(p.TextDocument.URI); err == nil {
		name = s.ws.Rel(path)
		if name == path {
			name = filepath.Base(path)
		}
	}
	actions := s.pendingActions()
	if actions == nil {
		actions = []codeAction{}
	}
	for _, d := range p.Context.Diagnostics {
		msg := firstLine(d.Message, 80)
		prompt := fmt.Sprintf("Fix this problem in %s at line %d: %s", name, d.Range.Start.Line+1, strings.TrimSpace(d.Message))
		if d.Source != "" {
			prompt += " (reported by " + d.Source + ")"
		}
		prompt += ". Read the code around it first, make the smallest correct change, and say what you changed."
		actions = append(actions, codeAction{
			Title:       "Fix with agent: " + msg,
			Kind:        "quickfix",
			Diagnostics: []diagnostic{d},
			Command: &command{Title: "Fix with agent", Command: CommandAsk, Arguments: []any{
				map[string]any{"prompt": prompt, "uri": p.TextDocument.URI, "range": d.Range},
			}},
		})
	}
	if p.Range.Start != p.Range.End {
		actions = append(actions, codeAction{
			Title: "Ask agent about selection",
			Kind:  "refactor",
			Command: &command{Title: "Ask agent about selection", Command: CommandAsk, Arguments: []any{
				map[string]any{"prompt": "Explain the selected code: what it does, anything wrong with it, and how it could be improved.", "uri": p.TextDocument.URI, "range": p.Range},
			}},
		})
	}
	return actions, nil
}
