package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
)

// gated is a model that reports each request's last user message and
// answers only when released (or fails when its turn is cancelled).
type gated struct {
	started chan string
	release chan struct{}
	// hold is a prompt answered never: it waits for its cancellation.
	hold string
}

func (g *gated) Name() string { return "gated:test" }

func (g *gated) Complete(ctx context.Context, req agent.Request, st agent.Stream) (agent.Response, error) {
	last := ""
	for _, m := range req.Messages {
		if m.Role == agent.RoleUser {
			last = m.Content
		}
	}
	g.started <- last
	release := g.release
	if last == g.hold {
		release = nil
	}
	select {
	case <-release:
		return agent.Response{Text: "answered: " + last}, nil
	case <-ctx.Done():
		return agent.Response{}, ctx.Err()
	}
}

// TestOnePromptAtATimePerSession: a second prompt on a session that is
// answering one is refused with a clear error while another session's
// prompt runs; cancelling ends the first with stopReason cancelled.
func TestOnePromptAtATimePerSession(t *testing.T) {
	g := &gated{started: make(chan string, 4), release: make(chan struct{}), hold: "first"}
	ed := newFakeEditor()
	c := connect(t, testApp(t, func() agent.Provider { return g }), ed, sdk.FileSystemCapabilities{})
	root := workspace(t, nil)
	s1, s2 := newSession(t, c, root), newSession(t, c, root)

	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	first := make(chan result, 1)
	go func() {
		r, err := prompt(c, s1, sdk.TextBlock("first"))
		first <- result{r, err}
	}()
	if got := <-g.started; got != "first" {
		t.Fatalf("model got %q", got)
	}

	_, err := prompt(c, s1, sdk.TextBlock("second"))
	if codeOf(err) != codeInvalidRequest || !strings.Contains(err.Error(), "already answering a prompt") {
		t.Fatalf("second prompt on a busy session: %v, want -32600 saying it is busy", err)
	}

	// The other session is not held up.
	other := make(chan result, 1)
	go func() {
		r, err := prompt(c, s2, sdk.TextBlock("other"))
		other <- result{r, err}
	}()
	if got := <-g.started; got != "other" {
		t.Fatalf("model got %q, want the other session's prompt", got)
	}
	g.release <- struct{}{}
	if r := <-other; r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("other session: %+v %v", r.resp, r.err)
	}

	// The first is still running (the refused prompt did not stop it); cancel it.
	if err := c.Cancel(context.Background(), sdk.CancelNotification{SessionId: s1}); err != nil {
		t.Fatal(err)
	}
	if r := <-first; r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("first prompt after cancel: %+v %v, want stopReason cancelled", r.resp, r.err)
	}
	// The session takes prompts again.
	go func() { g.release <- struct{}{} }()
	if r, err := prompt(c, s1, sdk.TextBlock("third")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after cancel: %+v %v", r, err)
	}
	if got := <-g.started; got != "third" {
		t.Fatalf("model got %q", got)
	}
}

// TestRequestErrorsSayWhatToDo: requests for sessions that are not open,
// bad modes, unsupported content and a cwd that is not a folder are
// JSON-RPC errors naming the ACP step to take.
func TestRequestErrorsSayWhatToDo(t *testing.T) {
	ed := newFakeEditor()
	c := connect(t, testApp(t, script(t, `{"turns":[{"text":"hi"}]}`)), ed, sdk.FileSystemCapabilities{})
	root := workspace(t, nil)
	ctx := context.Background()
	id := newSession(t, c, root)

	_, err := prompt(c, "nope", sdk.TextBlock("hi"))
	if codeOf(err) != codeNotFound || !strings.Contains(err.Error(), "session/new") {
		t.Errorf("prompt on an unknown session: %v", err)
	}
	if _, err := c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "yolo"}); codeOf(err) != codeInvalidParams ||
		!strings.Contains(err.Error(), "chat, approve, smart or auto") {
		t.Errorf("set_mode yolo: %v", err)
	}
	if _, err := prompt(c, id, sdk.ImageBlock("AAAA", "image/png")); codeOf(err) != codeInvalidParams || !strings.Contains(err.Error(), "image") {
		t.Errorf("image prompt: %v", err)
	}
	if _, err := prompt(c, id, sdk.TextBlock("  ")); codeOf(err) != codeInvalidParams || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty prompt: %v", err)
	}
	for _, cwd := range []string{"relative/dir", filepath.Join(root, "missing")} {
		if _, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}}); codeOf(err) != codeInvalidParams || !strings.Contains(err.Error(), "cwd") {
			t.Errorf("session/new cwd %s: %v", cwd, err)
		}
	}
	if _, err := c.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "s-none", Cwd: root, McpServers: []sdk.McpServer{}}); codeOf(err) != codeNotFound {
		t.Errorf("load of an unknown session: %v", err)
	}
	// The session still works after all that.
	if r, err := prompt(c, id, sdk.TextBlock("hi")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("prompt after errors: %+v %v", r, err)
	}
}

