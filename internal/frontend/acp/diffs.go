package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// hunkContent is a change as ACP tool-call content, one diff entry per
// hunk (oldText omitted for a new file), and the places it changed. The
// hunks come as data (tools.Hunk): nothing here reads a rendered diff back.
func (ss *session) hunkContent(hunks []tools.Hunk) ([]sdk.ToolCallContent, []sdk.ToolCallLocation) {
	var content []sdk.ToolCallContent
	var locs []sdk.ToolCallLocation
	seen := map[string]bool{}
	for _, h := range hunks {
		path := ss.resolve(h.Path)
		if h.Created {
			content = append(content, sdk.ToolDiffContent(path, h.New))
		} else {
			content = append(content, sdk.ToolDiffContent(path, h.New, h.Old))
		}
		if !seen[path] {
			seen[path] = true
			loc := sdk.ToolCallLocation{Path: path}
			if h.NewStart > 0 {
				line := h.NewStart
				loc.Line = &line
			}
			locs = append(locs, loc)
		}
	}
	return content, locs
}

// requestHunks are the hunks of the change a permission request proposes:
// its one file (edit, multiedit, write) or its several (lsp_rename).
func requestHunks(r permission.Request) []tools.Hunk {
	changes := r.Changes
	if r.Change != nil {
		changes = append([]permission.Change{*r.Change}, changes...)
	}
	var out []tools.Hunk
	for _, c := range changes {
		old := c.Old
		if !c.Exists {
			old = ""
		}
		out = append(out, tools.DiffHunks(c.Path, old, c.New)...)
	}
	return out
}
