package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/replay"
	"github.com/agentls/agentls/internal/app"
)

const sessionsUsage = `Usage: agentls sessions [flags] [list | show ID | export ID [--json|--replay] | delete ID]

Lists, shows, exports and deletes the stored sessions of a workspace. A session is resumed
with agentls run --continue (the latest) or --session ID, and from the editor.

Flags:
`

func cmdSessions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sessionsUsage); fs.PrintDefaults() }
	workspace := fs.String("workspace", ".", "workspace root")
	jsonOut := fs.Bool("json", false, "print JSON (list, show, export)")
	replayOut := fs.Bool("replay", false, "export as a replay script (--model replay:FILE plays it back)")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		return flagExit(err)
	}
	verb, rest := "list", words
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "agentls sessions:", err)
		return code
	}
	needID := func() (string, bool) {
		if len(rest) != 1 {
			return "", false
		}
		return rest[0], true
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
	switch verb {
	case "list":
		list, err := st.Sessions(ctx, env.Workspace().Roots()[0])
		if err != nil {
			return fail(1, err)
		}
		if *jsonOut {
			_ = json.NewEncoder(stdout).Encode(list)
			return 0
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no sessions in", env.Workspace().Roots()[0])
		}
		for _, s := range list {
			fmt.Fprintf(stdout, "%s  %s  %-4d  %s\n", s.ID, s.Updated.Format("2006-01-02 15:04"), s.Records, s.Title)
		}
		return 0
	case "show", "export":
		id, ok := needID()
		if !ok {
			return fail(2, fmt.Errorf("%s needs one session id (see agentls sessions list)", verb))
		}
		recs, err := journalOf(ctx, env, id)
		if err != nil {
			return fail(1, err)
		}
		if verb == "export" && *replayOut {
			script, err := replay.FromJournal(recs)
			if err != nil {
				return fail(1, err)
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(script)
			return 0
		}
		restored, err := agent.Restore(recs)
		if err != nil {
			return fail(1, err)
		}
		if *jsonOut || verb == "export" {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(map[string]any{"id": id, "messages": restored.History, "usage": restored.Usage, "turns": restored.Turns})
			return 0
		}
		printHistory(stdout, restored.History)
		if line := usageLine(restored.Usage); line != "" {
			fmt.Fprintln(stdout, line)
		}
		return 0
	case "delete":
		id, ok := needID()
		if !ok {
			return fail(2, errors.New("delete needs one session id (see agentls sessions list)"))
		}
		if err := st.DeleteSession(ctx, id); err != nil {
			return fail(1, err)
		}
		fmt.Fprintln(stdout, "deleted", id)
		return 0
	}
	return fail(2, fmt.Errorf("unknown subcommand %q: use list, show, export or delete", verb))
}

// journalOf reads a stored session's records.
func journalOf(ctx context.Context, env *app.Env, id string) ([]agent.JournalRecord, error) {
	return env.Journal(ctx, id)
}

// printHistory shows a conversation as a transcript.
func printHistory(w io.Writer, msgs []agent.Message) {
	for _, m := range msgs {
		switch m.Role {
		case agent.RoleUser:
			fmt.Fprintf(w, "you: %s\n", m.Content)
		case agent.RoleAssistant:
			if m.Content != "" {
				fmt.Fprintf(w, "agent: %s\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(w, "→ %s %s\n", c.Name, c.Input)
			}
		case agent.RoleTool:
			fmt.Fprintf(w, "← %s: %s\n", m.Name, firstLineOf(m.Content))
		}
	}
}

// usageLine sums up a session's tokens and, when every call was priced,
// their estimated cost (recorded with each call at the price of its
// time); "" when the provider reported no usage.
func usageLine(u agent.Usage) string {
	if u.IsZero() {
		return ""
	}
	line := fmt.Sprintf("usage: %d tokens in (%d cached), %d out", u.Input, u.CacheRead, u.Output)
	if u.Cost == nil {
		return line + "; cost unknown (a model without a price)"
	}
	return line + "; cost " + agent.FormatCost(*u.Cost) + " (estimated)"
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if r := []rune(line); len(r) > 120 {
		line = string(r[:120]) + "…"
	}
	return line
}
