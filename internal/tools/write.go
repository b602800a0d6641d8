package tools

import (
	"context"
	_ "embed"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed write.md
var writeDescription string

type writeInput struct {
	FilePath string `json:"file_path" jsonschema:"File to write: relative to the first workspace folder, or absolute."`
	Content  string `json:"content" jsonschema:"The whole new content of the file."`
}

var writeSchema = schemaFor[writeInput]()

// WriteTool creates a file or replaces its whole content.
type WriteTool struct{ ws *Workspace }

// NewWriteTool returns the write tool over ws.
func NewWriteTool(ws *Workspace) *WriteTool { return &WriteTool{ws: ws} }

// Spec describes write: capability fs.write, action write.
func (t *WriteTool) Spec() Spec {
	return Spec{Name: "write", Description: writeDescription, Schema: writeSchema().JSON, Capability: "fs.write", Action: permission.ActionWrite}
}

func (t *WriteTool) plan(call Call) (plan, string, error) {
	var in writeInput
	if err := writeSchema().decode(call, "write", &in); err != nil {
		return plan{}, "", err
	}
	abs, blocked, err := t.ws.writeTarget(in.FilePath)
	if err != nil || blocked != "" {
		return plan{abs: abs}, blocked, errWith("write", err)
	}
	p, err := t.ws.planChange(call.SessionID, abs, true, func(string, bool) (string, string, error) {
		return in.Content, "", nil
	})
	return p, "", errWith("write", err)
}

// Describe computes the write so the ask can show the diff.
func (t *WriteTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	return describeChange(t.plan(call))("write", "fs.write", "overwrite")
}

// Run writes the file.
func (t *WriteTool) Run(ctx context.Context, call Call) (Result, error) {
	return runChange(ctx, t.ws, call, "write", t.plan)
}
