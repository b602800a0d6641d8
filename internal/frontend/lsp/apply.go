package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/tools"
)

// editorApplier applies the agent's changes to documents open in the
// editor with workspace/applyEdit, so they land in the buffer, undoable.
type editorApplier struct{ s *Server }

// ApplyOpen implements tools.Applier. After the buffer changed, a client
// with the agentls plugin is asked to save it (agentls/saveDocument), but
// only when the buffer held no unsaved changes of the person's before the
// edit: their unsaved work is never written for them.
func (a editorApplier) ApplyOpen(ctx context.Context, ch tools.FileChange) (tools.Applied, error) {
	s := a.s
	defer s.agentEditing(ch.Path)()
	uri, ok := s.docs.URI(ch.Path)
	if !ok {
		uri = overlay.PathToURI(ch.Path)
	}
	edits := textEdits(ch.Old, ch.New)
	if len(edits) == 0 {
		return tools.Applied{}, nil
	}
	// The edits are line ranges of the text the change was computed on.
	// A client without versioned edits (documentChanges) would apply them
	// to whatever the buffer holds now: refuse here if it moved on.
	if _, v, open := s.docs.Get(ch.Path); open && v != ch.Version {
		return tools.Applied{}, &tools.NotAppliedError{Reason: fmt.Sprintf("the buffer changed in the editor while the edit was prepared (version %d, the edit is for version %d)", v, ch.Version)}
	}
	s.mu.Lock()
	docChanges := s.caps.Workspace.WorkspaceEdit.DocumentChanges
	canSave := s.caps.Experimental.Agentls.SaveDocument
	s.mu.Unlock()
	disk, err := os.ReadFile(ch.Path)
	clean := err == nil && string(disk) == ch.Old
	var edit protocol.WorkspaceEdit
	if docChanges {
		version := ch.Version
		edit.DocumentChanges = []protocol.TextDocumentEdit{{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)}, Version: &version},
			Edits: edits,
		}}
	} else {
		edit.Changes = map[protocol.DocumentURI][]protocol.TextEdit{protocol.DocumentURI(uri): edits}
	}
	var raw json.RawMessage
	// The didChange of the text the edit leaves is the agent's, even
	// when it comes after the answer (Neovim debounces didChange).
	s.expectAgentText(ch.Path, ch.New, true)
	if err := s.callEditor(ctx, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: ch.Label, Edit: edit}, &raw); err != nil {
		return tools.Applied{}, err
	}
	// Decoded here, not by protocol's typed client, which reads a bool.
	var res protocol.ApplyWorkspaceEditResponse
	if err := json.Unmarshal(raw, &res); err != nil {
		// Some old clients answer a bare boolean.
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return tools.Applied{}, fmt.Errorf("workspace/applyEdit: the editor answered %s, not {applied, failureReason}", raw)
		}
		res.Applied = b
	}
	if !res.Applied {
		s.expectAgentText(ch.Path, "", false)
		return tools.Applied{}, &tools.NotAppliedError{Reason: res.FailureReason}
	}
	switch {
	case !canSave:
		return tools.Applied{Unsaved: "this editor has no agentls plugin to save it"}, nil
	case !clean:
		return tools.Applied{Unsaved: "the buffer also holds the user's own unsaved changes"}, nil
	}
	var saved struct {
		Saved bool `json:"saved"`
	}
	if err := s.callEditor(ctx, MethodSaveDocument, map[string]any{"textDocument": map[string]any{"uri": uri}}, &saved); err != nil || !saved.Saved {
		s.log.Warn("editor did not save after an edit", "uri", uri, "error", err)
		return tools.Applied{Unsaved: "the editor did not save it"}, nil
	}
	return tools.Applied{Saved: true}, nil
}

// DefaultEditTimeout bounds how long the editor may take to answer
// workspace/applyEdit or agentls/saveDocument: a turn must not wait
// forever on an editor that never answers.
const DefaultEditTimeout = 30 * time.Second

// callEditor sends one request of an edit to the editor, bounded by the
// edit timeout. An editor that does not answer in time is told to drop
// the request ($/cancelRequest), and the error is a
// *tools.UnansweredError: the edit may still land.
func (s *Server) callEditor(ctx context.Context, method string, params, result any) error {
	timeout := s.opts.EditTimeout
	if timeout <= 0 {
		timeout = DefaultEditTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id, err := s.conn.Call(cctx, method, params, result)
	if err == nil {
		return nil
	}
	if ctx.Err() == nil && cctx.Err() != nil {
		_ = s.conn.Notify(context.WithoutCancel(ctx), "$/cancelRequest", map[string]any{"id": &id})
		return &tools.UnansweredError{Request: method, After: timeout}
	}
	return fmt.Errorf("%s: %w", method, err)
}

// MethodSaveDocument is agentls's request asking a client with the agentls
// plugin to save a document (docs/protocol.md). Clients announce support
// with capabilities.experimental.agentls.saveDocument.
const MethodSaveDocument = "agentls/saveDocument"

// textEdits turns a line diff into LSP text edits with UTF-16 positions.
// Whole lines are replaced, except at the end of a document without a
// final newline, where the edit ends at the end of the last line.
func textEdits(old, new string) []protocol.TextEdit {
	lines := tools.SplitLines(old)
	n := len(lines)
	endsNL := n == 0 || lines[n-1][len(lines[n-1])-1] == '\n'
	pos := func(line int) protocol.Position {
		if line < n || endsNL {
			return protocol.Position{Line: uint32(line)}
		}
		last := lines[n-1]
		return protocol.Position{Line: uint32(n - 1), Character: uint32(overlay.UTF16Len(last))}
	}
	var out []protocol.TextEdit
	for _, e := range tools.LineDiff(old, new) {
		text := ""
		for _, l := range e.New {
			text += l
		}
		out = append(out, protocol.TextEdit{Range: protocol.Range{Start: pos(e.OldStart), End: pos(e.OldEnd)}, NewText: text})
	}
	return out
}
