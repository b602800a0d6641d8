package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed lsp_restart.md
var lspRestartDescription string

type lspRestartInput struct {
	Server string `json:"server,omitempty" jsonschema:"Name of the server to restart, e.g. gopls. Default: every running server."`
}

var lspRestartSchema = schemaFor[lspRestartInput]()

// LSPRestartTool restarts language servers.
type LSPRestartTool struct{ env *LSPEnv }

// NewLSPRestartTool returns lsp_restart over env.
func NewLSPRestartTool(env *LSPEnv) *LSPRestartTool { return &LSPRestartTool{env: env} }

// Spec describes lsp_restart: capability lsp.restart; it changes no file.
func (t *LSPRestartTool) Spec() Spec {
	return readSpec("lsp_restart", lspRestartDescription, lspRestartSchema(), "lsp.restart")
}

// Describe names the server for the gate.
func (t *LSPRestartTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	var in lspRestartInput
	if err := lspRestartSchema().decode(call, "lsp_restart", &in); err != nil {
		return permission.Request{}, err
	}
	abs, err := t.env.pathArg("")
	if err != nil {
		return permission.Request{}, errWith("lsp_restart", err)
	}
	what := "every running language server"
	if in.Server != "" {
		what = "the language server " + in.Server
	}
	return readRequest(t.Spec(), t.env.ws, abs, "agentls wants to restart "+what), nil
}

// Run restarts the servers.
func (t *LSPRestartTool) Run(ctx context.Context, call Call) (Result, error) {
	var in lspRestartInput
	if err := lspRestartSchema().decode(call, "lsp_restart", &in); err != nil {
		return Errorf("%v", err), nil
	}
	m, err := t.env.Manager()
	if err != nil {
		return Errorf("lsp_restart: %v", err), nil
	}
	var names []string
	for _, c := range m.Clients() {
		if in.Server == "" || c.Name() == in.Server {
			names = append(names, c.Name()+" (in "+c.Root()+")")
		}
	}
	if err := m.Restart(ctx, in.Server); err != nil {
		return Errorf("lsp_restart: %v", err), nil
	}
	if len(names) == 0 {
		return Result{Content: "No language server is running: they start when a file of their type is used."}, nil
	}
	return Result{Content: fmt.Sprintf("Restarted %s.", strings.Join(names, ", "))}, nil
}
