package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// toolKind is how an ACP client shows a call (its icon, whether it
// follows along), from what the tool declares to the gate: its
// capability, else its action.
func toolKind(sp tools.Spec) sdk.ToolKind {
	c := string(sp.Capability)
	switch c {
	case "fs.read", "fs.list":
		return sdk.ToolKindRead
	case "fs.glob", "fs.grep":
		return sdk.ToolKindSearch
	case "fs.write", "fs.edit":
		return sdk.ToolKindEdit
	case "fs.delete":
		return sdk.ToolKindDelete
	case "fs.move":
		return sdk.ToolKindMove
	case "net.fetch":
		return sdk.ToolKindFetch
	case "lsp.rename", "lsp.replace_symbol":
		return sdk.ToolKindEdit
	case "lsp.restart":
		return sdk.ToolKindOther
	}
	switch {
	case strings.HasPrefix(c, "lsp."):
		return sdk.ToolKindSearch // diagnostics, references, definition, symbols, call hierarchy
	case strings.HasPrefix(c, "agent."):
		return sdk.ToolKindThink // the todo list, subagents, questions
	case strings.HasPrefix(c, "shell."):
		return sdk.ToolKindExecute // commands and their background jobs
	}
	switch sp.Action {
	case permission.ActionRead:
		return sdk.ToolKindRead
	case permission.ActionWrite:
		return sdk.ToolKindEdit
	case permission.ActionExecute:
		return sdk.ToolKindExecute
	}
	return sdk.ToolKindOther
}

// kindOf is the kind of the session's tool called name (other when the
// session has no such tool).
func (ss *session) kindOf(name string) sdk.ToolKind {
	if ss.as.Tools != nil {
		if t, ok := ss.as.Tools.Get(name); ok {
			return toolKind(t.Spec())
		}
	}
	return sdk.ToolKindOther
}

// resolve makes a path the agent or a tool named absolute: relative paths
// start at the session's first folder (cwd).
func (ss *session) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if roots := ss.env.Workspace().Roots(); len(roots) > 0 {
		return filepath.Join(roots[0], p)
	}
	return p
}

// inputLocations are the files a call names in its input (file_path or
// path, with line when it has one), for the client to follow along.
func (ss *session) inputLocations(input json.RawMessage) []sdk.ToolCallLocation {
	var in struct {
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		Line     *int   `json:"line"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	p := in.FilePath
	if p == "" {
		p = in.Path
	}
	if p == "" {
		return nil
	}
	loc := sdk.ToolCallLocation{Path: ss.resolve(p)}
	if in.Line != nil && *in.Line > 0 {
		loc.Line = in.Line
	}
	return []sdk.ToolCallLocation{loc}
}
