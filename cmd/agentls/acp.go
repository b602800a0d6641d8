package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/agentls/agentls/internal/acp"
	"github.com/agentls/agentls/internal/config"
)

const acpUsage = `Usage: agentls acp [flags]

Runs agentls as an Agent Client Protocol (ACP v1) agent on stdin/stdout, for editors that
start agents: Zed (agent_servers), JetBrains, CodeCompanion, avante, agent-shell. Logs go
to stderr and the log file. See docs/protocol-acp.md.

Flags:
`

func cmdACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, acpUsage); fs.PrintDefaults() }
	model := fs.String("model", "", "model as provider:model (overrides AGENTLS_MODEL and the config file)")
	mode := fs.String("mode", "", "permission mode sessions start in: chat, approve, smart or auto (the editor can switch it)")
	yolo := fs.Bool("yolo", false, "auto mode: run every call that is not hard-blocked without asking")
	logFile := fs.String("log-file", "", "log file (default: agentls.log in the user's state dir)")
	verbose := fs.Bool("verbose", false, "log debug messages")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls acp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	dirs, err := config.UserDirs()
	if err != nil {
		fmt.Fprintln(stderr, "agentls:", err)
		return 1
	}
	// stdout is the protocol: the editor shows stderr in its log, so the
	// log goes there as well as to the log file.
	log, closeLog := newLogger(dirs, *logFile, *verbose, stderr, slog.LevelDebug)
	defer closeLog()
	a, _, err := newApp(log, appFlags{model: *model, mode: *mode, yolo: *yolo})
	if err != nil {
		// As for the language server: a broken config file must not stop
		// the editor's agent. Sessions say what is missing.
		log.Error("config file ignored", "error", err)
	}
	err = acp.Serve(ctx, stdin, stdout, acp.Options{App: a, Name: "agentls", Version: Version, AskTrust: trustNotice(stderr)})
	if err != nil {
		log.Error("acp", "error", err)
		return 1
	}
	return 0
}