// TestPromptContent: resource links become links the agent can follow;
// embedded resources bring the editor's text with them.
func TestPromptContent(t *testing.T) {
	g := &gated{started: make(chan string, 1), release: make(chan struct{}, 1)}
	g.release <- struct{}{}
	c := connect(t, testApp(t, func() agent.Provider { return g }), newFakeEditor(), sdk.FileSystemCapabilities{})
	root := workspace(t, nil)
	id := newSession(t, c, root)
	embedded := sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file://" + root + "/b.go", Text: "package b // unsaved"}})
	if _, err := prompt(c, id, sdk.TextBlock("Compare "), sdk.ResourceLinkBlock("a.go", "file://"+root+"/a.go"), sdk.TextBlock(" with "), embedded); err != nil {
		t.Fatal(err)
	}
	got := <-g.started
	for _, want := range []string{"Compare [@a.go](" + root + "/a.go) with [@b.go](" + root + "/b.go)", root + "/b.go, as the user's editor has it:\n```\npackage b // unsaved\n```"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model's prompt\n%s\nlacks\n%s", got, want)
		}
	}
}

// TestReadsFallBackToDisk: a read the client fails is served from disk;
// files outside the workspace and binary files are never asked about;
// after repeated failures the session stops asking.
func TestReadsFallBackToDisk(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "disk a\n", "bin.dat": "x\x00y"})
	outside := workspace(t, map[string]string{"secret.txt": "secret\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	ed := newFakeEditor()
	ed.readHook = func(path string, n int) (string, error) { return "", errors.New("editor is busy") }
	steps := `{"turns":[{"text":"","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},` +
		`{"text":"","tool_calls":[{"name":"view","input":{"file_path":"link.txt"}}]},` +
		`{"text":"","tool_calls":[{"name":"view","input":{"file_path":"bin.dat"}}]},` +
		`{"text":"","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},` +
		`{"text":"","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},` +
		`{"text":"","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},{"text":"done"}]}`
	c := connect(t, testApp(t, script(t, steps)), ed, sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true})
	id := newSession(t, c, root)
	if r, err := prompt(c, id, sdk.TextBlock("read")); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("%+v %v", r, err)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var results []string
	for _, u := range ed.updates {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status != nil && *tu.Status != sdk.ToolCallStatusInProgress {
			results = append(results, tu.Content[len(tu.Content)-1].Content.Content.Text.Text)
		}
	}
	if len(results) != 6 || !strings.Contains(results[0], "disk a") {
		t.Fatalf("results %q: the first view should show the disk's text", results)
	}
	if !strings.Contains(results[1], "outside") || !strings.Contains(results[2], "binary") {
		t.Errorf("link and binary results: %q, %q", results[1], results[2])
	}
	a := filepath.Join(root, "a.txt")
	want := []string{a, a, a} // three failures, then the disk only
	if strings.Join(ed.reads, ",") != strings.Join(want, ",") {
		t.Errorf("fs/read_text_file was asked for %q, want %q", ed.reads, want)
	}
}

