package acp

import (
	"encoding/json"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/tools"
)

// kindOf is how an ACP client shows a call to the session's tool called
// name (its icon, whether it follows along): the tool's kind, whose words
// are ACP's; other when the session has no such tool. Events carry the
// kind; this serves records written before they did.
func (ss *session) kindOf(name string) sdk.ToolKind {
	if ss.as.Tools != nil {
		if t, ok := ss.as.Tools.Get(name); ok {
			return sdk.ToolKind(tools.KindOf(t.Spec()))
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
