package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools/editmatch"
)

//go:embed edit.md
var editDescription string

//go:embed multiedit.md
var multieditDescription string

type editEntry struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

type editInput struct {
	FilePath   string `json:"file_path" jsonschema:"File to change: relative to the first workspace folder, or absolute."`
	OldString  string `json:"old_string" jsonschema:"Exact text to replace (empty: create the file)."`
	NewString  string `json:"new_string" jsonschema:"Replacement text."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence instead of requiring exactly one."`
}

type multieditInput struct {
	FilePath string      `json:"file_path" jsonschema:"File to change: relative to the first workspace folder, or absolute."`
	Edits    []editEntry `json:"edits" schema:"minItems=1"`
}

var (
	editSchema      = schemaFor[editInput]()
	multieditSchema = schemaFor[multieditInput]()
)

// EditTool replaces text in a file, tolerating the whitespace mistakes
// models make (tools/editmatch) and never editing a version the agent has
// not read.
type EditTool struct{ ws *Workspace }

// NewEditTool returns the edit tool over ws.
func NewEditTool(ws *Workspace) *EditTool { return &EditTool{ws: ws} }

// Spec describes edit: capability fs.edit, action write.
func (t *EditTool) Spec() Spec {
	return Spec{Name: "edit", Description: editDescription, Schema: editSchema().JSON, Capability: "fs.edit", Action: permission.ActionWrite}
}

// MultiEditTool applies several edits to one file, all or nothing.
type MultiEditTool struct{ ws *Workspace }

// NewMultiEditTool returns the multiedit tool over ws.
func NewMultiEditTool(ws *Workspace) *MultiEditTool { return &MultiEditTool{ws: ws} }

// Spec describes multiedit: capability fs.edit, action write.
func (t *MultiEditTool) Spec() Spec {
	return Spec{Name: "multiedit", Description: multieditDescription, Schema: multieditSchema().JSON, Capability: "fs.edit", Action: permission.ActionWrite}
}

func (t *EditTool) plan(call Call) (plan, string, error) {
	var in editInput
	if err := editSchema().decode(call, "edit", &in); err != nil {
		return plan{}, "", err
	}
	return planEdits(t.ws, call, "edit", in.FilePath, []editEntry{{OldString: in.OldString, NewString: in.NewString, ReplaceAll: in.ReplaceAll}})
}

func (t *MultiEditTool) plan(call Call) (plan, string, error) {
	var in multieditInput
	if err := multieditSchema().decode(call, "multiedit", &in); err != nil {
		return plan{}, "", err
	}
	if len(in.Edits) == 0 {
		return plan{}, "", errors.New("multiedit: edits is empty: give at least one {old_string, new_string}")
	}
	return planEdits(t.ws, call, "multiedit", in.FilePath, in.Edits)
}

// planEdits computes the change for edit and multiedit. The rules are
// edit's, per entry: a first entry with an empty old_string creates a file
// that does not exist yet, and the entries after it edit what it created.
func planEdits(ws *Workspace, call Call, tool, path string, entries []editEntry) (plan, string, error) {
	abs, blocked, err := ws.writeTarget(path)
	if err != nil || blocked != "" {
		return plan{abs: abs}, blocked, errWith(tool, err)
	}
	p, err := ws.planChange(call.SessionID, abs, true, func(text string, exists bool) (string, string, error) {
		create := entries[0].OldString == ""
		switch {
		case create && exists:
			return "", "", fmt.Errorf("%s already exists: an empty old_string only creates new files; quote the text to replace, or use write to replace the whole file", display(ws, abs))
		case !create && !exists:
			return "", "", fmt.Errorf("%s does not exist: to create it, give the first edit an empty old_string, or use the write tool", display(ws, abs))
		case create:
			return applyEntries(entries[0].NewString, entries[1:], 2, false)
		}
		return applyEntries(text, entries, 1, len(entries) == 1)
	})
	return p, "", errWith(tool, err)
}

// applyEntries applies edits in order, all or nothing. Errors and notes
// name each entry by its number in the call (first is the number of
// entries[0]), unless single is set: then, as for edit, they are the
// matcher's own.
func applyEntries(text string, entries []editEntry, first int, single bool) (string, string, error) {
	var notes []string
	for i, e := range entries {
		res, err := editmatch.Apply(text, editmatch.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll})
		switch {
		case err != nil && single:
			return "", "", err
		case err != nil:
			return "", "", &editmatch.EditError{Index: first + i, Err: err}
		case res.Note != "" && single:
			notes = append(notes, res.Note)
		case res.Note != "":
			notes = append(notes, fmt.Sprintf("Edit %d: %s", first+i, res.Note))
		}
		text = res.Content
	}
	return text, strings.Join(notes, "\n"), nil
}

func errWith(tool string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", tool, err)
}

// Describe computes the edit (without applying it) so the ask can show
// what and where, with the diff.
func (t *EditTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	return describeChange(t.plan(call))("edit", "fs.edit", "edit")
}

// Run applies the edit.
func (t *EditTool) Run(ctx context.Context, call Call) (Result, error) {
	return runChange(ctx, t.ws, call, "edit", t.plan)
}

// Describe computes the edits so the ask can show them.
func (t *MultiEditTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	return describeChange(t.plan(call))("multiedit", "fs.edit", "edit")
}

// Run applies the edits.
func (t *MultiEditTool) Run(ctx context.Context, call Call) (Result, error) {
	return runChange(ctx, t.ws, call, "multiedit", t.plan)
}

// describeChange turns a plan into the gate's request.
func describeChange(p plan, blocked string, err error) func(tool string, c permission.Capability, verb string) (permission.Request, error) {
	return func(tool string, c permission.Capability, verb string) (permission.Request, error) {
		if blocked != "" {
			return permission.Request{Tool: tool, Capability: c, Action: permission.ActionWrite, Paths: []string{p.abs},
				OutsideRoots: true, Blocked: blocked}, nil
		}
		if err != nil {
			return permission.Request{}, err
		}
		return p.request(tool, c, verb), nil
	}
}

// runChange recomputes the change at run time (the file may have moved on
// while the person was asked) and applies it.
func runChange(ctx context.Context, ws *Workspace, call Call, tool string, planner func(Call) (plan, string, error)) (Result, error) {
	p, blocked, err := planner(call)
	if blocked != "" {
		return Errorf("%s", blocked), nil
	}
	if err != nil {
		return Errorf("%v", err), nil
	}
	if call.Revised != nil {
		if err := p.revise(call.Revised); err != nil {
			return Errorf("%v", err), nil
		}
	}
	return ws.commit(ctx, call, tool, p)
}
