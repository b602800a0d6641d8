package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// TestToolKinds: every built-in tool gets the kind its capability says;
// a tool agentls does not know is judged by its action.
func TestToolKinds(t *testing.T) {
	a := testApp(t, func() agent.Provider { return nil })
	env, err := a.Open(app.Frontend{Roots: []string{workspace(t, nil)}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	reg, err := env.Registry(config.Config{}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]sdk.ToolKind{
		"view": sdk.ToolKindRead, "ls": sdk.ToolKindRead, "glob": sdk.ToolKindSearch, "grep": sdk.ToolKindSearch,
		"edit": sdk.ToolKindEdit, "multiedit": sdk.ToolKindEdit, "write": sdk.ToolKindEdit,
		"bash": sdk.ToolKindExecute, "job_output": sdk.ToolKindExecute, "job_kill": sdk.ToolKindExecute,
		"lsp_diagnostics": sdk.ToolKindSearch, "lsp_references": sdk.ToolKindSearch, "lsp_definition": sdk.ToolKindSearch,
		"lsp_symbols": sdk.ToolKindSearch, "lsp_call_hierarchy": sdk.ToolKindSearch,
		"lsp_rename": sdk.ToolKindEdit, "lsp_replace_symbol": sdk.ToolKindEdit, "lsp_restart": sdk.ToolKindOther,
		"todos": sdk.ToolKindThink, "agent": sdk.ToolKindThink, "fetch": sdk.ToolKindFetch, "skill": sdk.ToolKindRead,
	}
	for _, sp := range reg.Specs() {
		w, ok := want[sp.Name]
		if !ok {
			t.Errorf("tool %s (%s) has no expected kind here: add it", sp.Name, sp.Capability)
			continue
		}
		if got := sdk.ToolKind(tools.KindOf(sp)); got != w {
			t.Errorf("%s (%s): kind %s, want %s", sp.Name, sp.Capability, got, w)
		}
		delete(want, sp.Name)
	}
	for name := range want {
		t.Errorf("expected tool %s is not in the registry", name)
	}
	others := []struct {
		sp   tools.Spec
		want sdk.ToolKind
	}{
		{tools.Spec{Capability: "net.fetch", Action: permission.ActionRead}, sdk.ToolKindFetch},
		{tools.Spec{Capability: "agent.todos", Action: permission.ActionWrite}, sdk.ToolKindThink},
		{tools.Spec{Capability: "fs.delete", Action: permission.ActionWrite}, sdk.ToolKindDelete},
		{tools.Spec{Capability: "fs.move", Action: permission.ActionWrite}, sdk.ToolKindMove},
		{tools.Spec{Capability: "mcp.github.list_issues", Action: permission.ActionRead}, sdk.ToolKindRead},
		{tools.Spec{Capability: "mcp.github.create_issue", Action: permission.ActionExecute}, sdk.ToolKindExecute},
		{tools.Spec{Capability: "mcp.x.y"}, sdk.ToolKindOther},
	}
	for _, o := range others {
		if got := sdk.ToolKind(tools.KindOf(o.sp)); got != o.want {
			t.Errorf("%s/%s: kind %s, want %s", o.sp.Capability, o.sp.Action, got, o.want)
		}
	}
}
