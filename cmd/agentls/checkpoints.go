package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/agentls/agentls/internal/app"
)

const checkpointsUsage = `Usage: agentls checkpoints [flags] [list | restore ID | undo]

The checkpoints taken before every step of a session that may change files (file tools,
bash, lsp_rename, MCP tools that are not read-only). list shows them; restore ID puts the
workspace back to before checkpoint ID's step (files changed since by someone else are left
alone and reported as conflicts, with both versions); undo undoes the last restore. A
restore is itself a checkpoint. The session is the workspace's latest unless --session.
--conversation also takes the conversation back to before the checkpoint's prompt (for the
session's next resume; a session open in an editor restores from the editor).

Flags:
`

func cmdCheckpoints(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("checkpoints", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, checkpointsUsage); fs.PrintDefaults() }
	workspace := fs.String("workspace", ".", "workspace root")
	session := fs.String("session", "", "session id (default: the workspace's latest)")
	jsonOut := fs.Bool("json", false, "print JSON")
	conversation := fs.Bool("conversation", false, "restore: also the conversation")
	conversationOnly := fs.Bool("conversation-only", false, "restore: only the conversation, not the files")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	verb, rest := "list", words
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "agentls checkpoints:", err)
		return code
	}
	switch {
	case verb == "restore" && len(rest) != 1, verb != "restore" && len(rest) != 0:
		return fail(2, fmt.Errorf("%s: unexpected arguments %q (see agentls checkpoints --help)", verb, rest))
	case verb != "list" && verb != "restore" && verb != "undo":
		return fail(2, fmt.Errorf("unknown subcommand %q: use list, restore ID or undo", verb))
	}
	env, closeEnv, err := headlessEnv(stderr, appFlags{}, *workspace)
	if err != nil {
		return fail(exitCode(err), err)
	}
	defer closeEnv()
	st, err := env.Store(ctx)
	if err != nil {
		return fail(1, err)
	}
	id := *session
	if id == "" {
		latest, err := st.LatestSession(ctx, env.Workspace().Roots()[0])
		if err != nil {
			return fail(1, err)
		}
		id = latest.ID
	}
	rel := env.Workspace().Rel
	var (
		rep  app.CheckpointRestore
		rerr error // the restore's
	)
	switch verb {
	case "list":
		eng, err := env.Checkpoints(ctx)
		if err != nil {
			return fail(1, err)
		}
		list, err := eng.List(ctx, id)
		if err != nil {
			return fail(1, err)
		}
		if *jsonOut {
			_ = json.NewEncoder(stdout).Encode(map[string]any{"session": id, "checkpoints": list})
			return 0
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no checkpoints in session", id)
		}
		for _, c := range list {
			fmt.Fprintf(stdout, "%-5d %s  %-7s %3d path(s)  %s\n", c.ID, c.Time.Format("2006-01-02 15:04:05"), c.Kind, c.Changed, c.Title)
			for _, n := range c.Notes {
				fmt.Fprintf(stdout, "      note: %s\n", n)
			}
		}
		return 0
	case "restore":
		cp, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil {
			return fail(2, fmt.Errorf("restore %q: give a checkpoint id (see agentls checkpoints list)", rest[0]))
		}
		rep, rerr = env.RestoreCheckpoint(ctx, app.RestoreOptions{SessionID: id, Checkpoint: cp,
			Files: !*conversationOnly, Conversation: *conversation || *conversationOnly})
	case "undo":
		rep, rerr = env.UndoRestore(ctx, id, nil)
	}
	if rerr != nil {
		if !rep.Partial() {
			return fail(1, rerr)
		}
		// Part was done: say what, then fail.
		if *jsonOut {
			_ = json.NewEncoder(stdout).Encode(rep)
		} else {
			fmt.Fprintln(stdout, rep.Text(rel))
		}
		return fail(1, fmt.Errorf("the restore did not finish: %w", rerr))
	}
	if *jsonOut {
		_ = json.NewEncoder(stdout).Encode(rep)
	} else {
		fmt.Fprintln(stdout, rep.Text(rel))
	}
	if len(rep.Conflicts)+len(rep.Skipped) > 0 {
		return 1
	}
	return 0
}
