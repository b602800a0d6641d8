// Package acp is agentls's Agent Client Protocol front-end (ACP v1):
// `agentls acp` speaks newline-delimited JSON-RPC on stdin/stdout to an
// editor that runs agents (Zed, JetBrains, CodeCompanion, avante,
// agent-shell), with the same engine as the language server — one
// composition root (internal/app), one permission gate, one history
// store, one tool set and the same stored sessions.
//
// The wire types and the JSON-RPC connection are github.com/coder/acp-go-sdk's;
// wire.go checks every line first, so bad input is answered and never
// ends the connection. Each ACP session gets its own workspace
// environment (app.Env) whose overlay and applier are the client's
// fs/read_text_file and fs/write_text_file when it offers them, and whose
// permission asks become session/request_permission. Agent events become
// session/update notifications (updates.go); session/load replays a
// stored session (history.go). docs/protocol-acp.md describes the protocol
// as agentls speaks it.
package acp
