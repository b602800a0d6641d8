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
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/model"
	"github.com/agentls/agentls/agent/store"
	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/permission"
	"github.com/agentls/agentls/tools"
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
	mode := fs.String("mode", "", "permission mode: smart (default) or auto")
	jsonOut := fs.Bool("json", false, "print one JSON event per line instead of the answer")
	maxSteps := fs.Int("max-steps", 0, "maximum model calls in the turn (default 50)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if prompt == "" {
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
	if fi, err := os.Stat(*workspace); err != nil || !fi.IsDir() {
		return fail(2, fmt.Errorf("--workspace %s is not a directory", *workspace))
	}
	dirs, err := config.UserDirs()
	if err != nil {
		return fail(1, err)
	}
	cfg, err := config.Load(dirs.File())
	if err != nil {
		return fail(1, err)
	}
	spec, _, err := model.Resolve(
		model.Source{Name: "--model", Value: *modelFlag},
		model.Source{Name: "the AGENTLS_MODEL environment variable", Value: os.Getenv("AGENTLS_MODEL")},
		model.Source{Name: "\"model\" in " + dirs.File(), Value: cfg.Model},
	)
	if err != nil {
		return fail(2, err)
	}
	prov, err := model.New(spec, model.Options{Providers: cfg.Providers})
	if err != nil {
		return fail(2, err)
	}
	modeName := *mode
	if modeName == "" {
		modeName = cfg.Permissions.Mode
	}
	pmode, err := permission.ParseMode(modeName)
	if err != nil {
		return fail(2, err)
	}
	ws, err := tools.NewWorkspace([]string{*workspace}, nil)
	if err != nil {
		return fail(2, err)
	}
	if st, err := store.Open(ctx, store.DefaultPath(dirs.Data)); err != nil {
		fmt.Fprintf(stderr, "agentls run: edits will not be revertible: %v\n", err)
	} else {
		defer st.Close()
		ws.SetRecorder(agent.NewHistory(st, ws))
	}
	shellEnv := tools.NewShellEnv(ws, filepath.Join(dirs.State, "outputs"))
	defer shellEnv.Close()
	reg, err := tools.NewRegistry(tools.DefaultTools(ws, shellEnv)...)
	if err != nil {
		return fail(1, err)
	}
	var asker permission.Asker
	channel := "headless"
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		asker = &terminalAsker{in: bufio.NewReader(f), out: stderr}
		channel = "terminal"
	}
	if *maxSteps == 0 {
		*maxSteps = cfg.MaxSteps
	}
	sess := agent.NewSession(agent.NewSessionID(), agent.Config{
		Provider: prov, Tools: reg, MaxSteps: *maxSteps, Channel: channel,
		Gate: permission.NewGate(pmode, asker, nil),
	})
	var outMu sync.Mutex
	enc := json.NewEncoder(stdout)
	emit := func(e agent.Event) {
		outMu.Lock()
		defer outMu.Unlock()
		if *jsonOut {
			_ = enc.Encode(e)
			return
		}
		switch e.Type {
		case agent.EventToolCall, agent.EventError:
			fmt.Fprintln(stderr, e.String())
		case agent.EventPermission:
			if e.Decision != string(permission.Allow) {
				fmt.Fprintln(stderr, e.String())
			}
		}
	}
	turn, err := sess.Start(ctx, prompt, emit)
	if err != nil {
		return fail(2, err)
	}
	res := turn.Wait()
	if !*jsonOut && res.Text != "" {
		fmt.Fprintln(stdout, res.Text)
	}
	switch res.Reason {
	case agent.ReasonCompleted, agent.ReasonDenied, agent.ReasonCancelled:
		if res.Reason == agent.ReasonDenied && asker == nil && !*jsonOut {
			fmt.Fprintln(stderr, "agentls run: a call needed permission and nobody could be asked; use --mode auto to let the agent act without asking")
		}
		return 0
	}
	return 1
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// terminalAsker asks on the terminal for headless runs.
type terminalAsker struct {
	in  *bufio.Reader
	out io.Writer
}

// Ask implements permission.Asker: "y" allows, anything else denies.
func (a *terminalAsker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	fmt.Fprintf(a.out, "%s\nAllow? [y/N] ", q.Message)
	line, err := a.in.ReadString('\n')
	if err != nil {
		return permission.AnswerDeny, fmt.Errorf("read answer: %w", err)
	}
	if ans := strings.ToLower(strings.TrimSpace(line)); ans == "y" || ans == "yes" {
		return permission.AnswerAllow, nil
	}
	return permission.AnswerDeny, nil
}
