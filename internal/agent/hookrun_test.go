package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/hooks"
	"github.com/agentls/agentls/internal/permission"
)

func hook(ev hooks.EventName, matcher, cmd string) hooks.Config {
	return hooks.Config{Event: ev, Matcher: matcher, Command: cmd}
}

// A PreToolUse deny refuses that call with the hook's reason; the turn
// goes on and the next call runs.
func TestPreToolUseDenyTurnGoesOn(t *testing.T) {
	f := newFixture(t, setup{
		mode: permission.ModeAuto,
		steps: []step{
			calls("", call("c1", "write", `{"path":"migrations/x.sql"}`), call("c2", "echo", `{"path":"ok"}`)),
			text("done"),
		},
		hooks:   []hooks.Config{hook(hooks.PreToolUse, "^write$", `echo "never touch migrations/" >&2; exit 2`)},
		hookDir: t.TempDir(),
	})
	res, rec := f.runTurn(t, "go")
	if res.Reason != agent.ReasonCompleted {
		t.Fatalf("turn ended %q", res.Reason)
	}
	if got := f.log.get(); len(got) != 1 || got[0] != "echo ok" {
		t.Errorf("runs = %v, want only echo", got)
	}
	results := rec.ofType(agent.EventToolResult)
	if !strings.Contains(*results[0].Content, "never touch migrations/") || !*results[0].IsError {
		t.Errorf("denied call's result = %q", *results[0].Content)
	}
	h := rec.ofType(agent.EventHook)
	if len(h) != 1 || h[0].HookEvent != "PreToolUse" || *h[0].ExitCode != 2 || h[0].Decision != "deny" {
		t.Errorf("hook events = %+v", h)
	}
}

// A PreToolUse allow skips the ask, but not a hard block.
func TestPreToolUseAllowSkipsAskOnly(t *testing.T) {
	asked := 0
	f := newFixture(t, setup{
		asker: askerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
			asked++
			return permission.AnswerDeny, nil
		}),
		steps: []step{
			calls("", call("c1", "write", `{"path":"a"}`), call("c2", "block", `{"path":"b"}`)),
			text("done"),
		},
		hooks:   []hooks.Config{hook(hooks.PreToolUse, "", `echo '{"decision":"allow","reason":"team policy"}'`)},
		hookDir: t.TempDir(),
	})
	res, rec := f.runTurn(t, "go")
	if res.Reason != agent.ReasonCompleted || asked != 0 {
		t.Fatalf("turn %q, asked %d times", res.Reason, asked)
	}
	if got := f.log.get(); len(got) != 1 || got[0] != "write a" {
		t.Errorf("runs = %v, want write only (block stays blocked)", got)
	}
	perms := rec.ofType(agent.EventPermission)
	if perms[0].Source != "hook" || perms[1].Decision != "deny" || perms[1].Source != "block" {
		t.Errorf("permission events = %+v", perms)
	}
}

// A UserPromptSubmit deny: the turn does not start, the model is never
// called, the person sees the reason.
func TestUserPromptSubmitDeny(t *testing.T) {
	f := newFixture(t, setup{
		steps:   []step{text("should not be asked")},
		hooks:   []hooks.Config{hook(hooks.UserPromptSubmit, "", `echo "no prompts on Fridays" >&2; exit 2`)},
		hookDir: t.TempDir(),
	})
	res, rec := f.runTurn(t, "go")
	if res.Reason != agent.ReasonBlocked || len(f.prov.requests()) != 0 {
		t.Fatalf("turn %q, model called %d times", res.Reason, len(f.prov.requests()))
	}
	if errs := rec.ofType(agent.EventError); len(errs) != 1 || !strings.Contains(errs[0].Message, "no prompts on Fridays") {
		t.Errorf("error events = %+v", errs)
	}
}

