package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_references.md
var lspReferencesDescription string

type lspReferencesInput struct {
	lspPosInput
	IncludeDeclaration *bool `json:"include_declaration,omitempty" jsonschema:"List the declaration too. Default true."`
}

var lspReferencesSchema = schemaFor[lspReferencesInput]()

// LSPReferencesTool lists the uses of a symbol, from the language server
// of its file's type.
type LSPReferencesTool struct{ env *LSPEnv }

// NewLSPReferencesTool returns lsp_references over env.
func NewLSPReferencesTool(env *LSPEnv) *LSPReferencesTool { return &LSPReferencesTool{env: env} }

// Spec describes lsp_references: capability lsp.references, read-only.
func (t *LSPReferencesTool) Spec() Spec {
	return readSpec("lsp_references", lspReferencesDescription, lspReferencesSchema(), "lsp.references")
}

func (t *LSPReferencesTool) parse(call Call) (lspReferencesInput, string, error) {
	var in lspReferencesInput
	if err := lspReferencesSchema().decode(call, "lsp_references", &in); err != nil {
		return in, "", err
	}
	if err := in.validate("lsp_references"); err != nil {
		return in, "", err
	}
	abs, err := t.env.pathArg(in.FilePath)
	return in, abs, errWith("lsp_references", err)
}

// Describe validates the input and names the file for the gate.
func (t *LSPReferencesTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	return readRequest(t.Spec(), t.env.ws, abs, "agentls wants to find the references to "+lspWhat(t.env.ws, in.lspPosInput)), nil
}

// Run asks the server and lists the references grouped by file.
func (t *LSPReferencesTool) Run(ctx context.Context, call Call) (Result, error) {
	in, _, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	tgt, err := t.env.locate(ctx, in.lspPosInput, "lsp_references")
	if err != nil {
		return Errorf("%v", err), nil
	}
	c, err := t.env.clientFor(ctx, tgt.path)
	if err != nil {
		return Errorf("lsp_references: %v", err), nil
	}
	decl := in.IncludeDeclaration == nil || *in.IncludeDeclaration
	locs, err := c.References(ctx, tgt.path, tgt.line, tgt.col, decl)
	if err != nil {
		return Errorf("lsp_references: %v", err), nil
	}
	at := fmt.Sprintf("%s:%d:%d", display(t.env.ws, tgt.path), tgt.line, tgt.col)
	if len(locs) == 0 {
		return Result{Content: fmt.Sprintf("No references to %s (at %s) found by %s.", tgt.label(), at, c.Name())}, nil
	}
	head := fmt.Sprintf("%s to %s (at %s) in %s:\n", countOf(len(locs), "reference", "references"), tgt.label(), at, countOf(countFiles(locs), "file", "files"))
	return Result{Content: head + formatLocations(t.env.ws, locs, 100)}, nil
}
