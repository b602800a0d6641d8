package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_rename.md
var lspRenameDescription string

type lspRenameInput struct {
	lspPosInput
	NewName string `json:"new_name" jsonschema:"The new name (the identifier only)."`
}

var lspRenameSchema = schemaFor[lspRenameInput]()

// LSPRenameTool renames a symbol across files through the language
// server, applying the server's edits through the edit pipeline.
type LSPRenameTool struct {
	env   *LSPEnv
	cache lspCache
}

// NewLSPRenameTool returns lsp_rename over env.
func NewLSPRenameTool(env *LSPEnv) *LSPRenameTool { return &LSPRenameTool{env: env} }

// Spec describes lsp_rename: capability lsp.rename, action write.
func (t *LSPRenameTool) Spec() Spec {
	return Spec{Name: "lsp_rename", Description: lspRenameDescription, Schema: lspRenameSchema().JSON, Capability: "lsp.rename", Action: permission.ActionWrite}
}

// renameInfo describes a planned rename for the ask and the result.
type renameInfo struct {
	oldName, newName string
	edits            map[string]int // per path
}

func (r renameInfo) total() int {
	n := 0
	for _, c := range r.edits {
		n += c
	}
	return n
}

func (r renameInfo) summary() string {
	return fmt.Sprintf("rename %s → %s: %s in %s", r.oldName, r.newName, countOf(r.total(), "edit", "edits"), countOf(len(r.edits), "file", "files"))
}

// plan asks the server for the rename and turns its WorkspaceEdit into
// checked changes. blocked is set when an edit reaches outside the roots.
func (t *LSPRenameTool) plan(ctx context.Context, call Call) (plans []plan, info renameInfo, blocked []string, err error) {
	const tool = "lsp_rename"
	var in lspRenameInput
	if err := lspRenameSchema().decode(call, tool, &in); err != nil {
		return nil, info, nil, err
	}
	in.NewName = strings.TrimSpace(in.NewName)
	if in.NewName == "" || strings.IndexFunc(in.NewName, unicode.IsSpace) >= 0 {
		return nil, info, nil, fmt.Errorf("%s: new_name must be one identifier, not %q", tool, in.NewName)
	}
	tgt, err := t.env.locate(ctx, in.lspPosInput, tool)
	if err != nil {
		return nil, info, nil, err
	}
	c, err := t.env.clientFor(ctx, tgt.path)
	if err != nil {
		return nil, info, nil, errWith(tool, err)
	}
	at := fmt.Sprintf("%s:%d:%d", display(t.env.ws, tgt.path), tgt.line, tgt.col)
	prep, err := c.PrepareRename(ctx, tgt.path, tgt.line, tgt.col)
	if err != nil {
		return nil, info, nil, fmt.Errorf("%s: %s cannot rename at %s: %v", tool, c.Name(), at, err)
	}
	info = renameInfo{oldName: prep.Placeholder, newName: in.NewName, edits: map[string]int{}}
	if info.oldName == "" {
		info.oldName = tgt.label()
	}
	if info.oldName == in.NewName {
		return nil, info, nil, fmt.Errorf("%s: the symbol at %s is already named %s", tool, at, in.NewName)
	}
	we, err := c.Rename(ctx, tgt.path, prep.Line, prep.Column, in.NewName)
	if err != nil {
		return nil, info, nil, fmt.Errorf("%s: %v", tool, err)
	}
	if len(we.FileOps) > 0 {
		var ops []string
		for _, op := range we.FileOps {
			s := op.Kind + " " + display(t.env.ws, op.Path)
			if op.NewPath != "" {
				s += " → " + display(t.env.ws, op.NewPath)
			}
			ops = append(ops, s)
		}
		return nil, info, nil, fmt.Errorf("%s: %s's rename also creates, renames or deletes files (%s), which lsp_rename does not do; nothing was changed. Rename the files with bash, then edit", tool, c.Name(), strings.Join(ops, "; "))
	}
	paths := slices.Sorted(maps.Keys(we.Changes))
	if len(paths) == 0 {
		return nil, info, nil, fmt.Errorf("%s: %s returned no edits for renaming %s at %s", tool, c.Name(), info.oldName, at)
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) || !t.env.ws.Inside(p) {
			blocked = append(blocked, p)
		}
	}
	if len(blocked) > 0 {
		return nil, info, blocked, nil
	}
	for _, p := range paths {
		cur, err := t.env.ws.ReadFile(p)
		if err != nil {
			return nil, info, nil, fmt.Errorf("%s: %s: %w", tool, display(t.env.ws, p), err)
		}
		shown := display(t.env.ws, p)
		// The edits must be for the text the file has now (EditedText).
		text, err := t.env.servers.EditedText(we, p, cur.Text, info.oldName)
		switch {
		case errors.Is(err, client.ErrStale):
			return nil, info, nil, fmt.Errorf("%s: %s changed since %s computed the rename; nothing was changed: run %s again", tool, shown, c.Name(), tool)
		case err != nil:
			return nil, info, nil, fmt.Errorf("%s: %s: %v", tool, shown, err)
		}
		if text == cur.Text {
			continue
		}
		pl := plan{abs: p, shown: shown, cur: cur, exists: true, text: text}
		pl.diff, pl.added, pl.removed = UnifiedDiff(shown, cur.Text, text)
		pl.hunks = DiffHunks(shown, cur.Text, text)
		plans = append(plans, pl)
		info.edits[p] = len(we.Changes[p])
	}
	if len(plans) == 0 {
		return nil, info, nil, fmt.Errorf("%s: renaming %s to %s changes nothing", tool, info.oldName, in.NewName)
	}
	return plans, info, nil, nil
}

