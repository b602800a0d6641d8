package config

// MCPServer is one Model Context Protocol server a session may use: a
// program agentls starts (Command, Args, Env) or a server it reaches over
// HTTP (URL, Headers). Front-ends that are handed servers for a session
// (ACP's session/new mcpServers) pass them in app.SessionOptions.MCPServers;
// the MCP tool source starts them and offers their tools through the gate.
type MCPServer struct {
	// Name identifies the server; its tools are named after it.
	Name string `json:"name"`
	// Transport is "stdio" (Command), "http" (streamable HTTP at URL) or
	// "sse" (server-sent events at URL).
	Transport string   `json:"transport"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	// Env is added to the program's environment.
	Env map[string]string `json:"env,omitempty"`
	URL string            `json:"url,omitempty"`
	// Headers are sent with every HTTP request.
	Headers map[string]string `json:"headers,omitempty"`
}

// MCP server transports.
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
	MCPSSE   = "sse"
)
