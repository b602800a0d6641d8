package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
)

func cmdRevert(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("revert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: agentls revert [flags]\n\nRestores every file an agent turn changed (the last turn by default). A file changed\nafter the turn is left alone and listed, unless --force. Files open in an editor are\nwritten on disk: revert from the editor (agentls.revertTurn) to restore its buffers.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	workspace := fs.String("workspace", ".", "workspace root")
	turn := fs.String("turn", "", "turn id to revert (default: the last turn with changes)")
	force := fs.Bool("force", false, "also restore files changed after the turn")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls revert: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	env, closeEnv, err := headlessEnv(stderr, appFlags{}, *workspace)
	if err != nil {
		fmt.Fprintln(stderr, "agentls revert:", err)
		return exitCode(err)
	}
	defer closeEnv()
	ws := env.Workspace()
	h, err := env.History(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "agentls revert:", err)
		return 1
	}
	rep, err := h.RevertTurn(ctx, *turn, *force)
	if err != nil {
		fmt.Fprintln(stderr, "agentls revert:", err)
		return 1
	}
	if *jsonOut {
		_ = json.NewEncoder(stdout).Encode(rep)
	} else {
		fmt.Fprintln(stdout, rep.Text(ws.Rel))
	}
	if len(rep.Skipped) > 0 {
		return 1
	}
	return 0
}
