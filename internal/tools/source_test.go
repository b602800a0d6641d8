package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// listSource is a Source whose tools the test sets.
type listSource struct {
	tools   []Tool
	notices []string
	calls   int
}

func (l *listSource) Tools(context.Context) ([]Tool, []string) {
	l.calls++
	n := l.notices
	l.notices = nil
	return l.tools, n
}

func specNamed(name string) Spec {
	return Spec{Name: name, Description: "d", Schema: json.RawMessage(`{"type":"object"}`), Capability: "mcp.s.x", Action: permission.ActionRead}
}

func specNames(r *Registry) []string {
	var out []string
	for _, s := range r.Specs() {
		out = append(out, s.Name)
	}
	return out
}

func TestRegistrySourcesRefresh(t *testing.T) {
	ctx := context.Background()
	r, err := NewRegistry(fakeTool{specNamed("view")})
	if err != nil {
		t.Fatal(err)
	}
	a, b := &fakeTool{specNamed("mcp_s_a")}, &fakeTool{specNamed("mcp_s_b")}
	clash := &fakeTool{specNamed("view")}
	bad := &fakeTool{Spec{Name: "mcp_s_bad", Description: "d", Schema: json.RawMessage(`{"type":7}`), Capability: "mcp.s.bad", Action: permission.ActionRead}}
	src := &listSource{tools: []Tool{a, clash, bad}, notices: []string{"mcp: server s restarted"}}
	r.AddSource(src)

	if got := specNames(r); !slices.Equal(got, []string{"view"}) {
		t.Errorf("before Refresh = %v, want the fixed tools only", got)
	}
	notices := r.Refresh(ctx)
	if got := specNames(r); !slices.Equal(got, []string{"mcp_s_a", "view"}) {
		t.Errorf("after Refresh = %v", got)
	}
	if len(notices) != 3 || notices[0] != "mcp: server s restarted" ||
		!strings.Contains(notices[1], "tool view is left out: another tool has that name") ||
		!strings.Contains(notices[2], "mcp_s_bad: input schema") {
		t.Errorf("notices = %q, want the source's, the name clash and the bad schema", notices)
	}
	if got, ok := r.Get("view"); !ok || got == Tool(clash) {
		t.Errorf("Get(view) = %v, want the fixed tool, not the source's", got)
	}

	// The next Refresh: b appears, a goes; refused tools are not reported again.
	src.tools = []Tool{b, clash, bad}
	if notices := r.Refresh(ctx); len(notices) != 0 {
		t.Errorf("second Refresh notices = %q, want none", notices)
	}
	if _, ok := r.Get("mcp_s_a"); ok {
		t.Errorf("a tool the source no longer offers is still there")
	}
	if got, ok := r.Get("mcp_s_b"); !ok || got != b {
		t.Errorf("Get(mcp_s_b) = %v, %v", got, ok)
	}
	// Two sources offering one name: the first keeps it.
	other := &listSource{tools: []Tool{&fakeTool{specNamed("mcp_s_b")}}}
	r.AddSource(other)
	notices = r.Refresh(ctx)
	if got, _ := r.Get("mcp_s_b"); got != b || len(notices) != 1 {
		t.Errorf("second source's duplicate: Get = %v, notices %q; want the first source's tool and one notice", got, notices)
	}
}
