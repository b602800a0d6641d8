package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_call_hierarchy.md
var lspCallHierarchyDescription string

type lspCallHierarchyInput struct {
	lspPosInput
	Direction string `json:"direction,omitempty" schema:"enum=incoming|outgoing" jsonschema:"incoming: who calls it (default); outgoing: what it calls."`
}

var lspCallHierarchySchema = schemaFor[lspCallHierarchyInput]()

const (
	lspCallsLimit = 60
	lspSitesLimit = 5
)

// LSPCallHierarchyTool shows the callers or callees of a function.
type LSPCallHierarchyTool struct{ env *LSPEnv }

// NewLSPCallHierarchyTool returns lsp_call_hierarchy over env.
func NewLSPCallHierarchyTool(env *LSPEnv) *LSPCallHierarchyTool {
	return &LSPCallHierarchyTool{env: env}
}

// Spec describes lsp_call_hierarchy: capability lsp.call_hierarchy,
// read-only.
func (t *LSPCallHierarchyTool) Spec() Spec {
	return readSpec("lsp_call_hierarchy", lspCallHierarchyDescription, lspCallHierarchySchema(), "lsp.call_hierarchy")
}

func (t *LSPCallHierarchyTool) parse(call Call) (lspCallHierarchyInput, string, error) {
	var in lspCallHierarchyInput
	if err := lspCallHierarchySchema().decode(call, "lsp_call_hierarchy", &in); err != nil {
		return in, "", err
	}
	switch in.Direction {
	case "":
		in.Direction = "incoming"
	case "incoming", "outgoing":
	default:
		return in, "", fmt.Errorf("lsp_call_hierarchy: direction %q: use \"incoming\" (callers) or \"outgoing\" (callees)", in.Direction)
	}
	if err := in.validate("lsp_call_hierarchy"); err != nil {
		return in, "", err
	}
	abs, err := t.env.pathArg(in.FilePath)
	return in, abs, errWith("lsp_call_hierarchy", err)
}

// Describe validates the input and names the file for the gate.
func (t *LSPCallHierarchyTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, abs, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	verb := "find the callers of "
	if in.Direction == "outgoing" {
		verb = "find the calls made by "
	}
	return readRequest(t.Spec(), t.env.ws, abs, "agentls wants to "+verb+lspWhat(t.env.ws, in.lspPosInput)), nil
}

// Run asks the server for one direction of the call hierarchy.
func (t *LSPCallHierarchyTool) Run(ctx context.Context, call Call) (Result, error) {
	in, _, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	tgt, err := t.env.locate(ctx, in.lspPosInput, "lsp_call_hierarchy")
	if err != nil {
		return Errorf("%v", err), nil
	}
	c, err := t.env.clientFor(ctx, tgt.path)
	if err != nil {
		return Errorf("lsp_call_hierarchy: %v", err), nil
	}
	var calls []client.Call
	if in.Direction == "outgoing" {
		calls, err = c.OutgoingCalls(ctx, tgt.path, tgt.line, tgt.col)
	} else {
		calls, err = c.IncomingCalls(ctx, tgt.path, tgt.line, tgt.col)
	}
	if err != nil {
		return Errorf("lsp_call_hierarchy: %v", err), nil
	}
	at := fmt.Sprintf("%s:%d:%d", display(t.env.ws, tgt.path), tgt.line, tgt.col)
	if len(calls) == 0 {
		if in.Direction == "outgoing" {
			return Result{Content: fmt.Sprintf("%s (at %s) calls nothing that %s knows of (or the position is not on a function).", tgt.label(), at, c.Name())}, nil
		}
		return Result{Content: fmt.Sprintf("No callers of %s (at %s) found by %s (or the position is not on a function).", tgt.label(), at, c.Name())}, nil
	}
	lines := newLSPLines(t.env.ws)
	var b strings.Builder
	if in.Direction == "outgoing" {
		fmt.Fprintf(&b, "%s (at %s) calls %s:\n", tgt.label(), at, countOf(len(calls), "function", "functions"))
	} else {
		fmt.Fprintf(&b, "%s (at %s) is called from %s:\n", tgt.label(), at, countOf(len(calls), "function", "functions"))
	}
	for i, cl := range calls {
		if i == lspCallsLimit {
			fmt.Fprintf(&b, "\n… %d more not shown.\n", len(calls)-i)
			break
		}
		l := cl.Symbol.SelectionRange
		fmt.Fprintf(&b, "\n%s %s %s:%d:%d\n", cl.Symbol.Kind, cl.Symbol.Name, display(t.env.ws, l.Path), l.Line, l.Column)
		for j, s := range cl.Sites {
			if j == lspSitesLimit {
				fmt.Fprintf(&b, "  … %d more call sites\n", len(cl.Sites)-j)
				break
			}
			b.WriteString("  " + lines.locLine(s) + "\n")
		}
	}
	return Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}
