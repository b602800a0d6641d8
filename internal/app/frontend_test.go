package app_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
)

// TestSessionCarriesWhatAFrontEndNeeds: a second front-end (ACP) gets the
// session's tool set, to show a call by its capability, and the MCP
// servers it passed, kept as given for the MCP tool source.
func TestSessionCarriesWhatAFrontEndNeeds(t *testing.T) {
	a, root := newApp(t, "http://127.0.0.1:1", func(o *app.Options) {
		o.NewProvider = func(string, string) (agent.Provider, error) {
			return replay.Parse("replay:test", []byte(`{"turns":[{"text":"hi"}]}`))
		}
	})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	servers := []config.MCPServer{
		{Name: "github", Transport: config.MCPStdio, Command: "gh-mcp", Args: []string{"--stdio"}, Env: map[string]string{"TOKEN": "x"}},
		{Name: "docs", Transport: config.MCPHTTP, URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer y"}},
	}
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "acp", MCPServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sess.MCPServers, servers) {
		t.Errorf("MCPServers = %+v, want %+v", sess.MCPServers, servers)
	}
	if sess.Tools == nil {
		t.Fatal("Session.Tools is nil")
	}
	tool, ok := sess.Tools.Get("view")
	if !ok || tool.Spec().Capability != "fs.read" {
		t.Errorf("Tools.Get(view) = %v, %v; want the view tool (fs.read)", tool, ok)
	}
}