// UserPromptSubmit context reaches the model with the prompt; PostToolUse
// context is appended to the tool result.
func TestHookContext(t *testing.T) {
	f := newFixture(t, setup{
		mode:  permission.ModeAuto,
		steps: []step{calls("", call("c1", "echo", `{"path":"x"}`)), text("done")},
		hooks: []hooks.Config{
			hook(hooks.UserPromptSubmit, "", `echo '{"context":"the repo uses tabs"}'`),
			hook(hooks.PostToolUse, "echo", `echo '{"context":"gofmt ran"}'`),
		},
		hookDir: t.TempDir(),
	})
	if res, _ := f.runTurn(t, "go"); res.Reason != agent.ReasonCompleted {
		t.Fatal(res.Reason)
	}
	reqs := f.prov.requests()
	if !strings.Contains(reqs[0].Messages[0].Content, "the repo uses tabs") {
		t.Errorf("prompt = %q", reqs[0].Messages[0].Content)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != agent.RoleTool || !strings.Contains(last.Content, "echo ran on x") || !strings.Contains(last.Content, "gofmt ran") {
		t.Errorf("tool result = %+v", last)
	}
}

// A Stop hook that always denies sends the model back at most N times.
func TestStopContinuationCap(t *testing.T) {
	f := newFixture(t, setup{
		steps:    []step{text("1"), text("2"), text("3"), text("4"), text("5")},
		hooks:    []hooks.Config{hook(hooks.Stop, "", `echo "tests still fail" >&2; exit 2`)},
		hookDir:  t.TempDir(),
		maxStops: 2,
	})
	res, rec := f.runTurn(t, "go")
	if res.Reason != agent.ReasonCompleted || res.Text != "3" {
		t.Fatalf("turn %q text %q, want completed after 3 answers", res.Reason, res.Text)
	}
	reqs := f.prov.requests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "tests still fail") {
		t.Errorf("model calls = %d; second request ends %+v", len(reqs), reqs[1].Messages[len(reqs[1].Messages)-1])
	}
	if w := rec.ofType(agent.EventHookWarning); len(w) != 1 || !strings.Contains(w[0].Message, "2 times") {
		t.Errorf("warnings = %+v", w)
	}
}

// A halt (exit 49) ends the turn with the reason.
func TestHookHalt(t *testing.T) {
	f := newFixture(t, setup{
		mode:    permission.ModeAuto,
		steps:   []step{calls("", call("c1", "write", `{"path":"a"}`), call("c2", "echo", `{"path":"b"}`)), text("x")},
		hooks:   []hooks.Config{hook(hooks.PreToolUse, "^write$", `echo "stop everything" >&2; exit 49`)},
		hookDir: t.TempDir(),
	})
	res, _ := f.runTurn(t, "go")
	if res.Reason != agent.ReasonHalted || len(f.log.get()) != 0 {
		t.Errorf("turn %q, runs %v", res.Reason, f.log.get())
	}
}

// A rewrite into input the tool's schema rejects is refused, not run.
func TestPreToolUseRewriteValidated(t *testing.T) {
	f := newFixture(t, setup{
		mode:    permission.ModeAuto,
		steps:   []step{calls("", call("c1", "echo", `{"path":"a"}`)), text("x")},
		hooks:   []hooks.Config{hook(hooks.PreToolUse, "", `echo '{"updated_input":{"path":42}}'`)},
		hookDir: t.TempDir(),
	})
	_, rec := f.runTurn(t, "go")
	r := rec.ofType(agent.EventToolResult)
	if len(f.log.get()) != 0 || !strings.Contains(*r[0].Content, "invalid") {
		t.Errorf("runs %v, result %q", f.log.get(), *r[0].Content)
	}
}

// Untrusted workspace hooks never run: a marker file proves it.
func TestUntrustedWorkspaceHookNeverRuns(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "ran")
	hs, warnings, err := hooks.Collect([]hooks.Source{{Name: ".agentls.json", Root: root,
		Hooks: []byte(`[{"event":"UserPromptSubmit","command":"touch ` + marker + `"}]`)}}, nil)
	if err != nil || len(hs) != 0 || len(warnings) != 1 {
		t.Fatalf("Collect: hooks %v warnings %v err %v", hs, warnings, err)
	}
	f := newFixture(t, setup{steps: []step{text("x")}, hooks: hs, hookDir: root})
	f.runTurn(t, "go")
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("untrusted hook ran: %v", err)
	}
}
