package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// pickSession answers with the "this session" choice when offered, else
// with the first title that starts with want.
func pickSession(want string) func(string, []string) string {
	return func(_ string, actions []string) string {
		for _, a := range actions {
			if strings.HasSuffix(a, "this session") {
				return a
			}
		}
		for _, a := range actions {
			if strings.HasPrefix(a, want) {
				return a
			}
		}
		return ""
	}
}

// A grantable command offers "Allow "touch" this session"; after it, the
// same command runs without a prompt; an ungrantable one (rm -rf) offers
// no session grant and its deny ends the turn.
func TestSessionGrantForCommands(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"bash","input":{"command":"touch one.txt"}}]},
		{"tool_calls":[{"name":"bash","input":{"command":"touch two.txt"}}]},
		{"tool_calls":[{"name":"bash","input":{"command":"rm -rf build"}}]},
		{"text":"never"}]}`)
	ed, root := setup(t, map[string]string{"build/x": "x"}, prov, func(o *fake.Options) {
		o.Server.StateDir = t.TempDir()
		o.Answer = pickSession("Deny")
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	asks := ed.Asks()
	if len(asks) != 2 {
		t.Fatalf("asks = %+v, want two (touch, rm)", asks)
	}
	if got := strings.Join(asks[0].Actions, "|"); got != `Allow|Allow "touch" this session|Deny` {
		t.Errorf("touch actions = %s", got)
	}
	if got := strings.Join(asks[1].Actions, "|"); got != "Allow|Deny" || !strings.Contains(asks[1].Message, "`rm -rf build`") {
		t.Errorf("rm actions = %s, message %q", got, asks[1].Message)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s not created: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "build/x")); err != nil {
		t.Errorf("denied rm ran: %v", err)
	}
	var sources []string
	for _, e := range evs {
		if e.Type == agent.EventPermission {
			sources = append(sources, e.Decision+":"+e.Source)
		}
	}
	if strings.Join(sources, " ") != "allow:user allow:session-grant deny:user" {
		t.Errorf("permission events = %v", sources)
	}
	if r := evs[len(evs)-1].Reason; r != agent.ReasonDenied {
		t.Errorf("turn ended %q, want denied", r)
	}
}

// "Allow edits in sub/ this session" covers the next edit in sub/, not an
// edit in another folder.
func TestSessionGrantForEditsIsPerDirectory(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"view","input":{"file_path":"sub/a.txt"}},{"name":"view","input":{"file_path":"other/b.txt"}}]},
		{"tool_calls":[{"name":"edit","input":{"file_path":"sub/a.txt","old_string":"one","new_string":"ONE"}}]},
		{"tool_calls":[{"name":"edit","input":{"file_path":"sub/a.txt","old_string":"two","new_string":"TWO"}}]},
		{"tool_calls":[{"name":"edit","input":{"file_path":"other/b.txt","old_string":"three","new_string":"THREE"}}]},
		{"text":"done"}]}`)
	ed, root := setup(t, map[string]string{"sub/a.txt": "one\ntwo\n", "other/b.txt": "three\n"}, prov, func(o *fake.Options) {
		o.Answer = pickSession("Allow")
	})
	res, _ := ed.Ask(ctx, lsp.AskArgs{Prompt: "go"})
	if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
		t.Fatal(err)
	}
	asks := ed.Asks()
	if len(asks) != 2 || !strings.Contains(asks[0].Message, "sub/a.txt") || !strings.Contains(asks[1].Message, "other/b.txt") {
		t.Fatalf("asks = %+v, want one for sub/ and one for other/", asks)
	}
	if !strings.Contains(strings.Join(asks[0].Actions, "|"), "Allow edits in sub/ this session") {
		t.Errorf("edit actions = %v", asks[0].Actions)
	}
	if a, _ := os.ReadFile(filepath.Join(root, "sub/a.txt")); string(a) != "ONE\nTWO\n" {
		t.Errorf("sub/a.txt = %q", a)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "other/b.txt")); string(b) != "THREE\n" {
		t.Errorf("other/b.txt = %q", b)
	}
}

// A client without showMessageRequest (like Helix) gets the question by
// showMessage and answers it with agentls.approve.
func TestApproveWithoutShowMessageRequest(t *testing.T) {
	ctx := ctxT(t)
	prov := script(t, `{"turns":[{"tool_calls":[{"name":"bash","input":{"command":"touch made.txt"}}]},{"text":"ok"}]}`)
	var ed *fake.Editor
	ed, root := setup(t, nil, prov, func(o *fake.Options) {
		o.NoShowMessageRequest = true
	})
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ed.WaitFor(ctx, "the waiting message", func(e *fake.Editor) bool {
		for _, m := range e.Shows() {
			if strings.Contains(m.Message, "agentls.approve") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	// The pending question is also offered as code actions.
	var actions []struct{ Title string }
	if _, err := ed.Conn().Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": "file://" + filepath.Join(root, "x")},
		"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil || len(actions) == 0 || !strings.HasPrefix(actions[0].Title, "agentls: Allow") {
		t.Fatalf("code actions = %+v, %v", actions, err)
	}
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandApprove, map[string]string{"answer": "allow"}); err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if evs[len(evs)-1].Reason != agent.ReasonCompleted {
		t.Errorf("turn ended %q", evs[len(evs)-1].Reason)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err != nil {
		t.Errorf("approved command did not run: %v", err)
	}
}
