package config_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func TestParseMCP(t *testing.T) {
	c, err := config.Parse("/home/me/c.json", []byte(`{"mcp": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"A": "1"}, "cwd": "sub"},
		"list": {"command": ["server", "--stdio"], "startup_timeout": "5s", "tool_timeout": "1m"},
		"split": {"command": "server --stdio"},
		"gh": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}},
		"off": {"disabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	fs := c.MCP["fs"]
	if !slices.Equal(fs.Command, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}) || fs.Args != nil ||
		fs.Env["A"] != "1" || fs.Cwd != "sub" || fs.From != "/home/me/c.json" || fs.Root != "" {
		t.Errorf("fs = %+v", fs)
	}
	if !slices.Equal(c.MCP["split"].Command, []string{"server", "--stdio"}) || !slices.Equal(c.MCP["list"].Command, []string{"server", "--stdio"}) {
		t.Errorf("split %v, list %v", c.MCP["split"].Command, c.MCP["list"].Command)
	}
	if gh := c.MCP["gh"]; gh.URL != "https://api.example.com/mcp" || gh.Headers["Authorization"] != "Bearer ${GH_TOKEN}" {
		t.Errorf("gh = %+v", gh)
	}
	if !c.MCP["off"].Disabled {
		t.Errorf("off = %+v", c.MCP["off"])
	}
	for _, bad := range []struct{ json, want string }{
		{`{"mcp": {"fs": {"comand": ["x"]}}}`, `mcp.fs: unknown key "comand"`},
		{`{"mcp": {"fs": {}}}`, `mcp.fs: "command" (a program over stdio) or "url" (streamable HTTP) is required`},
		{`{"mcp": {"fs": {"command": ["x"], "url": "http://h/mcp"}}}`, `not both`},
		{`{"mcp": {"fs": {"url": "ftp://h/mcp"}}}`, `give an http:// or https:// address`},
		{`{"mcp": {"fs": {"type": "sse", "url": "http://h/sse"}}}`, `"sse" is not supported`},
		{`{"mcp": {"fs": {"command": ["x"], "headers": {"A": "b"}}}}`, `"headers" apply to a "url"`},
		{`{"mcp": {"fs": {"url": "http://h/mcp", "env": {"A": "b"}}}}`, `"env" and "cwd" apply to a program`},
		{`{"mcp": {"fs": {"command": 3}}}`, `"command" must be a string or a list`},
		{`{"mcp": {"fs": {"command": ["x"], "startup_timeout": "soon"}}}`, `startup_timeout "soon"`},
		{`{"mcp": {"My Server": {"command": ["x"]}}}`, `mcp.My Server: the name must be 1 to 32 lowercase letters`},
		{`{"mcp": {"fs": "npx"}}`, `mcp.fs: must be an object`},
		{`{"mcp": ["fs"]}`, `mcp: must be an object of servers by name`},
	} {
		if _, err := config.Parse("c.json", []byte(bad.json)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", bad.json, err, bad.want)
		}
	}
}

// putFile writes name under dir.
func putFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveMCPTrust(t *testing.T) {
	root := t.TempDir()
	putFile(t, root, config.WorkspaceFile, `{"mcp": {"proj": {"command": ["./tools/mcp-server"]}, "both": {"command": ["from-agentls-json"]}}}`)
	putFile(t, root, config.ProjectMCPFile, `{"mcpServers": {
		"both": {"command": "from-mcp-json"},
		"My DB": {"type": "stdio", "command": "db-server", "args": ["--ro"], "alwaysAllow": ["query"]},
		"bad": {"command": 7}}}`)
	user := config.Config{MCP: config.MCPServers{"mine": {Command: []string{"my-server"}, From: "/home/me/c.json"}}}
	wsCfgs, loadWarns := config.LoadWorkspaces([]string{root})
	projFile := filepath.Join(root, config.ProjectMCPFile)
	if !warned(loadWarns, projFile, "mcpServers.My DB", `named "my_db" here`) ||
		!warned(loadWarns, projFile, "mcpServers.My DB", "keys alwaysAllow are not used") ||
		!warned(loadWarns, projFile, "mcpServers.bad", "ignored") {
		t.Errorf("load warnings = %v", loadWarns)
	}

	// Untrusted: only the user's server, and a warning per file naming the servers.
	got, warns, err := config.Resolve(user, config.Config{}, config.Flags{}, wsCfgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := slices.Sorted(maps.Keys(got.MCP)); !slices.Equal(names, []string{"mine"}) {
		t.Errorf("untrusted: servers %v, want only the user's", names)
	}
	if !warned(warns, filepath.Join(root, config.WorkspaceFile), "mcp", "ignored (both, proj)", "not trusted") ||
		!warned(warns, projFile, "mcp", "ignored (my_db)", "not trusted") {
		t.Errorf("untrusted warnings = %v", warns)
	}

	// Trusted: the workspace's servers with their root; .agentls.json wins over .mcp.json.
	got, _, err = config.Resolve(user, config.Config{}, config.Flags{}, wsCfgs, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if names := slices.Sorted(maps.Keys(got.MCP)); !slices.Equal(names, []string{"both", "mine", "my_db", "proj"}) {
		t.Errorf("trusted: servers %v", names)
	}
	if b := got.MCP["both"]; !slices.Equal(b.Command, []string{"from-agentls-json"}) || b.Root != root || b.From != filepath.Join(root, config.WorkspaceFile) {
		t.Errorf("both = %+v, want the .agentls.json entry with its root", b)
	}
	if db := got.MCP["my_db"]; !slices.Equal(db.Command, []string{"db-server", "--ro"}) || db.From != projFile || db.Root != root {
		t.Errorf("my_db = %+v", db)
	}

	// The editor turns a server off with {"disabled": true}, and its own entries say where they come from.
	editor := config.Config{MCP: config.MCPServers{"mine": {Disabled: true}, "ed": {URL: "http://localhost:9/mcp"}}}
	got, _, err = config.Resolve(user, editor, config.Flags{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := got.MCP["mine"]; !m.Disabled || !slices.Equal(m.Command, []string{"my-server"}) {
		t.Errorf("mine = %+v, want the user's entry, disabled", m)
	}
	if got.MCP["ed"].From != "editor settings" || editor.MCP["ed"].From != "" {
		t.Errorf("editor entry from %q (and the editor's own map changed to %q)", got.MCP["ed"].From, editor.MCP["ed"].From)
	}
	if _, _, err := config.Resolve(config.Config{}, config.Config{MCP: config.MCPServers{"x": {}}}, config.Flags{}, nil, nil); err == nil || !strings.Contains(err.Error(), "mcp.x") {
		t.Errorf("an invalid editor entry = %v, want an error naming mcp.x", err)
	}
}

func TestProjectMCPFileBroken(t *testing.T) {
	root := t.TempDir()
	putFile(t, root, config.ProjectMCPFile, `{"mcpServers": `)
	cfgs, warns := config.LoadWorkspaces([]string{root})
	if _, ok := cfgs[root]; ok || !warned(warns, config.ProjectMCPFile, "cannot be used") {
		t.Errorf("broken .mcp.json: configs %v, warnings %v", cfgs, warns)
	}
}

// The schema in docs lists exactly the keys an `mcp` entry may have.
func TestMCPSchemaKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			MCP struct {
				AdditionalProperties struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"additionalProperties"`
			} `json:"mcp"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	documented := slices.Sorted(maps.Keys(schema.Properties.MCP.AdditionalProperties.Properties))
	_, err = config.Parse("c.json", []byte(`{"mcp": {"x": {"bogus": 1}}}`))
	_, list, ok := strings.Cut(fmt.Sprint(err), "the keys are ")
	if !ok {
		t.Fatalf("Parse with an unknown key = %v, want the list of keys", err)
	}
	accepted := strings.Split(strings.SplitN(list, "\n", 2)[0], ", ")
	slices.Sort(accepted)
	if !slices.Equal(documented, accepted) {
		t.Errorf("docs/config.schema.json mcp keys %v, Parse accepts %v", documented, accepted)
	}
}
