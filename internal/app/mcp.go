package app

import (
	"path/filepath"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools"
)

// The MCP tool source: the servers under `mcp` (resolved per session, so a
// workspace's servers count only while it is trusted) run in one
// mcp.Manager per environment, made at the first session that names a
// server. Its connections outlive sessions and turns and close with the
// environment.

// mcpSource configures the environment's MCP servers from cfg and
// returns their tools for one session's registry; nil when no server was
// ever configured.
func (e *Env) mcpSource(cfg config.Config) tools.Source {
	var sb *sandbox.Sandbox
	if len(cfg.MCP) > 0 {
		sb = e.Sandbox()
	}
	e.mu.Lock()
	m := e.mcp
	if m == nil && len(cfg.MCP) > 0 {
		m = mcp.NewManager(mcp.Options{
			Roots: e.ws.Roots, Trusted: e.Trusted, Getenv: e.app.opts.Getenv, Log: e.app.log,
			OutputDir: filepath.Join(e.StateDir(), "outputs"), Version: e.app.opts.Version, Sandbox: sb,
		})
		e.mcp = m
	}
	e.mu.Unlock()
	if m == nil {
		return nil
	}
	m.Configure(cfg.MCP)
	return m.Source()
}

// mcpKnown reports whether a capability is an MCP tool's, for the gate.
func (e *Env) mcpKnown(c permission.Capability) bool {
	e.mu.Lock()
	m := e.mcp
	e.mu.Unlock()
	return m != nil && m.Known(c)
}

// closeMCP stops the MCP servers.
func (e *Env) closeMCP() {
	e.mu.Lock()
	m := e.mcp
	e.mcp = nil
	e.mu.Unlock()
	if m != nil {
		m.Close()
	}
}
