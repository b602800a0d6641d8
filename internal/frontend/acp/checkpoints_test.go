package acp

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// /checkpoints lists the session's checkpoint of a bash step; /restore ID
// puts the files back; /restore undo brings the step's changes again.
func TestCheckpointCommands(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "one\n"})
	ed := newFakeEditor()
	ed.onAsk = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	steps := `{"turns":[{"text":"","tool_calls":[{"name":"bash","input":{"command":"echo made > new.txt && sed -i s/one/two/ a.txt"}}]},{"text":"done"}]}`
	c := connect(t, testApp(t, script(t, steps)), ed, sdk.FileSystemCapabilities{})
	id := newSession(t, c, root)
	seen := 0
	run := func(text string) string {
		t.Helper()
		if _, err := prompt(c, id, sdk.TextBlock(text)); err != nil {
			t.Fatal(err)
		}
		ed.mu.Lock()
		defer ed.mu.Unlock()
		var b strings.Builder
		for _, u := range ed.updates[seen:] {
			if u.SessionId == id && u.Update.AgentMessageChunk != nil && u.Update.AgentMessageChunk.Content.Text != nil {
				b.WriteString(u.Update.AgentMessageChunk.Content.Text.Text)
			}
		}
		seen = len(ed.updates)
		return b.String()
	}
	if got := run("/checkpoints"); !strings.Contains(got, "no checkpoints yet") {
		t.Errorf("/checkpoints before any step said %q", got)
	}
	run("change things")
	list := run("/checkpoints")
	m := regexp.MustCompile(`- (\d+) .* bash echo made`).FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("/checkpoints said %q", list)
	}
	if got := run("/restore " + m[1]); !strings.Contains(got, "2 path(s) put back") {
		t.Errorf("/restore said %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt after /restore = %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt after /restore: %v", err)
	}
	if got := run("/restore undo"); !strings.Contains(got, "2 path(s) put back") {
		t.Errorf("/restore undo said %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "two\n" {
		t.Errorf("a.txt after /restore undo = %q", b)
	}
	for _, bad := range []string{"/restore", "/restore x", "/restore 1 sideways"} {
		if got := run(bad); !strings.Contains(got, "usage: /restore ID") {
			t.Errorf("%s said %q", bad, got)
		}
	}
	if got := run("/restore 999"); !strings.Contains(got, "nothing was restored") {
		t.Errorf("/restore 999 said %q", got)
	}
}

// /restore of the conversation sends the client the plan the conversation
// has now: the todos written after the checkpoint's step are gone.
func TestRestoreConversationSendsThePlan(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "one\n"})
	ed := newFakeEditor()
	ed.onAsk = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	steps := `{"turns":[{"text":"","tool_calls":[{"name":"bash","input":{"command":"sed -i s/one/two/ a.txt"}}]},` +
		`{"text":"","tool_calls":[{"name":"todos","input":{"todos":[{"content":"Check a.txt","status":"pending"}]}}]},{"text":"done"}]}`
	c := connect(t, testApp(t, script(t, steps)), ed, sdk.FileSystemCapabilities{})
	id := newSession(t, c, root)
	plans := func() [][]sdk.PlanEntry {
		ed.mu.Lock()
		defer ed.mu.Unlock()
		var out [][]sdk.PlanEntry
		for _, u := range ed.updates {
			if u.SessionId == id && u.Update.Plan != nil {
				out = append(out, u.Update.Plan.Entries)
			}
		}
		return out
	}
	if _, err := prompt(c, id, sdk.TextBlock("change a.txt")); err != nil {
		t.Fatal(err)
	}
	if p := plans(); len(p) != 1 || len(p[0]) != 1 {
		t.Fatalf("plans after the turn: %+v, want the one todo", p)
	}
	ed.mu.Lock()
	seen := len(ed.updates)
	ed.mu.Unlock()
	if _, err := prompt(c, id, sdk.TextBlock("/checkpoints")); err != nil {
		t.Fatal(err)
	}
	var list strings.Builder
	ed.mu.Lock()
	for _, u := range ed.updates[seen:] {
		if u.SessionId == id && u.Update.AgentMessageChunk != nil && u.Update.AgentMessageChunk.Content.Text != nil {
			list.WriteString(u.Update.AgentMessageChunk.Content.Text.Text)
		}
	}
	ed.mu.Unlock()
	m := regexp.MustCompile(`- (\d+) .* bash sed`).FindStringSubmatch(list.String())
	if m == nil {
		t.Fatalf("/checkpoints said %q", list.String())
	}
	if _, err := prompt(c, id, sdk.TextBlock("/restore "+m[1]+" conversation")); err != nil {
		t.Fatal(err)
	}
	p := plans()
	if len(p) != 2 || len(p[1]) != 0 {
		t.Errorf("plans after /restore %s conversation: %+v, want an empty plan last", m[1], p)
	}
}
