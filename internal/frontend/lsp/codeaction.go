package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/langserver/overlay"
)

// codeAction offers the agent where the person is, before anything else
// agentls offers: "Fix with agent" for each diagnostic in the range, "Ask
// agent…" about the selection or the line (a plugin asks for the
// question: editPrompt), and when the editor sent no diagnostics (no other
// language server) a fix that has the agent check the line with its own
// language servers. A pending question's answers come before all of it.
// When the editor asks on its own (LSP 3.17's Automatic trigger: VS Code
// on every cursor move, for its lightbulb), the line's question and check
// are left out, so the lightbulb shows where there is a problem or a
// selection, not on every line; Ctrl+. still offers them.
func (s *Server) codeAction(ctx context.Context, params json.RawMessage) (any, error) {
	head, rest, err := s.codeActionParts(ctx, params)
	if err != nil {
		return nil, err
	}
	return append(head, rest...), nil
}

// codeActionParts are agentls's code actions in two parts: the answers of
// a pending question, and the others (a wrapped server's go between).
func (s *Server) codeActionParts(ctx context.Context, params json.RawMessage) (head, rest []protocol.CodeAction, err error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, nil, err
	}
	var trig codeActionTrigger
	_ = json.Unmarshal(params, &trig) // decode accepted params: the shape is known
	automatic := trig.Context.TriggerKind == codeActionAutomatic
	uri := string(p.TextDocument.URI)
	name := uri
	if path, err := overlay.URIToPath(uri); err == nil {
		name = s.ws.Rel(path)
		if name == path {
			name = filepath.Base(path)
		}
	}
	line := p.Range.Start.Line + 1
	// A waiting question's answers first: the turn is blocked on them.
	head = append([]protocol.CodeAction{}, s.pendingActions()...)
	var actions []protocol.CodeAction
	if a := s.nextEditAction(ctx, p, automatic); a != nil { // a ready edit first (nextedit.go)
		actions = append(actions, *a)
	}
	ask := func(title string, kind protocol.CodeActionKind, args AskArgs, diags ...protocol.Diagnostic) {
		args.URI = uri
		actions = append(actions, protocol.CodeAction{Title: title, Kind: kind, Diagnostics: diags,
			Command: &protocol.Command{Title: title, Command: CommandAsk, Arguments: []any{args}}})
	}
	for _, d := range p.Context.Diagnostics {
		prompt := fmt.Sprintf("Fix this problem in %s at line %d: %s", name, d.Range.Start.Line+1, strings.TrimSpace(d.Message))
		if d.Source != "" {
			prompt += " (reported by " + d.Source + ")"
		}
		prompt += ". Read the code around it first, make the smallest correct change, and say what you changed."
		r := d.Range
		ask("Fix with agent: "+firstLine(d.Message, 80), protocol.QuickFix, AskArgs{Prompt: prompt, Range: &r}, d)
	}
	rng := p.Range
	if p.Range.Start != p.Range.End {
		ask("Ask agent about selection…", protocol.Refactor, AskArgs{Range: &rng, EditPrompt: true,
			Prompt: "Explain the selected code: what it does, anything wrong with it, and how it could be improved."})
	} else if !automatic {
		ask("Ask agent about this line…", protocol.Refactor, AskArgs{Range: &rng, EditPrompt: true,
			Prompt: fmt.Sprintf("Explain line %d of %s in its context: what it does and anything wrong with it.", line, name)})
	}
	if len(p.Context.Diagnostics) == 0 && !automatic {
		ask("Fix with agent: check this line", protocol.QuickFix, AskArgs{Range: &rng, Prompt: fmt.Sprintf(
			"Check %s around line %d for problems: run lsp_diagnostics on the file, read the code there, fix what is wrong with the smallest correct change, and say what you changed (or that nothing is wrong).", name, line)})
	}
	return head, actions, nil
}

// nextEditKind is the next-edit code action's kind.
const nextEditKind protocol.CodeActionKind = "refactor.rewrite"

// nextEditAction is the document's next-edit suggestion as a code action
// with its edit (the editor applies it when chosen), or nil: none, or
// the editor asked only for other kinds. When the person asked, it waits
// for the model; when the editor asks on its own (automatic: a lightbulb,
// or under --wrap the server's actions merged with ours) it never does:
// a suggestion not known yet is asked for in the background and comes
// with a later request.
func (s *Server) nextEditAction(ctx context.Context, p protocol.CodeActionParams, automatic bool) *protocol.CodeAction {
	if len(p.Context.Only) > 0 && !slices.ContainsFunc(p.Context.Only, func(k protocol.CodeActionKind) bool {
		return k == nextEditKind || strings.HasPrefix(string(nextEditKind), string(k)+".")
	}) {
		return nil
	}
	path, err := overlay.URIToPath(string(p.TextDocument.URI))
	if err != nil {
		return nil
	}
	text, _, open := s.docs.Get(path)
	if !open {
		return nil
	}
	c, err := s.inlineCompleter()
	if err != nil {
		return nil
	}
	var ne *nextEdit
	if automatic {
		ne = s.nextEditReady(c, path, text)
	} else if ne, err = s.nextEditFor(ctx, c, path, text); err != nil && ctx.Err() == nil {
		s.log.Warn("next edit failed", "model", c.filler.Name(), "error", err)
	}
	if ne == nil {
		return nil
	}
	uri := p.TextDocument.URI
	return &protocol.CodeAction{Title: ne.Title, Kind: nextEditKind,
		Edit:    &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{uri: {{Range: ne.Range, NewText: ne.NewText}}}},
		Command: acceptedCommand(string(uri))}
}
