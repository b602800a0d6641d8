package mcp

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/config"
)

var apiName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestNames(t *testing.T) {
	tests := []struct {
		server, tool, name, capability string
	}{
		{"github", "create_issue", "mcp_github_create_issue", "mcp.github.create_issue"},
		{"everything", "get-sum", "mcp_everything_get-sum", "mcp.everything.get-sum"},
		{"gh", "repos.list", "mcp_gh_repos_list", "mcp.gh.repos.list"},
		{"gh", "Get User", "mcp_gh_Get_User", "mcp.gh.get_user"},
		{"db", "résumé/query", "mcp_db_r_sum__query", "mcp.db.r_sum__query"},
		{"x", "a..b", "mcp_x_a__b", "mcp.x.a._.b"},
		{"x", "-lead", "mcp_x_-lead", "mcp.x._-lead"},
		{"x", "", "mcp_x_", "mcp.x._"},
	}
	for _, tc := range tests {
		if got := toolName(tc.server, tc.tool); got != tc.name || !apiName.MatchString(got) {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.name)
		}
		if got := capabilityOf(tc.server, tc.tool); string(got) != tc.capability || !got.Valid() {
			t.Errorf("capabilityOf(%q, %q) = %q (valid %v), want %q", tc.server, tc.tool, got, got.Valid(), tc.capability)
		}
	}
	// Long names are cut to 64 and stay distinct.
	long1, long2 := toolName("server", strings.Repeat("a", 80)+"1"), toolName("server", strings.Repeat("a", 80)+"2")
	if len(long1) != 64 || !apiName.MatchString(long1) || long1 == long2 {
		t.Errorf("long names %q and %q: want 64 characters each, and different", long1, long2)
	}
}

func TestCollidingToolsAreRefused(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "clash", Version: "1"}, &sdk.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	for _, name := range []string{"get_user", "get user", "Get_User", "list_resources"} {
		sdk.AddTool(srv, &sdk.Tool{Name: name, Description: "d"}, func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
			return textResult(name), nil, nil
		})
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	go srv.Run(ctx, st)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	f := newFixture(t, nil, false)
	ls, err := newServer(f.m, "x", config.MCPServer{}).list(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range ls.tools {
		names = append(names, st.remote+"="+st.spec.Name)
	}
	// The server lists them sorted: Get_User first. "get user" then has
	// its capability (mcp.x.get_user), get_user too, and list_resources
	// the resource listing's.
	if !slices.Equal(names, []string{"Get_User=mcp_x_Get_User"}) {
		t.Errorf("kept %v, want Get_User only", names)
	}
	f.notes, _ = f.m.noticesAfter(0)
	if !f.noticed(`tool "get user" of server x is left out`) || !f.noticed(`tool "get_user" of server x is left out`) ||
		!f.noticed(`tool "list_resources" of server x is left out`, "mcp.x.list_resources") {
		t.Errorf("notices = %q", f.notes)
	}
}
