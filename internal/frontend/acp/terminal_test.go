package acp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// fakeTerminals is a client's terminal/* done for real: each terminal is
// a process of the requested command, its output (stdout and stderr
// together) kept to the requested limit, killed with SIGKILL (the worst a
// client may do).
type fakeTerminals struct {
	mu      sync.Mutex
	n       int
	terms   map[string]*fakeTerminal
	created []sdk.CreateTerminalRequest
}

type fakeTerminal struct {
	cmd      *exec.Cmd
	out      *syncBuffer
	limit    int
	done     chan struct{}
	released bool
	killed   bool
}

// syncBuffer is the terminal's output, written by the process's copier
// and read by terminal/output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (f *fakeTerminals) create(r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	cmd := exec.Command(r.Command, r.Args...)
	if r.Cwd != nil {
		cmd.Dir = *r.Cwd
	}
	cmd.Env = os.Environ()
	for _, v := range r.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	t := &fakeTerminal{cmd: cmd, out: out, done: make(chan struct{})}
	if r.OutputByteLimit != nil {
		t.limit = *r.OutputByteLimit
	}
	go func() {
		cmd.Wait()
		close(t.done)
	}()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	id := fmt.Sprintf("term-%d", f.n)
	if f.terms == nil {
		f.terms = map[string]*fakeTerminal{}
	}
	f.terms[id] = t
	f.created = append(f.created, r)
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (f *fakeTerminals) get(id string) (*fakeTerminal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.terms[id]
	if !ok || t.released {
		return nil, &sdk.RequestError{Code: codeInvalidParams, Message: "no terminal " + id}
	}
	return t, nil
}

func (f *fakeTerminals) wait(ctx context.Context, id string) (sdk.WaitForTerminalExitResponse, error) {
	t, err := f.get(id)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	st := t.status()
	return sdk.WaitForTerminalExitResponse{ExitCode: st.ExitCode, Signal: st.Signal}, nil
}

func (t *fakeTerminal) status() *sdk.TerminalExitStatus {
	ps := t.cmd.ProcessState
	if ps == nil {
		return nil
	}
	if code := ps.ExitCode(); code >= 0 {
		return &sdk.TerminalExitStatus{ExitCode: &code}
	}
	sig := "SIGKILL"
	return &sdk.TerminalExitStatus{Signal: &sig}
}

func (f *fakeTerminals) output(id string) (sdk.TerminalOutputResponse, error) {
	t, err := f.get(id)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	text := t.out.String()
	truncated := false
	if t.limit > 0 && len(text) > t.limit {
		text, truncated = text[len(text)-t.limit:], true
	}
	r := sdk.TerminalOutputResponse{Output: text, Truncated: truncated}
	select {
	case <-t.done:
		r.ExitStatus = t.status()
	default:
	}
	return r, nil
}

func (f *fakeTerminals) kill(id string) error {
	t, err := f.get(id)
	if err != nil {
		return err
	}
	f.mu.Lock()
	t.killed = true
	f.mu.Unlock()
	_ = t.cmd.Process.Kill()
	<-t.done
	return nil
}

func (f *fakeTerminals) release(id string) error {
	t, err := f.get(id)
	if err != nil {
		return err
	}
	_ = t.cmd.Process.Kill()
	<-t.done
	f.mu.Lock()
	t.released = true
	f.mu.Unlock()
	return nil
}

// allReleased reports whether every terminal was released.
func (f *fakeTerminals) allReleased() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.terms {
		if !t.released {
			return false
		}
	}
	return true
}

// toolResultText is the text of tool calls' final updates in a session.
func terminalRefs(ed *fakeEditor) (progress, final []string) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for _, u := range ed.updates {
		tu := u.Update.ToolCallUpdate
		if tu == nil {
			continue
		}
		for _, c := range tu.Content {
			if c.Terminal == nil {
				continue
			}
			if tu.Status != nil && (*tu.Status == sdk.ToolCallStatusCompleted || *tu.Status == sdk.ToolCallStatusFailed) {
				final = append(final, c.Terminal.TerminalId)
			} else {
				progress = append(progress, c.Terminal.TerminalId)
			}
		}
	}
	return progress, final
}

