package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/permission"
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
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if prompt == "" && !*compact {
		fmt.Fprintln(stderr, "agentls run: a PROMPT is required")
		fs.Usage()
		return 2
	}
	fail := func(code int, err error) int {
		if *jsonOut {
			_ = json.NewEncoder(stdout).Encode(agent.Event{Type: agent.EventError, Message: err.Error()})
		}
		fmt.Fprintln(stderr, "agentls run:", err)
		return code
	}
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
	spec, err := env.ModelSpec()
	if err != nil {
		return fail(2, err)
	}
	set, err := env.Settings(config.Config{})
	if err != nil {
		return fail(2, err)
	}
	cwd, _ := os.Getwd() // a replay path on the command line is relative to where it was typed
	prov, err := env.Provider(spec, cwd, set)
	if err != nil {
		return fail(2, err)
	}
	var asker permission.Asker
	channel := "headless"
	pmode := set.Policy.Mode
	if pmode == "" {
		pmode = permission.ModeSmart
	}
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		asker = &terminalAsker{in: bufio.NewReader(f), out: stderr}
		channel = "terminal"
	} else if (pmode == permission.ModeSmart || pmode == permission.ModeApprove) && *onAsk != "deny" {
		return fail(2, fmt.Errorf("%s mode asks before edits and commands, and there is no terminal to ask on: "+
			"use --mode auto (or --yolo) to let the agent act without asking, add allow rules to \"permissions.rules\" in %s, "+
			"or pass --on-ask deny to deny and report whatever would be asked", pmode, a.Options().ConfigPath))
	}
	sess, err := env.NewSession(ctx, app.SessionOptions{Asker: asker, Channel: channel, MaxSteps: *maxSteps, Provider: prov,
		Continue: *cont, Resume: *sessionID})
	if err != nil {
		return fail(2, err)
	}
	if *record != "" {
		defer func() {
			if err := writeReplay(ctx, env, sess.ID, *record); err != nil {
				fmt.Fprintln(stderr, "agentls run: --record:", err)
			}
		}()
	}
	for _, w := range sess.Settings.Warnings {
		fmt.Fprintln(stderr, "agentls run: warning:", w)
	}
	defer sess.CloseHooks()
	var outMu sync.Mutex
	enc := json.NewEncoder(stdout)
	// On a terminal the answer streams as it is written.
	streaming := false
	if f, ok := stdout.(*os.File); ok && !*jsonOut && isTerminal(f) {
		streaming = true
	}
	emit := func(e agent.Event) {
		outMu.Lock()
		defer outMu.Unlock()
		if *jsonOut {
			_ = enc.Encode(e)
			return
		}
		switch e.Type {
		case agent.EventTextDelta:
			if streaming {
				fmt.Fprint(stdout, e.Text)
			}
		case agent.EventToolCall, agent.EventError, agent.EventCompaction, agent.EventWarning:
			if streaming {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintln(stderr, e.String())
		case agent.EventPermission:
			if e.Decision != string(permission.Allow) {
				fmt.Fprintln(stderr, e.String())
			}
		}
	}
	if *compact {
		if err := sess.Compact(ctx, emit); err != nil {
			return fail(1, err)
		}
		if prompt == "" {
			return 0
		}
	}
	turn, err := sess.Start(ctx, prompt, emit)
	if err != nil {
		return fail(2, err)
	}
	res := turn.Wait()
	switch {
	case streaming:
		fmt.Fprintln(stdout)
	case !*jsonOut && res.Text != "":
		fmt.Fprintln(stdout, res.Text)
	}
	switch res.Reason {
	case agent.ReasonCompleted, agent.ReasonDenied, agent.ReasonCancelled:
		if res.Reason == agent.ReasonDenied && asker == nil && !*jsonOut {
			fmt.Fprintln(stderr, "agentls run: a call needed permission and was denied (--on-ask deny); use --mode auto or allow rules to let the agent act")
		}
		return 0
	}
	return 1
}

// isTerminal reports whether f is a terminal (on every system).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// terminalAsker asks on the terminal for headless runs.
type terminalAsker struct {
	in  *bufio.Reader
	out io.Writer
}

// Ask implements permission.Asker: the choices are numbered; a number or
// "y" (the first choice, Allow) answers; anything else denies.
func (a *terminalAsker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	fmt.Fprintln(a.out, q.Message)
	if q.Request.Diff != "" {
		fmt.Fprintln(a.out, q.Request.Diff)
	}
	for i, c := range q.Choices {
		fmt.Fprintf(a.out, "  %d) %s\n", i+1, c.Title)
	}
	fmt.Fprint(a.out, "Answer [1-", len(q.Choices), ", y = Allow, anything else = Deny]: ")
	line := make(chan string, 1)
	go func() {
		s, _ := a.in.ReadString('\n')
		line <- s
	}()
	var ans string
	select {
	case ans = <-line:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	ans = strings.ToLower(strings.TrimSpace(ans))
	if ans == "y" || ans == "yes" {
		return permission.AnswerAllow, nil
	}
	if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= len(q.Choices) {
		return q.Choices[n-1].Answer, nil
	}
	return permission.AnswerDeny, nil
}
