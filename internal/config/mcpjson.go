package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ProjectMCPFile is the project file other agents (Claude Code, Cursor,
// …) read MCP servers from: {"mcpServers": {"name": {"command": "npx",
// "args": [...], "env": {...}}, "name2": {"type": "http", "url": "...",
// "headers": {...}}}}. agentls reads it at each workspace root, under the
// same trust rule as `mcp` in .agentls.json, whose entries win.
const ProjectMCPFile = ".mcp.json"

// loadProjectMCP reads root's .mcp.json. It is another program's format,
// so it is read leniently: what agentls cannot use (a broken file, an
// unknown key, an invalid entry) is a warning, never an error that would
// stop the workspace's own settings.
func loadProjectMCP(root string) (MCPServers, []Warning) {
	path := filepath.Join(root, ProjectMCPFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var warns []Warning
	warn := func(key, format string, args ...any) {
		warns = append(warns, Warning{Source: path, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err == nil {
		err = json.Unmarshal(data, &file)
	}
	if err != nil {
		warn("(file)", "cannot be used (%v); its servers are not started", err)
		return nil, warns
	}
	out := MCPServers{}
	for _, orig := range slices.Sorted(maps.Keys(file.MCPServers)) {
		key := "mcpServers." + orig
		s, unknown, err := decodeMCPServer(file.MCPServers[orig])
		if err == nil {
			err = s.validate()
		}
		if err != nil {
			warn(key, "ignored: %v", err)
			continue
		}
		if len(unknown) > 0 {
			warn(key, "keys %s are not used by agentls (it reads %s)", strings.Join(unknown, ", "), strings.Join(mcpKeys(), ", "))
		}
		name := mcpServerName(orig)
		if _, taken := out[name]; taken || name == "" {
			warn(key, "ignored: its name, as agentls writes it (%q), is another server's or empty", name)
			continue
		}
		if name != orig {
			warn(key, "named %q here (tools mcp_%s_…, capability mcp.%s.*)", name, name, name)
		}
		s.From, s.Root = path, root
		out[name] = s
	}
	return out, warns
}

// mcpServerName turns another program's server name into one agentls
// accepts: lowercase, characters other than letters, digits, _ and -
// replaced by _, at most 32 characters.
func mcpServerName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 32 {
		s = s[:32]
	}
	if s != "" && !mcpName.MatchString(s) {
		s = "s" + s[:min(len(s), 31)]
	}
	return s
}

// withProjectMCP adds root's .mcp.json servers to its workspace config c,
// under the names c's own `mcp` does not use.
func withProjectMCP(c Config, root string) (Config, bool, []Warning) {
	servers, warns := loadProjectMCP(root)
	if len(servers) == 0 {
		return c, false, warns
	}
	merged := maps.Clone(servers)
	maps.Copy(merged, c.MCP)
	c.MCP = merged
	return c, true, warns
}