// TestBashRunsInTheClientsTerminal: with a client that declares terminals,
// a command runs in a terminal of the client (shown in the call, released
// after), as `agentls exec`, and stays confined: the workspace script the
// person allowed writes inside the workspace, and its write outside is
// refused by the kernel. The model gets the terminal's output and exit.
func TestBashRunsInTheClientsTerminal(t *testing.T) {
	outside := t.TempDir()
	root := workspace(t, map[string]string{
		"notes.txt": "the meeting is on Tuesday\n",
		"w.sh":      "echo inside > inside.txt\necho outside > \"$1\" || echo 'the write outside failed'\nexit 3\n",
	})
	ed := newFakeEditor()
	ed.terms = &fakeTerminals{}
	var asks []sdk.RequestPermissionRequest
	ed.onAsk = func(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		ed.mu.Lock()
		asks = append(asks, r)
		ed.mu.Unlock()
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	target := filepath.Join(outside, "outside.txt")
	steps := `{"turns":[{"tool_calls":[{"name":"bash","input":{"command":"cat notes.txt"}}]},` +
		`{"tool_calls":[{"name":"bash","input":{"command":"sh w.sh ` + target + `"}}]},{"text":"done"}]}`
	c := connectCaps(t, testApp(t, script(t, steps)), ed, sdk.ClientCapabilities{Terminal: true})
	id := newSession(t, c, root)
	if _, err := prompt(c, id, sdk.TextBlock("read the notes, then run w.sh")); err != nil {
		t.Fatal(err)
	}

	ed.terms.mu.Lock()
	created := ed.terms.created
	ed.terms.mu.Unlock()
	if len(created) != 2 {
		t.Fatalf("terminals created: %+v, want two (cat, sh)", created)
	}
	self, _ := os.Executable()
	for i, want := range []string{"cat notes.txt", "sh w.sh " + target} {
		r := created[i]
		if r.Command != self || strings.Join(r.Args, " ") != "exec -- "+want || r.Cwd == nil || *r.Cwd != root || r.SessionId != id {
			t.Errorf("terminal %d: %s %q in %v for %s, want agentls exec -- %s in %s", i, r.Command, r.Args, r.Cwd, r.SessionId, want, root)
		}
	}
	if !ed.terms.allReleased() {
		t.Error("a terminal was not released")
	}
	progress, final := terminalRefs(ed)
	if strings.Join(progress, ",") != "term-1,term-2" || strings.Join(final, ",") != "term-1,term-2" {
		t.Errorf("terminals shown in the calls %v, in their final updates %v; want both in both", progress, final)
	}
	results := toolResults(ed, id)
	if len(results) != 2 {
		t.Fatalf("tool results %q", results)
	}
	if !strings.Contains(results[0], "the meeting is on Tuesday") || !strings.Contains(results[0], "Exit code: 0") {
		t.Errorf("cat's result %q: want the terminal's output and exit code", results[0])
	}
	if !strings.Contains(results[1], "the write outside failed") || !strings.Contains(results[1], "Exit code: 3") {
		t.Errorf("w.sh's result %q: want its refused write and exit code 3", results[1])
	}
	if data, err := os.ReadFile(filepath.Join(root, "inside.txt")); err != nil || string(data) != "inside\n" {
		t.Errorf("the write inside the workspace: %q %v", data, err)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("a command in the client's terminal wrote outside the workspace: the sandbox did not hold")
	}
	if len(asks) != 1 || asks[0].ToolCall.Kind == nil || *asks[0].ToolCall.Kind != sdk.ToolKindExecute {
		t.Errorf("asks %+v: want one, for sh w.sh (cat is read-only)", asks)
	}
}

// toolResults is the text of each finished tool call of session id.
func toolResults(ed *fakeEditor, id sdk.SessionId) []string {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var out []string
	for _, u := range ed.updates {
		tu := u.Update.ToolCallUpdate
		if u.SessionId != id || tu == nil || tu.Status == nil || (*tu.Status != sdk.ToolCallStatusCompleted && *tu.Status != sdk.ToolCallStatusFailed) {
			continue
		}
		var b strings.Builder
		for _, c := range tu.Content {
			if c.Content != nil && c.Content.Content.Text != nil {
				b.WriteString(c.Content.Content.Text.Text)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestCancelKillsTheTerminal: session/cancel during a command in the
// client's terminal kills the terminal, and with it the command's
// programs (which run in process groups of their own), and the prompt ends
// cancelled.
func TestCancelKillsTheTerminal(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a\n"})
	ed := newFakeEditor()
	ed.terms = &fakeTerminals{}
	steps := `{"turns":[{"tool_calls":[{"name":"bash","input":{"command":"sleep 31.25"}}]},{"text":"never"}]}`
	c := connectCaps(t, testApp(t, script(t, steps)), ed, sdk.ClientCapabilities{Terminal: true})
	id := newSession(t, c, root)
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		r, _ := prompt(c, id, sdk.TextBlock("wait"))
		done <- r
	}()
	deadline := time.Now().Add(wait)
	for sleeping() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("sleep 31.25 never started in the terminal")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if err := c.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.StopReason != sdk.StopReasonCancelled {
			t.Errorf("stop reason %q, want cancelled", r.StopReason)
		}
	case <-time.After(wait):
		t.Fatal("the prompt did not end after session/cancel")
	}
	for sleeping() > 0 {
		if time.Since(start) > 5*time.Second {
			t.Fatal("sleep 31.25 still runs 5 s after the terminal was killed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("cancelled and gone after %s", time.Since(start).Round(time.Millisecond))
}

// sleeping counts the processes running `sleep 31.25`.
func sleeping() int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && string(b) == "sleep\x0031.25\x00" {
			n++
		}
	}
	return n
}
