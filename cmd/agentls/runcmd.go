package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	headless "github.com/agentls/agentls/internal/frontend/run"
)

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: agentls run [flags] PROMPT\n\nRuns one agent turn on a workspace without an editor and prints the answer.\nExit status: 0 when the turn ended normally, 1 on an agent or provider error, 2 on bad usage.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	workspace := fs.String("workspace", ".", "workspace root")
	modelFlag := fs.String("model", "", "model as provider:model, e.g. openai:gpt-4.1 or replay:script.json")
	mode := fs.String("mode", "", "permission mode: chat, approve, smart (default) or auto")
	yolo := fs.Bool("yolo", false, "auto mode: run every call that is not hard-blocked without asking")
	onAsk := fs.String("on-ask", "", "without a terminal: \"deny\" denies (and reports) what would be asked")
	jsonOut := fs.Bool("json", false, "print one JSON event per line instead of the answer")
	maxSteps := fs.Int("max-steps", 0, "maximum model calls in the turn (default 50)")
	cont := fs.Bool("continue", false, "continue the workspace's latest session (the model sees its conversation)")
	sessionID := fs.String("session", "", "continue the stored session with this id (see agentls sessions)")
	compact := fs.Bool("compact", false, "compact the conversation first (with --continue or --session; PROMPT may then be left out)")
	record := fs.String("record", "", "write the session as a replay script to this file when the turn ends")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if prompt == "" && !*compact {
		fmt.Fprintln(stderr, "agentls run: a PROMPT is required")
		fs.Usage()
		return 2
	}
	streams := headless.Streams{In: stdin, Out: stdout, Err: stderr}
	fail := func(code int, err error) int { return headless.Fail(streams, *jsonOut, code, err) }
	if *onAsk != "" && *onAsk != "deny" {
		return fail(2, fmt.Errorf("--on-ask %q: the only value is deny", *onAsk))
	}
	a, closeLog, err := headlessApp(stderr, appFlags{model: *modelFlag, mode: *mode, yolo: *yolo})
	if err != nil {
		return fail(1, err)
	}
	defer closeLog()
	env, err := openHeadless(a, *workspace)
	if err != nil {
		return fail(2, err)
	}
	defer env.Close()
	cwd, _ := os.Getwd() // a replay path on the command line is relative to where it was typed
	return headless.Turn(ctx, env, headless.Options{Prompt: prompt, Model: *modelFlag, OnAskDeny: *onAsk == "deny", JSON: *jsonOut, MaxSteps: *maxSteps,
		Continue: *cont, Session: *sessionID, Compact: *compact, Record: *record, Dir: cwd, ConfigPath: a.Options().ConfigPath}, streams)
}
