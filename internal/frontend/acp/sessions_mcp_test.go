package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestMCPServersFromTheClient: the client's servers become `mcp` entries
// named so their tools can be; SSE and broken entries are refused with
// the fix.
func TestMCPServersFromTheClient(t *testing.T) {
	in := []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "GitHub Tools", Command: "gh-mcp", Args: []string{"--stdio"}, Env: []sdk.EnvVariable{{Name: "TOKEN", Value: "x"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "docs", Url: "https://docs.example/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer y"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "Docs", Url: "https://other.example/mcp"}},
		{Stdio: &sdk.McpServerStdio{Name: "☃", Command: "snow"}},
	}
	got, err := mcpServers("session/new", in)
	if err != nil {
		t.Fatal(err)
	}
	gh := got["github-tools"]
	if strings.Join(gh.Command, " ") != "gh-mcp" || strings.Join(gh.Args, " ") != "--stdio" || gh.Env["TOKEN"] != "x" || gh.Type != "stdio" {
		t.Errorf("github-tools = %+v", gh)
	}
	if got["docs"].URL != "https://docs.example/mcp" || got["docs"].Headers["Authorization"] != "Bearer y" || got["docs-2"].URL != "https://other.example/mcp" {
		t.Errorf("http servers = %+v", got)
	}
	if _, ok := got["server4"]; !ok || len(got) != 4 {
		t.Errorf("names = %v", got)
	}
	for _, tt := range []struct {
		in   sdk.McpServer
		want string
	}{
		{sdk.McpServer{Sse: &sdk.McpServerSseInline{Name: "old", Url: "https://x/sse"}}, "streamable HTTP"},
		{sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: "bad", Url: "ftp://x"}}, "http:// or https://"},
		{sdk.McpServer{}, "neither"},
	} {
		if _, err := mcpServers("session/new", []sdk.McpServer{tt.in}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error naming %q", tt.in, err, tt.want)
		}
	}
}
