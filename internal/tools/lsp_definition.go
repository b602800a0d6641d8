package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_definition.md
var lspDefinitionDescription string

var lspDefinitionSchema = schemaFor[lspPosInput]()

// LSPDefinitionTool finds where a symbol is defined.
type LSPDefinitionTool struct{ env *LSPEnv }

// NewLSPDefinitionTool returns lsp_definition over env.
func NewLSPDefinitionTool(env *LSPEnv) *LSPDefinitionTool { return &LSPDefinitionTool{env: env} }

// Spec describes lsp_definition: capability lsp.definition, read-only.
func (t *LSPDefinitionTool) Spec() Spec {
	return readSpec("lsp_definition", lspDefinitionDescription, lspDefinitionSchema(), "lsp.definition")
}

func (t *LSPDefinitionTool) parse(call Call) (lspPosInput, string, error) {
	var in lspPosInput
	if err := lspDefinitionSchema().decode(call, "lsp_definition", &in); err != nil {
		return in, "", err
	}
	if err := in.validate("lsp_definition"); err != nil {
		return in, "", err
	}
	abs, err := t.env.pathArg(in.FilePath)
	return in, abs, errWith("lsp_definition", err)
}

// Describe validates the input and names the file for the gate.
func (t *LSPDefinitionTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return readRequest(t.Spec(), t.env.ws, abs, "agentls wants to find the definition of "+lspWhat(t.env.ws, in)), nil
}

// Run asks the server where the symbol is defined.
func (t *LSPDefinitionTool) Run(ctx context.Context, call Call) (Result, error) {
	in, _, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	tgt, err := t.env.locate(ctx, in, "lsp_definition")
	if err != nil {
		return Errorf("%v", err), nil
	}
	c, err := t.env.clientFor(ctx, tgt.path)
	if err != nil {
		return Errorf("lsp_definition: %v", err), nil
	}
	locs, err := c.Definition(ctx, tgt.path, tgt.line, tgt.col)
	if err != nil {
		return Errorf("lsp_definition: %v", err), nil
	}
	at := fmt.Sprintf("%s:%d:%d", display(t.env.ws, tgt.path), tgt.line, tgt.col)
	if len(locs) == 0 {
		return Result{Content: fmt.Sprintf("%s found no definition for %s (at %s): it may be a keyword, a literal or a built-in.", c.Name(), tgt.label(), at)}, nil
	}
	head := fmt.Sprintf("%s (at %s) is defined at:\n", tgt.label(), at)
	if len(locs) > 1 {
		head = fmt.Sprintf("%s (at %s) has %d definitions:\n", tgt.label(), at, len(locs))
	}
	return Result{Content: head + formatLocations(t.env.ws, locs, 50)}, nil
}
