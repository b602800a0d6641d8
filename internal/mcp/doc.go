// Package mcp connects agentls to Model Context Protocol servers and offers
// their tools to the agent, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// A Manager holds the servers configured under the `mcp` key (package
// config): programs started over stdio and streamable HTTP endpoints. It
// lives as long as the workspace environment (package app), so its
// connections outlive sessions and turns; a turn's end cancels its own
// calls (the SDK sends notifications/cancelled) and closes nothing shared.
//
// Servers start when their tools are first needed — the first model step
// of a session — all at once, each bounded by its startup_timeout. One
// that fails to start, crashes or times out is reported by name (a notice
// that reaches the person as a warning, and the log) and the others keep
// working; a crashed server restarts on next use, at most three times a
// minute. tools/list_changed takes effect at the next step.
//
// Each server tool is a tools.Tool named mcp_{server}_{tool} (sanitised to
// ^[a-zA-Z0-9_-]{1,64}$; a name or capability two tools would share is
// refused) with capability mcp.{server}.{tool}, so it passes the one
// permission gate: the server's annotations say whether a call is
// read-only (readOnlyHint), reaches the open world (openWorldHint, which
// the egress inspector asks about) or is destructive (destructiveHint: no
// "Always allow"). Trusting annotations is trusting the server, which the
// person configured: a workspace's servers count only when it is trusted.
// list_mcp_resources and read_mcp_resource reach servers with resources.
package mcp
