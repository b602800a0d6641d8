package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The `mcp` key names the Model Context Protocol servers whose tools the
// agent gets (package mcp): a program started over stdio (`command`, with
// `args`, `env`, `cwd`) or a streamable HTTP endpoint (`url`, `headers`).
// An MCP server is a program agentls runs, or a service it sends the
// workspace's data to, so the key is taken from the user file, the
// editor's settings and trusted workspace files only — the same rule as
// `lsp`. A trusted workspace's .mcp.json (the format other agents read)
// adds its servers under that rule too.

// MCPServer is one entry under `mcp`.
type MCPServer struct {
	// Type is "stdio" or "http"; empty means what Command or URL implies.
	Type string `json:"type,omitempty"`
	// Command is the program and its arguments: a list, or a string (split
	// at spaces) followed by Args.
	Command []string `json:"command,omitempty"`
	// Args are added after Command (the .mcp.json form).
	Args []string `json:"args,omitempty"`
	// Env is added to agentls's environment for the program.
	Env map[string]string `json:"env,omitempty"`
	// Cwd is the program's working folder; relative to the workspace folder.
	Cwd string `json:"cwd,omitempty"`
	// URL is a streamable HTTP endpoint.
	URL string `json:"url,omitempty"`
	// Headers are sent with every HTTP request; values may name
	// environment variables as ${VAR}.
	Headers map[string]string `json:"headers,omitempty"`
	// Disabled turns the server off (also one a lower source names).
	Disabled bool `json:"disabled,omitempty"`
	// StartupTimeout bounds starting and initializing the server, as a Go
	// duration; empty means 30s.
	StartupTimeout string `json:"startup_timeout,omitempty"`
	// ToolTimeout bounds one tool call; empty means 10m.
	ToolTimeout string `json:"tool_timeout,omitempty"`
	// PingTimeout is the liveness bound during a call: a server that does
	// not answer a ping within it (asked after each quiet PingTimeout) is
	// stuck, and is stopped and restarted; empty means 15s, "0" never
	// pings (a server that cannot answer while it works).
	PingTimeout string `json:"ping_timeout,omitempty"`

	// From is the file that named the server ("editor settings" for the
	// editor); Root is the workspace folder of a workspace file's server,
	// "" for the user's own. Set by the loaders, not read from JSON.
	From string `json:"-"`
	Root string `json:"-"`
}

// MCPServers are the `mcp` entries by server name.
type MCPServers map[string]MCPServer

// mcpKeys are the keys an `mcp` entry may have.
func mcpKeys() []string {
	return []string{"type", "command", "args", "env", "cwd", "url", "headers", "disabled", "startup_timeout", "tool_timeout", "ping_timeout"}
}

// mcpName is what a server name may be: it becomes the tools' prefix
// (mcp_NAME_tool) and a capability segment (mcp.NAME.tool).
var mcpName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// Default timeouts of an MCP server.
const (
	DefaultMCPStartupTimeout = 30 * time.Second
	DefaultMCPToolTimeout    = 10 * time.Minute
	DefaultMCPPingTimeout    = 15 * time.Second
)

// UnmarshalJSON reads the entries strictly: an unknown key is an error
// naming its server, so a typo never drops a setting silently.
func (m *MCPServers) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return errors.New(`mcp: must be an object of servers by name, e.g. {"fs": {"command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."]}}`)
	}
	out := make(MCPServers, len(raw))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		s, unknown, err := decodeMCPServer(raw[name])
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("mcp.%s: %w", name, err))
		case len(unknown) > 0:
			errs = append(errs, fmt.Errorf("mcp.%s: unknown key %q; the keys are %s", name, unknown[0], strings.Join(mcpKeys(), ", ")))
		}
		out[name] = s
	}
	*m = out
	return errors.Join(errs...)
}

