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
// session's tool set, to show a call by its capability; the MCP servers
// it passed join the session's own (and start like them: the real
// server-everything offers its echo tool).
func TestSessionCarriesWhatAFrontEndNeeds(t *testing.T) {
	needNPM(t, "mcp-server-everything", "@modelcontextprotocol/server-everything@2026.8.31")
	a, root := newApp(t, "http://127.0.0.1:1", func(o *app.Options) {
		o.Tools = nil
		o.NewProvider = func(string, string) (agent.Provider, error) {
			return replay.Parse("replay:test", []byte(`{"turns":[{"text":"hi"}]}`))
		}
	})
	env, err := a.Open(app.Frontend{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	servers := config.MCPServers{"everything": {Command: []string{"mcp-server-everything"}, From: "the ACP client's mcpServers"}}
	sess, err := env.NewSession(context.Background(), app.SessionOptions{Channel: "acp", MCPServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	if got := sess.Settings.Config.MCP["everything"]; !reflect.DeepEqual(got, servers["everything"]) {
		t.Errorf("settings MCP = %+v, want the front-end's server", sess.Settings.Config.MCP)
	}
	sess.Tools.Refresh(context.Background())
	if _, ok := sess.Tools.Get("mcp_everything_echo"); !ok {
		t.Error("the front-end's MCP server offers no tools")
	}
	if sess.Tools == nil {
		t.Fatal("Session.Tools is nil")
	}
	tool, ok := sess.Tools.Get("view")
	if !ok || tool.Spec().Capability != "fs.read" {
		t.Errorf("Tools.Get(view) = %v, %v; want the view tool (fs.read)", tool, ok)
	}
}
