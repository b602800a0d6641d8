package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// @modelcontextprotocol/server-everything, the protocol's reference server,
// started as a person would configure it. scripts/test installs it.
func everythingFixture(t *testing.T) *fixture {
	t.Helper()
	needProgram(t, "npx", "apt-get install -y npm")
	needProgram(t, "mcp-server-everything", installEverything)
	return newFixture(t, config.MCPServers{"everything": {Command: []string{"mcp-server-everything"}, From: "test config"}}, false)
}

func TestEverythingServer(t *testing.T) {
	f := everythingFixture(t)
	ctx := context.Background()
	ts := f.tools(t)
	if len(f.notes) != 0 {
		t.Errorf("notices = %q", f.notes)
	}

	// echo: its hyphen-free name, schema and read-only annotation.
	echo := mustTool(t, ts, "mcp_everything_echo")
	if s := echo.Spec(); !s.ReadOnly || s.Capability != "mcp.everything.echo" || !strings.Contains(string(s.Schema), `"message"`) {
		t.Errorf("echo spec = %+v", s)
	}
	if res := run(t, ctx, echo, `{"message":"hello there"}`); res.IsError || res.Content != "Echo: hello there" {
		t.Errorf("echo = %+v", res)
	}
	if _, err := echo.Describe(ctx, tools.Call{Input: []byte(`{}`)}); err == nil || !strings.Contains(err.Error(), "message") {
		t.Errorf("echo without its message: Describe = %v, want the schema's complaint", err)
	}

	// Annotations: a read-only closed-world tool; an open-world, non-destructive one.
	r, err := mustTool(t, ts, "mcp_everything_get-annotated-message").Describe(ctx, tools.Call{Input: []byte(`{"messageType":"success"}`)})
	if err != nil || !r.ReadOnly || r.OpenWorld || r.NoAlways != "" {
		t.Errorf("get-annotated-message request = %+v, %v; want read-only and closed-world", r, err)
	}
	r, err = mustTool(t, ts, "mcp_everything_gzip-file-as-resource").Describe(ctx, tools.Call{Input: []byte(`{}`)})
	if err != nil || r.ReadOnly || !r.OpenWorld || r.NoAlways != "" {
		t.Errorf("gzip-file-as-resource request = %+v, %v; want a non-destructive open-world write", r, err)
	}

	// Structured content is shown once even when a text block carries it too.
	res := run(t, ctx, mustTool(t, ts, "mcp_everything_get-structured-content"), `{"location":"Chicago"}`)
	if res.IsError || !strings.Contains(res.Content, `"temperature"`) || strings.Contains(res.Content, "Structured content:") {
		t.Errorf("structured content = %q", res.Content)
	}
	// Resource links say how to read them; images are summarised.
	res = run(t, ctx, mustTool(t, ts, "mcp_everything_get-resource-links"), `{"count":2}`)
	if !strings.Contains(res.Content, "[resource link] ") || !strings.Contains(res.Content, `read_mcp_resource {"server": "everything", "uri": "demo://resource/`) {
		t.Errorf("resource links = %q", res.Content)
	}
	res = run(t, ctx, mustTool(t, ts, "mcp_everything_get-tiny-image"), `{}`)
	if !strings.Contains(res.Content, "[image: image/png, ") || strings.Contains(res.Content, "iVBOR") {
		t.Errorf("image = %q, want a summary, not base64", res.Content)
	}

	// Resources: listed and read through the two resource tools.
	list := mustTool(t, ts, "list_mcp_resources")
	lr, err := list.Describe(ctx, tools.Call{Input: []byte(`{"server":"everything"}`)})
	if err != nil || lr.Capability != "mcp.everything.list_resources" || !lr.ReadOnly {
		t.Errorf("list request = %+v, %v", lr, err)
	}
	res = run(t, ctx, list, `{}`)
	if !strings.Contains(res.Content, "MCP server everything:") || !strings.Contains(res.Content, "<demo://resource/static/document/architecture.md>") {
		t.Errorf("list_mcp_resources = %q", res.Content)
	}
	read := mustTool(t, ts, "read_mcp_resource")
	res = run(t, ctx, read, `{"server":"everything","uri":"demo://resource/static/document/architecture.md"}`)
	if res.IsError || !strings.Contains(res.Content, "[resource <demo://resource/static/document/architecture.md> text/markdown]") || len(res.Content) < 200 {
		t.Errorf("read_mcp_resource = %q", res.Content)
	}
	if _, err := read.Describe(ctx, tools.Call{Input: []byte(`{"server":"nope","uri":"x"}`)}); err == nil || !strings.Contains(err.Error(), "everything") {
		t.Errorf("reading from an unknown server: %v, want the servers with resources named", err)
	}
	if !f.m.Known("mcp.everything.read_resource") || !f.m.Known("mcp.list_resources") {
		t.Error("the resource capabilities are not known")
	}
}
