package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/agentls/agentls/internal/lsp/overlay"
	"github.com/agentls/agentls/internal/tools"
)

// editorApplier applies the agent's changes to documents open in the
// editor with workspace/applyEdit, so they land in the buffer, undoable.
type editorApplier struct{ s *Server }

type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

type lspRange struct {
	Start lspPos `json:"start"`
	End   lspPos `json:"end"`
}

type lspPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// applyResult is the client's reply. go.lsp.dev/protocol decodes it as a
// bool, which fails on real clients: the reply is an object.
type applyResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason"`
}

// ApplyOpen implements tools.Applier. After the buffer changed, a client
// with the agentls plugin is asked to save it (agentls/saveDocument), but
// only when the buffer held no unsaved changes of the person's before the
// edit: their unsaved work is never written for them.
func (a editorApplier) ApplyOpen(ctx context.Context, ch tools.FileChange) (tools.Applied, error) {
	s := a.s
	uri, ok := s.docs.URI(ch.Path)
	if !ok {
		uri = overlay.PathToURI(ch.Path)
	}
	edits := textEdits(ch.Old, ch.New)
	if len(edits) == 0 {
		return tools.Applied{}, nil
	}
	s.mu.Lock()
	docChanges := s.caps.Workspace.WorkspaceEdit.DocumentChanges
	canSave := s.caps.Experimental.Agentls.SaveDocument
	s.mu.Unlock()
	disk, err := os.ReadFile(ch.Path)
	clean := err == nil && string(disk) == ch.Old
	edit := map[string]any{}
	if docChanges {
		edit["documentChanges"] = []any{map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": ch.Version},
			"edits":        edits,
		}}
	} else {
		edit["changes"] = map[string]any{uri: edits}
	}
	var raw json.RawMessage
	if _, err := s.conn.Call(ctx, "workspace/applyEdit", map[string]any{"label": ch.Label, "edit": edit}, &raw); err != nil {
		return tools.Applied{}, fmt.Errorf("workspace/applyEdit: %w", err)
	}
	var res applyResult
	if err := json.Unmarshal(raw, &res); err != nil {
		// Some old clients answer a bare boolean.
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return tools.Applied{}, fmt.Errorf("workspace/applyEdit: the editor answered %s, not {applied, failureReason}", raw)
		}
		res.Applied = b
	}
	if !res.Applied {
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
	if _, err := s.conn.Call(ctx, MethodSaveDocument, map[string]any{"textDocument": map[string]any{"uri": uri}}, &saved); err != nil || !saved.Saved {
		s.log.Warn("editor did not save after an edit", "uri", uri, "error", err)
		return tools.Applied{Unsaved: "the editor did not save it"}, nil
	}
	return tools.Applied{Saved: true}, nil
}

// MethodSaveDocument is agentls's request asking a client with the agentls
// plugin to save a document (docs/protocol.md). Clients announce support
// with capabilities.experimental.agentls.saveDocument.
const MethodSaveDocument = "agentls/saveDocument"

// textEdits turns a line diff into LSP text edits with UTF-16 positions.
// Whole lines are replaced, except at the end of a document without a
// final newline, where the edit ends at the end of the last line.
func textEdits(old, new string) []textEdit {
	lines := tools.SplitLines(old)
	n := len(lines)
	endsNL := n == 0 || lines[n-1][len(lines[n-1])-1] == '\n'
	pos := func(line int) lspPos {
		if line < n || endsNL {
			return lspPos{Line: line}
		}
		last := lines[n-1]
		return lspPos{Line: n - 1, Character: overlay.UTF16Len(last)}
	}
	var out []textEdit
	for _, e := range tools.LineDiff(old, new) {
		text := ""
		for _, l := range e.New {
			text += l
		}
		out = append(out, textEdit{Range: lspRange{Start: pos(e.OldStart), End: pos(e.OldEnd)}, NewText: text})
	}
	return out
}