// decodeMCPServer reads one entry leniently and lists its unknown keys.
// A string command is split at spaces; args follow the command.
func decodeMCPServer(data []byte) (MCPServer, []string, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return MCPServer{}, nil, errors.New(`must be an object such as {"command": ["server", "--stdio"]} or {"url": "https://host/mcp"}`)
	}
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !slices.Contains(mcpKeys(), k) {
			unknown = append(unknown, k)
		}
	}
	type plain MCPServer
	var aux struct {
		plain
		Command json.RawMessage `json:"command,omitempty"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return MCPServer{}, unknown, err
	}
	s := MCPServer(aux.plain)
	if c := bytes.TrimSpace(aux.Command); len(c) > 0 && string(c) != "null" {
		var one string
		if json.Unmarshal(c, &one) == nil {
			s.Command = strings.Fields(one)
		} else if err := json.Unmarshal(c, &s.Command); err != nil {
			return MCPServer{}, unknown, errors.New(`"command" must be a string or a list of strings, e.g. ["npx", "-y", "@modelcontextprotocol/server-everything"]`)
		}
	}
	if len(s.Args) > 0 {
		s.Command, s.Args = append(slices.Clone(s.Command), s.Args...), nil
	}
	return s, unknown, nil
}

// validateMCP reports every problem of the `mcp` entries, each naming its
// server and what to write instead.
func validateMCP(servers MCPServers) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("mcp.%s: "+format, append([]any{name}, args...)...))
		}
		if !mcpName.MatchString(name) {
			bad("the name must be 1 to 32 lowercase letters, digits, _ or - (it becomes the tool prefix mcp_%s_ and the capability mcp.%s.*)", name, name)
		}
		if err := s.validate(); err != nil {
			bad("%v", err)
		}
	}
	return errs
}

// validate checks one entry; a disabled entry only needs valid timeouts.
func (s MCPServer) validate() error {
	for _, d := range []struct{ key, v string }{{"startup_timeout", s.StartupTimeout}, {"tool_timeout", s.ToolTimeout}} {
		if d.v == "" {
			continue
		}
		if v, err := time.ParseDuration(d.v); err != nil || v <= 0 {
			return fmt.Errorf("%s %q: use a positive duration such as \"30s\" or \"10m\"", d.key, d.v)
		}
	}
	if s.Disabled && len(s.Command) == 0 && s.URL == "" {
		return nil
	}
	switch s.Type {
	case "", "stdio", "http":
	case "sse":
		return errors.New(`type "sse" is not supported: give the server's streamable HTTP endpoint with "url" (type "http")`)
	default:
		return fmt.Errorf("type %q: use \"stdio\" (with \"command\") or \"http\" (with \"url\")", s.Type)
	}
	switch {
	case len(s.Command) > 0 && s.URL != "":
		return errors.New(`give "command" (a program over stdio) or "url" (streamable HTTP), not both`)
	case len(s.Command) == 0 && s.URL == "":
		return errors.New(`"command" (a program over stdio) or "url" (streamable HTTP) is required`)
	case s.URL != "":
		if s.Type == "stdio" {
			return errors.New(`type "stdio" needs "command", not "url"`)
		}
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q: give an http:// or https:// address", s.URL)
		}
		if len(s.Env) > 0 || s.Cwd != "" {
			return errors.New(`"env" and "cwd" apply to a program started over stdio, not to a "url"`)
		}
	default:
		if s.Type == "http" {
			return errors.New(`type "http" needs "url", not "command"`)
		}
		if s.Command[0] == "" {
			return errors.New("the command's program is empty")
		}
		if len(s.Headers) > 0 {
			return errors.New(`"headers" apply to a "url", not to a program started over stdio`)
		}
	}
	return nil
}

// mergeMCP applies over's entries on top of base's without sharing maps
// with either: an entry replaces the one of the same name, except one
// that only says {"disabled": true}, which turns the lower one off.
func mergeMCP(base, over MCPServers) MCPServers {
	merged := make(MCPServers, len(base)+len(over))
	maps.Copy(merged, base)
	for name, o := range over {
		if b, ok := merged[name]; ok && o.Disabled && len(o.Command) == 0 && o.URL == "" {
			b.Disabled = true
			merged[name] = b
			continue
		}
		merged[name] = o
	}
	return merged
}

// fromSource records where each entry came from.
func (m MCPServers) fromSource(from, root string) {
	for name, s := range m {
		s.From, s.Root = from, root
		m[name] = s
	}
}

// mcpWarnings are the warnings for an untrusted workspace's servers: one
// per file that named some.
func mcpWarnings(servers MCPServers) []Warning {
	byFile := map[string][]string{}
	for name, s := range servers {
		byFile[s.From] = append(byFile[s.From], name)
	}
	var out []Warning
	for _, f := range slices.Sorted(maps.Keys(byFile)) {
		names := byFile[f]
		slices.Sort(names)
		out = append(out, Warning{Source: f, Key: "mcp", Message: fmt.Sprintf(
			"ignored (%s): the workspace is not trusted, and an MCP server is a program agentls would run; trust the folder (agentls trust) to use it",
			strings.Join(names, ", "))})
	}
	return out
}