// TestStaleBufferIsNotOverwritten: when the editor's text changes after
// the edit tool's own freshness check (reads: view, Describe, Run), the
// write's check (the fourth read) finds it: fs/write_text_file is not sent
// and the model is told.
func TestStaleBufferIsNotOverwritten(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "one\n"})
	a := filepath.Join(root, "a.txt")
	ed := newFakeEditor()
	var mu sync.Mutex
	text := "one\n"
	ed.readHook = func(_ string, n int) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if n == 4 {
			text = "one\ntyped\n"
		}
		return text, nil
	}
	ed.onAsk = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	steps := `{"turns":[{"text":"","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},` +
		`{"text":"","tool_calls":[{"name":"edit","input":{"file_path":"a.txt","old_string":"one","new_string":"two"}}]},{"text":"done"}]}`
	c := connect(t, testApp(t, script(t, steps)), ed, sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true})
	id := newSession(t, c, root)
	if _, err := prompt(c, id, sdk.TextBlock("edit")); err != nil {
		t.Fatal(err)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.writes) != 0 {
		t.Fatalf("fs/write_text_file was sent over a changed buffer: %+v", ed.writes)
	}
	found := false
	for _, u := range ed.updates {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status != nil && *tu.Status == sdk.ToolCallStatusFailed {
			found = strings.Contains(tu.Content[len(tu.Content)-1].Content.Content.Text.Text, "changed in the editor since agentls read it")
		}
	}
	if !found {
		t.Errorf("no failed edit saying the buffer changed; reads %q", ed.reads)
	}
	if data, _ := os.ReadFile(a); string(data) != "one\n" {
		t.Errorf("disk changed: %q", data)
	}
}

// TestRevertIsPerSession: /revert in one ACP session undoes that
// session's last turn, never another session's on the same workspace
// (it once deleted the other session's new file); named by id, another
// session's turn is refused.
func TestRevertIsPerSession(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "one\n"})
	ed := newFakeEditor()
	ed.onAsk = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	// Each session plays the script from its start: one new file per session.
	steps := `{"turns":[{"text":"","tool_calls":[{"name":"write","input":{"file_path":"new.txt","content":"made\n"}}]},{"text":"done"}]}`
	c := connect(t, testApp(t, script(t, steps)), ed, sdk.FileSystemCapabilities{})
	other := newSession(t, c, root)
	if _, err := prompt(c, other, sdk.TextBlock("make new.txt")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(root, "new.txt")); err != nil || string(data) != "made\n" {
		t.Fatalf("the other session's write: %q, %v", data, err)
	}
	mine := newSession(t, c, root)
	said := func(id sdk.SessionId) string {
		ed.mu.Lock()
		defer ed.mu.Unlock()
		var b strings.Builder
		for _, u := range ed.updates {
			if u.SessionId == id && u.Update.AgentMessageChunk != nil && u.Update.AgentMessageChunk.Content.Text != nil {
				b.WriteString(u.Update.AgentMessageChunk.Content.Text.Text)
			}
		}
		return b.String()
	}
	if _, err := prompt(c, mine, sdk.TextBlock("/revert")); err != nil {
		t.Fatal(err)
	}
	if got := said(mine); !strings.Contains(got, "nothing was reverted: no turn of this session has changes left to revert") {
		t.Errorf("/revert in a session without changes said %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err != nil {
		t.Fatalf("/revert in one session undid another's turn: %v", err)
	}
	// The other session's turn, named by id: refused too.
	turn := ""
	ed.mu.Lock()
	for _, u := range ed.updates {
		if u.SessionId == other && u.Update.ToolCall != nil {
			turn, _, _ = strings.Cut(string(u.Update.ToolCall.ToolCallId), "/")
		}
	}
	ed.mu.Unlock()
	if turn == "" {
		t.Fatal("no tool call of the other session")
	}
	if _, err := prompt(c, mine, sdk.TextBlock("/revert "+turn)); err != nil {
		t.Fatal(err)
	}
	if got := said(mine); !strings.Contains(got, "is not one of this session's") {
		t.Errorf("/revert %s (another session's turn) said %q", turn, got)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err != nil {
		t.Fatalf("/revert of another session's turn by id undid it: %v", err)
	}
	// In its own session, /revert undoes it.
	if _, err := prompt(c, other, sdk.TextBlock("/revert")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("/revert in the session that made new.txt left it: %v; said %q", err, said(other))
	}
}
