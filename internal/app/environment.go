package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/mcp"
	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools"
)

// What the model is told of where it works: a dozen lines after the
// system prompt, in a fixed order, made of what the composition root
// knows. It starts nothing and reaches no network: a language server is
// only looked up on PATH, an MCP server's state is what it is, and git
// runs (status only) as the bash tool would run it unasked, in the
// sandbox or a trusted folder (tools.ShellEnv.GitStatus). It holds no
// secret: no environment variable, no home or config path — only the
// workspace folders, which the model works on anyway.

// gitStatusLines bounds the status lines shown.
const gitStatusLines = 5

// sessionEnv is what a session's environment block reads: the session's
// gate (its mode may change), tool set and configuration.
type sessionEnv struct {
	e    *Env
	gate *permission.Gate
	reg  *tools.Registry
	// builtin: the tool set is the built-in one (language servers and MCP
	// servers as configured), not a test's.
	builtin bool

	// The repository's state is taken once, at the first turn, and kept:
	// a block that changed at every edit would cost the provider's prompt
	// cache the whole conversation at every turn.
	gitOnce sync.Once
	git     string
}

// environment returns the session's environment block, for
// agent.Config.Environment.
func (e *Env) environment(gate *permission.Gate, reg *tools.Registry) func(context.Context) string {
	s := &sessionEnv{e: e, gate: gate, reg: reg, builtin: e.app.opts.Tools == nil}
	return s.block
}

// block is the environment as it is now.
func (s *sessionEnv) block(ctx context.Context) string {
	e := s.e
	now := e.app.now()
	lines := []string{
		"# Environment",
		fmt.Sprintf("- System: %s/%s. Today is %s.", runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02 (Monday)")),
		"- Shell: the bash tool runs commands in agentls's embedded POSIX shell (mvdan.cc/sh, bash-like syntax), not the user's login shell; programs come from PATH.",
		"- Workspace folders: " + s.folders() + ".",
	}
	s.gitOnce.Do(func() { s.git = s.gitLine(ctx) })
	if s.git != "" {
		lines = append(lines, s.git)
	}
	if _, ok := s.reg.Get("lsp_diagnostics"); ok {
		lines = append(lines, s.languageLine(ctx))
	}
	if s.builtin {
		lines = append(lines, s.mcpLine())
	}
	lines = append(lines, "- Permission mode: "+modeLine(s.gate.Mode())+".", "- Sandbox: "+sandboxLine(e.Sandbox(), sandbox.Mode(e.app.opts.Config.Sandbox.Mode))+".")
	return strings.Join(lines, "\n")
}

// folders lists the workspace folders with their trust.
func (s *sessionEnv) folders() string {
	roots := s.e.ws.Roots()
	if len(roots) == 0 {
		return "none"
	}
	parts := make([]string, len(roots))
	for i, r := range roots {
		if s.e.Trusted(r) {
			parts[i] = r + " (trusted)"
		} else {
			parts[i] = r + " (not trusted: its .agentls.json may only tighten, its hooks and MCP servers do not run, language servers run in a safe form)"
		}
	}
	return strings.Join(parts, ", ")
}

// gitLine is the first folder's branch and short status ("" with no
// folder).
func (s *sessionEnv) gitLine(ctx context.Context) string {
	roots := s.e.ws.Roots()
	if len(roots) == 0 {
		return ""
	}
	const head = "- Git (first folder, at the session's start): "
	branch, detached, err := tools.GitHead(roots[0])
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return head + "no .git in the folder."
	case errors.Is(err, tools.ErrGitOutside):
		return head + "the repository's git files are outside the workspace folder; agentls read none of them."
	case err != nil:
		return head + "the branch is unknown (" + err.Error() + ")."
	}
	line := head + "branch " + branch
	if branch == "" {
		line = head + "detached at " + detached
	}
	status, total, err := s.e.shellEnv().GitStatus(ctx, roots[0], gitStatusLines)
	switch {
	case err != nil:
		return line + "; status not shown (" + err.Error() + ")."
	case total == 0:
		return line + ", clean."
	}
	line += fmt.Sprintf(", %d changed or untracked (git status --porcelain):", total)
	for _, l := range status {
		line += "\n  " + l
	}
	if more := total - len(status); more > 0 {
		line += fmt.Sprintf("\n  … %d more", more)
	}
	return line
}

