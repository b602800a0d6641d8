package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/agentls/agentls/internal/frontend/acp"
)

const acpUsage = `Usage: agentls acp [flags]

Runs agentls as an Agent Client Protocol (ACP v1) agent on stdin/stdout, for editors that
start agents: Zed (agent_servers), JetBrains, CodeCompanion, avante, agent-shell. Logs go
to the log file only (ACP clients show each stderr line as an agent error): stderr says
only why agentls could not start. See docs/protocol-acp.md.

Flags:
`

func cmdACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, acpUsage); fs.PrintDefaults() }
	flags := addEditorFlags(fs, "model as provider:model (overrides AGENTLS_MODEL and the config file)",
		"permission mode sessions start in: chat, approve, smart or auto (the editor can switch it)")
	if code, done := parseEditorArgs(fs, args); done {
		return code
	}
	a, log, closeLog, code := openEditorApp(stderr, flags, stderrOff)
	defer closeLog()
	if code != 0 {
		return code
	}
	err := acp.Serve(ctx, stdin, stdout, acp.Options{App: a, Name: "agentls", Version: Version, AskTrust: trustNotice(logLines{log})})
	if err != nil {
		log.Error("acp", "error", err)
		return 1
	}
	return 0
}

// logLines writes each line as a warning in the log: where stderr is
// quiet, the log file holds what a command-line front-end prints.
type logLines struct{ log *slog.Logger }

func (l logLines) Write(p []byte) (int, error) {
	l.log.Warn(strings.TrimSpace(string(p)))
	return len(p), nil
}
