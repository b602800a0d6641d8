package tools

import (
	"os"

	"github.com/agentls/agentls/internal/sandbox"
	"github.com/agentls/agentls/internal/tools/shell"
)

// ShellEnv is what the shell tools of one session share: its background
// jobs, the folder where full outputs of truncated results are saved and
// the sandbox its commands run in. Close it when the session or server
// ends: every job dies with it.
type ShellEnv struct {
	ws        *Workspace
	jobs      *shell.Jobs
	outputDir string
	home      string
	// sandbox is the sandbox commands run in now (nil, or returning nil:
	// commands run unconfined); proxy is how they reach the network;
	// trusted says whether a folder is trusted (known builds run unasked
	// only there).
	sandbox func() *sandbox.Sandbox
	proxy   *sandbox.Proxy
	trusted func(folder string) bool
	// terminals, when set, runs foreground commands in the person's
	// terminal as exe (agentls) exec.
	terminals Terminals
	exe       string
}

// NewShellEnv returns the shell state for a session over ws; full outputs
// of truncated results go under outputDir.
func NewShellEnv(ws *Workspace, outputDir string) *ShellEnv {
	home, _ := os.UserHomeDir()
	return &ShellEnv{ws: ws, jobs: shell.NewJobs(shell.JobsOptions{}), outputDir: outputDir, home: home}
}

// Confine makes every later command run in the sandbox sb returns then
// (the workspace's folders may change), reaching the network through
// proxy (nil: none), with trusted deciding whether a workspace folder is
// trusted. Call it before the environment is shared.
func (e *ShellEnv) Confine(sb func() *sandbox.Sandbox, proxy *sandbox.Proxy, trusted func(folder string) bool) {
	e.sandbox, e.proxy, e.trusted = sb, proxy, trusted
}

// UseTerminals runs later foreground commands in the person's terminal
// (t; ErrNoTerminal for a session without one) as `exe exec`, exe being
// the agentls program. Call it before the environment is shared.
func (e *ShellEnv) UseTerminals(t Terminals, exe string) {
	e.terminals, e.exe = t, exe
}

// Sandbox is the sandbox commands run in now (nil: unconfined).
func (e *ShellEnv) Sandbox() *sandbox.Sandbox {
	if e.sandbox == nil {
		return nil
	}
	return e.sandbox()
}

// Close kills every background job.
func (e *ShellEnv) Close() error { return e.jobs.Close() }

// DefaultTools is the full built-in tool set: the read-only tools, the
// editing tools, bash and the job tools, the agent's own tools (todos,
// fetch, agent), and the lsp_* tools when lsp is not nil. question is not
// among them: it is offered only where a person can answer.
func DefaultTools(ws *Workspace, env *ShellEnv, lsp *LSPEnv) []Tool {
	ts := append(ReadOnlyTools(ws),
		NewEditTool(ws), NewMultiEditTool(ws), NewWriteTool(ws),
		NewBashTool(env), NewJobOutputTool(env), NewJobKillTool(env),
		NewTodosTool(), NewFetchTool(env.outputDir), NewAgentTool())
	if lsp != nil {
		ts = append(ts, LSPTools(lsp)...)
	}
	return ts
}

// SubagentTools are what a subagent works with by default: reading the
// workspace, the read-only lsp_* tools and fetch (which the gate still
// asks about). No edits, no commands, no questions, no subagents.
func SubagentTools(ws *Workspace, env *ShellEnv, lsp *LSPEnv) []Tool {
	ts := append(ReadOnlyTools(ws), NewFetchTool(env.outputDir))
	if lsp != nil {
		ts = append(ts, NewLSPDiagnosticsTool(lsp), NewLSPReferencesTool(lsp), NewLSPDefinitionTool(lsp),
			NewLSPSymbolsTool(lsp), NewLSPCallHierarchyTool(lsp))
	}
	return ts
}