// languageLine says which of the workspace's languages the lsp_* tools
// work for.
func (s *sessionEnv) languageLine(ctx context.Context) string {
	const head = "- Language servers (the lsp_* tools): "
	cov := s.e.lsp.Coverage(ctx)
	if len(cov) == 0 {
		return head + "no source files found in the workspace; the lsp_* tools have nothing to work on."
	}
	var parts, working []string
	for _, c := range cov {
		switch {
		case c.Server == "":
			parts = append(parts, c.Language+": none configured")
		case !c.Installed:
			parts = append(parts, fmt.Sprintf("%s: %s, not installed (%s is not on PATH)", c.Language, c.Server, c.Program))
		case !c.Works:
			parts = append(parts, fmt.Sprintf("%s: %s, not started until the folder is trusted", c.Language, c.Server))
		default:
			parts = append(parts, c.Language+": "+c.Server)
			working = append(working, c.Language)
		}
	}
	line := head + strings.Join(parts, "; ") + ". "
	switch {
	case len(working) == 0:
		return line + "They work for none of these languages here: use grep, glob and view."
	case len(working) < len(cov):
		return line + "They work for " + strings.Join(working, ", ") + " only; for the rest use grep, glob and view."
	}
	return line + "They work for all of these."
}

// mcpLine lists the MCP servers and what they offer.
func (s *sessionEnv) mcpLine() string {
	s.e.mu.Lock()
	m := s.e.mcp
	s.e.mu.Unlock()
	var states []mcp.ServerState
	if m != nil {
		states = m.States()
	}
	if len(states) == 0 {
		return "- MCP servers: none configured."
	}
	parts := make([]string, len(states))
	for i, st := range states {
		switch st.State {
		case "connected":
			parts[i] = fmt.Sprintf("%s (connected, %d tools)", st.Name, st.Tools)
		case "failed":
			parts[i] = st.Name + " (failed to start)"
		case "stopped":
			parts[i] = st.Name + " (stopped; restarts when its tools are next used)"
		default:
			parts[i] = st.Name + " (" + st.State + ")"
		}
	}
	return "- MCP servers (their tools are named mcp_<server>_<tool>): " + strings.Join(parts, ", ") + "."
}

// modeLine says what the permission mode lets run.
func modeLine(m permission.Mode) string {
	switch m {
	case permission.ModeChat:
		return "chat — no tool runs"
	case permission.ModeApprove:
		return "approve — the person is asked before every call a rule does not allow"
	case permission.ModeSmart:
		return "smart — read-only calls inside the workspace run at once; the person is asked about the rest"
	case permission.ModeAuto:
		return "auto — every call that is not blocked, denied or flagged runs without asking"
	}
	return string(m) + " — not a mode agentls knows: every call is asked or denied"
}

// sandboxLine says how the programs agentls starts are confined.
func sandboxLine(sb *sandbox.Sandbox, mode sandbox.Mode) string {
	st := sb.Status()
	switch {
	case mode == sandbox.ModeOff:
		return "off (sandbox.mode \"off\"): programs run unconfined"
	case sb == nil:
		return "could not be made (agentls's log says why): programs run unconfined"
	case st.Confined:
		return fmt.Sprintf("programs agentls starts are confined by %s: they write only in the workspace, the session's temporary folder ($TMPDIR: use it, not /tmp) and build caches, cannot read the rest of the home folder, and reach the network only through agentls's proxy, where each host needs a permission", mechanism(st.Mechanism))
	case st.Mode == sandbox.ModeRequired:
		return "required but not available here (" + st.Reason + "): every command is refused"
	}
	return "not available here (" + st.Reason + "): programs run unconfined"
}

// mechanism names a sandbox mechanism as people know it.
func mechanism(m string) string {
	switch m {
	case "landlock":
		return "Landlock"
	case "seatbelt":
		return "Seatbelt"
	}
	return m
}