func (t *LSPRenameTool) blockedMessage(paths []string) string {
	return fmt.Sprintf("lsp_rename: the rename would edit files outside the workspace roots (%s): %s. agentls only changes files inside them; nothing was changed", strings.Join(t.env.ws.Roots(), ", "), strings.Join(paths, ", "))
}

// Describe computes the rename (without applying it) so the ask shows
// "rename X → Y: N edits in M files" and the diff.
func (t *LSPRenameTool) Describe(ctx context.Context, call Call) (permission.Request, error) {
	plans, info, blocked, err := t.plan(ctx, call)
	if len(blocked) > 0 {
		return permission.Request{Tool: "lsp_rename", Capability: "lsp.rename", Action: permission.ActionWrite, Paths: blocked,
			OutsideRoots: true, Blocked: t.blockedMessage(blocked)}, nil
	}
	if err != nil {
		return permission.Request{}, err
	}
	t.cache.put(call, plans, info)
	return permission.Request{
		Tool:       "lsp_rename",
		Capability: "lsp.rename",
		Action:     permission.ActionWrite,
		Paths:      planPaths(plans),
		Diff:       joinDiffs(plans),
		Changes:    planChanges(plans),
		Summary:    "agentls wants to " + info.summary(),
	}, nil
}

// Run applies the rename that was shown (or computes it, without a
// Describe), refusing it when a file changed in between.
func (t *LSPRenameTool) Run(ctx context.Context, call Call) (Result, error) {
	var plans []plan
	var info renameInfo
	if c, ok := t.cache.take(call); ok {
		plans, info = c.plans, c.extra.(renameInfo)
		if err := t.env.ws.stillCurrent(plans, "lsp_rename"); err != nil {
			return Errorf("%v", err), nil
		}
	} else {
		var blocked []string
		var err error
		plans, info, blocked, err = t.plan(ctx, call)
		if len(blocked) > 0 {
			return Errorf("%s", t.blockedMessage(blocked)), nil
		}
		if err != nil {
			return Errorf("%v", err), nil
		}
	}
	label := fmt.Sprintf("agentls: rename %s → %s", info.oldName, info.newName)
	lines, changed, failure := t.env.ws.commitPlans(ctx, call, "lsp_rename", label, plans, func(p plan) string {
		return countOf(info.edits[p.abs], "edit", "edits")
	})
	var b strings.Builder
	if failure != "" {
		if len(changed) == 0 {
			return Errorf("lsp_rename: nothing was changed: %s", failure), nil
		}
		fmt.Fprintf(&b, "The rename %s → %s is INCOMPLETE: %s\nChanged:\n", info.oldName, info.newName, failure)
	} else {
		fmt.Fprintf(&b, "Renamed %s → %s: %s in %s:\n", info.oldName, info.newName, countOf(info.total(), "edit", "edits"), countOf(len(plans), "file", "files"))
	}
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString(t.env.ws.lspAfterChange(ctx, changed))
	res := Result{Content: b.String(), Diff: joinDiffs(plans), Hunks: planHunks(plans)}
	res.IsError = failure != ""
	return res, nil
}

// planHunks are the hunks of every planned file, in order.
func planHunks(plans []plan) []Hunk {
	var out []Hunk
	for _, p := range plans {
		out = append(out, p.hunks...)
	}
	return out
}

// planChanges are the planned files' old and new texts, for the question.
func planChanges(plans []plan) []permission.Change {
	out := make([]permission.Change, len(plans))
	for i, p := range plans {
		out[i] = permission.Change{Path: p.abs, Old: p.cur.Text, Exists: p.exists, New: p.text}
	}
	return out
}
