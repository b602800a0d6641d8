package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/agentls/agentls/internal/agent/store"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

const permissionUsage = `Usage:
  agentls permission explain --tool NAME --input JSON [--workspace DIR] [--mode M] [--json]
      runs the permission chain for one call without executing anything and prints each step
  agentls permission grants [--workspace DIR] [--json]
      lists the "Always allow" grants of a workspace
  agentls permission revoke [--workspace DIR] (--all | N...)
      forgets grants by their number in the grants list
`

func cmdPermission(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, permissionUsage)
		return 2
	}
	switch args[0] {
	case "explain":
		return cmdExplain(ctx, args[1:], stdout, stderr)
	case "grants", "revoke":
		return cmdGrants(ctx, args[0], args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, permissionUsage)
		return 0
	}
	fmt.Fprintf(stderr, "agentls permission: unknown command %q\n\n%s", args[0], permissionUsage)
	return 2
}

func cmdExplain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("permission explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: agentls permission explain --tool NAME --input JSON [flags]\n\nRuns the permission chain for one tool call without executing anything: each step with\nits outcome, then the decision. Exit 0 whenever it could evaluate, 2 on bad usage.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	tool := fs.String("tool", "", "tool name, e.g. bash or edit")
	input := fs.String("input", "{}", "the tool input as a JSON object")
	workspace := fs.String("workspace", ".", "workspace root")
	mode := fs.String("mode", "", "permission mode to evaluate in: chat, approve, smart or auto")
	yolo := fs.Bool("yolo", false, "evaluate in auto mode")
	jsonOut := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	bad := func(err error) int {
		fmt.Fprintln(stderr, "agentls permission explain:", err)
		return 2
	}
	if *tool == "" {
		return bad(errors.New("--tool is required"))
	}
	if !json.Valid([]byte(*input)) {
		return bad(fmt.Errorf("--input %q is not JSON", *input))
	}
	env, closeEnv, err := headlessEnv(stderr, appFlags{mode: *mode, yolo: *yolo}, *workspace)
	if err != nil {
		return bad(err)
	}
	defer closeEnv()
	set, err := env.Settings(config.Config{})
	if err != nil {
		return bad(err)
	}
	reg, err := env.Registry(set.Config, nil, 0)
	if err != nil {
		return bad(err)
	}
	for _, n := range reg.Refresh(ctx) { // the MCP servers' tools
		fmt.Fprintln(stderr, "agentls permission explain:", n)
	}
	t, ok := reg.Get(*tool)
	if !ok {
		var names []string
		for _, s := range reg.Specs() {
			names = append(names, s.Name)
		}
		return bad(fmt.Errorf("unknown tool %q; tools: %v", *tool, names))
	}
	req, err := t.Describe(ctx, tools.Call{ID: "explain", SessionID: "explain", Input: json.RawMessage(*input)})
	if err != nil {
		return bad(fmt.Errorf("the tool rejects this input: %w", err))
	}
	req.Input = json.RawMessage(*input)
	gate, err := env.Gate(ctx, set.Policy, nil, "headless")
	if err != nil {
		return bad(err)
	}
	ex := gate.Evaluate(ctx, req)
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(ex)
		return 0
	}
	fmt.Fprintf(stdout, "%s %s (%s)\n", ex.Tool, ex.Scope, ex.Capability)
	for _, s := range ex.Steps {
		line := fmt.Sprintf("  %2d %-21s %-11s", s.N, s.Step, s.Outcome)
		if s.Detail != "" {
			line += " " + s.Detail
		}
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "decision: %s (source: %s", ex.Decision, ex.Source)
	if ex.Rule != "" {
		fmt.Fprintf(stdout, ", rule: %s", ex.Rule)
	}
	fmt.Fprintln(stdout, ")")
	if ex.Reason != "" {
		fmt.Fprintln(stdout, "reason:", ex.Reason)
	}
	for _, c := range ex.Choices {
		fmt.Fprintln(stdout, "  would offer:", c.Title)
	}
	return 0
}

func cmdGrants(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("permission "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	workspace := fs.String("workspace", ".", "workspace root")
	jsonOut := fs.Bool("json", false, "print JSON")
	all := fs.Bool("all", false, "revoke every grant of the workspace")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	env, closeEnv, err := headlessEnv(stderr, appFlags{}, *workspace)
	if err != nil {
		fmt.Fprintln(stderr, "agentls permission:", err)
		return exitCode(err)
	}
	defer closeEnv()
	st, err := env.Store(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "agentls permission: %v, so no grants are kept\n", err)
		return 1
	}
	root := env.Workspace().Roots()[0]
	gs, err := st.Grants(ctx, root)
	if err != nil {
		fmt.Fprintln(stderr, "agentls permission:", err)
		return 1
	}
	if verb == "grants" {
		if fs.NArg() > 0 {
			fmt.Fprintln(stderr, "agentls permission grants: unexpected arguments")
			return 2
		}
		if *jsonOut {
			_ = json.NewEncoder(stdout).Encode(gs)
			return 0
		}
		if len(gs) == 0 {
			fmt.Fprintln(stdout, "no grants for", root)
		}
		for i, g := range gs {
			fmt.Fprintf(stdout, "%d  %s %s (%s, %s%s) since %s\n", i+1, g.Tool, g.Scope, g.Capability, g.Action, grantEnvNote(g.Env), g.Time.Format("2006-01-02 15:04"))
		}
		return 0
	}
	var pick []store.Grant
	switch {
	case *all && fs.NArg() == 0:
		pick = gs
	case !*all && fs.NArg() > 0:
		for _, a := range fs.Args() {
			n, err := strconv.Atoi(a)
			if err != nil || n < 1 || n > len(gs) {
				fmt.Fprintf(stderr, "agentls permission revoke: %q is not a grant number (1-%d): see agentls permission grants\n", a, len(gs))
				return 2
			}
			pick = append(pick, gs[n-1])
		}
	default:
		fmt.Fprintln(stderr, "agentls permission revoke: give grant numbers (see agentls permission grants) or --all")
		return 2
	}
	for _, g := range pick {
		if _, err := st.RevokeGrant(ctx, g); err != nil {
			fmt.Fprintln(stderr, "agentls permission revoke:", err)
			return 1
		}
		fmt.Fprintf(stdout, "revoked %s %s\n", g.Tool, g.Scope)
	}
	return 0
}

// grantEnvNote names the environment a grant is bound to, shortened: two
// grants for one command in two environments are told apart.
func grantEnvNote(env string) string {
	if env == "" {
		return ""
	}
	return ", environment " + env[:min(len(env), len("env:")+8)]
}
