//go:build unix

// Unix only: the tests check the server process with kill -0 and /proc.

// Package nvim_test runs agentls inside a real editor: headless Neovim
// starts `agentls serve --stdio` through its built-in LSP client, and the
// Lua scenarios in test/ record what the server sends. Every test runs on
// each Neovim of versions_test.go — Debian 12's 0.7.2 and 0.10 and 0.12
// from scripts/nvim-versions — as subtests. The tests fail, rather than
// skip, when a Neovim is missing.
//
// Run: scripts/nvim-versions && go test ./editors/nvim/ -count=1 -v
package nvim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
)

// nvimTimeout bounds one whole Neovim run; the Lua waits are shorter.
const nvimTimeout = 60 * time.Second

var (
	buildOnce  sync.Once
	binDir     string
	agentlsBin string
	buildErr   error
)

// pluginTags is where the plugin makes its help tags when its doc folder
// has none (plugin/agentls.lua, for a plugin manager's local folder): the
// tests load it from this checkout, so they make it there.
var pluginTags = filepath.Join("doc", "tags")

// TestMain removes the agentls binary built for the tests, and the help
// tags the plugin made in the checkout unless they were there before: the
// tests leave the working tree as they found it.
func TestMain(m *testing.M) {
	_, err := os.Lstat(pluginTags)
	hadTags := err == nil
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if !hadTags {
		if err := os.Remove(pluginTags); err != nil && !os.IsNotExist(err) {
			fmt.Fprintf(os.Stderr, "editors/nvim: the help tags the plugin made are left: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// binaryEnv names a prebuilt agentls binary to test instead of building
// one from this module (e.g. a release build, or a patched tree);
// AGENTLS_TEST_BIN, which scripts/test sets to the binary it built once
// for every end-to-end test, does too.
const binaryEnv = "AGENTLS_NVIM_E2E_BIN"

// binary builds the agentls command once per test process, or returns
// $AGENTLS_NVIM_E2E_BIN (else $AGENTLS_TEST_BIN).
func binary(t *testing.T) string {
	t.Helper()
	p := os.Getenv(binaryEnv)
	if p == "" {
		p = os.Getenv("AGENTLS_TEST_BIN")
	}
	if p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	buildOnce.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("the go command is needed to build agentls: %w", err)
			return
		}
		binDir, err = os.MkdirTemp("", "agentls-nvim-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		agentlsBin = filepath.Join(binDir, "agentls")
		cmd := exec.Command(goCmd, "build", "-o", agentlsBin, "github.com/agentls/agentls/cmd/agentls")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build agentls: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return agentlsBin
}

// record is the JSON the Lua harness (test/harness.lua) writes.
type record struct {
	Error       string        `json:"error"`
	Steps       []string      `json:"steps"`
	Initialized bool          `json:"initialized"`
	ServerPID   int           `json:"server_pid"`
	Commands    []string      `json:"commands"`
	Events      []agent.Event `json:"events"`
	Progress    []progress    `json:"progress"`
	Created     []string      `json:"created"`
	Shows       []message     `json:"shows"`
	Logs        []message     `json:"logs"`
	Asks        []message     `json:"asks"`
	Applies     []applyEdit   `json:"applies"`
	Exit        *struct {
		Code   int `json:"code"`
		Signal int `json:"signal"`
	} `json:"exit"`
	// ExitTimeoutMS is set when the server was still running that long
	// after shutdown and exit (the harness then sent SIGTERM).
	ExitTimeoutMS int `json:"exit_timeout_ms"`

	// ask_unsaved.lua; buffer texts are the lines joined by "\n", without
	// a final newline.
	Ask               *response `json:"ask"`
	ModifiedBeforeAsk bool      `json:"modified_before_ask"`
	TextBeforeAsk     string    `json:"text_before_ask"`
	ModifiedAtEnd     bool      `json:"modified_at_end"`
	BufferText        string    `json:"buffer_text"`
	// With AGENTLS_E2E_UNDO=1: after one :undo.
	ModifiedAfterUndo bool   `json:"modified_after_undo"`
	UndoText          string `json:"undo_text"`

	// ask_busy.lua
	First  *response `json:"first"`
	Second *response `json:"second"`
	Cancel *response `json:"cancel"`
	Third  *response `json:"third"`
}

type progress struct {
	Token string `json:"token"`
	Value struct {
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Message string `json:"message"`
	} `json:"value"`
}

// message is the params of window/showMessage, window/logMessage and
// window/showMessageRequest (only the last has actions).
type message struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
	Actions []struct {
		Title string `json:"title"`
	} `json:"actions"`
}

// textEdit is an LSP TextEdit (UTF-16 positions, 0-based lines).
type textEdit struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
		End   struct{ Line, Character int } `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

// applyEdit is a workspace/applyEdit the server sent and Neovim's answer.
type applyEdit struct {
	Params struct {
		Label string `json:"label"`
		Edit  struct {
			DocumentChanges []struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version *int   `json:"version"`
				} `json:"textDocument"`
				Edits []textEdit `json:"edits"`
			} `json:"documentChanges"`
			Changes map[string][]textEdit `json:"changes"`
		} `json:"edit"`
	} `json:"params"`
	Result struct {
		Applied       bool   `json:"applied"`
		FailureReason string `json:"failureReason"`
	} `json:"result"`
}

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// String is the response for a failure message: its result or error.
func (r *response) String() string {
	if r == nil {
		return "<no response>"
	}
	if r.Error != nil {
		return fmt.Sprintf("error %d: %s", r.Error.Code, r.Error.Message)
	}
	return "result " + string(r.Result)
}

func (r *response) ask(t *testing.T, what string) lsp.AskResult {
	t.Helper()
	if r == nil {
		t.Fatalf("%s: no response recorded", what)
	}
	if r.Error != nil {
		t.Fatalf("%s: error %d %s", what, r.Error.Code, r.Error.Message)
	}
	var a lsp.AskResult
	if err := json.Unmarshal(r.Result, &a); err != nil || a.SessionID == "" || a.TurnID == "" {
		t.Fatalf("%s: result %s is not {sessionId, turnId} (%v)", what, r.Result, err)
	}
	return a
}

// run is one headless Neovim run of a scenario.
type run struct {
	t        *testing.T
	dir      string // t.TempDir(): home, XDG dirs, result file
	root     string // the workspace
	env      map[string]string
	rec      record
	output   bytes.Buffer
	duration time.Duration
}

// newRun makes a home with XDG dirs and a workspace holding files.
func newRun(t *testing.T, files map[string]string) *run {
	t.Helper()
	dir := t.TempDir()
	r := &run{t: t, dir: dir, root: filepath.Join(dir, "workspace"), env: map[string]string{}}
	for name, text := range files {
		p := filepath.Join(r.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (r *run) path(elem ...string) string { return filepath.Join(append([]string{r.dir}, elem...)...) }

// nvim runs test/<scenario> in headless Neovim and decodes the record.
// Any failure prints the Lua error, the steps reached, Neovim's output and
// the server's log.
func (r *run) nvim(scenario string) *record {
	t := r.t
	t.Helper()
	nvim := nvimPath(t)
	bin := binary(t)
	script, err := filepath.Abs(filepath.Join("test", scenario))
	if err != nil {
		t.Fatal(err)
	}
	result := r.path("result.json")
	env := map[string]string{
		"HOME":               r.path("home"),
		"XDG_CONFIG_HOME":    r.path("config"),
		"XDG_STATE_HOME":     r.path("state"),
		"XDG_DATA_HOME":      r.path("data"),
		"XDG_CACHE_HOME":     r.path("cache"),
		"XDG_RUNTIME_DIR":    r.path("runtime"),
		"AGENTLS_MODEL":      "",
		"AGENTLS_E2E_BIN":    bin,
		"AGENTLS_E2E_ROOT":   r.root,
		"AGENTLS_E2E_RESULT": result,
	}
	for k, v := range r.env {
		env[k] = v
	}
	for _, d := range []string{"home", "config", "state", "data", "cache", "runtime"} {
		if err := os.MkdirAll(r.path(d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), nvimTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
		"-c", "luafile "+vimEscape(script))
	cmd.Dir = r.root
	cmd.Env = mergeEnv(os.Environ(), env)
	cmd.Stdout = &r.output
	cmd.Stderr = &r.output
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	r.duration = time.Since(start)
	t.Logf("nvim %s: %v", scenario, r.duration.Round(time.Millisecond))

	data, readErr := os.ReadFile(result)
	if readErr == nil {
		if err := json.Unmarshal(data, &r.rec); err != nil {
			r.fail("result %s is not a record: %v\n%s", result, err, data)
		}
	}
	switch {
	case ctx.Err() != nil:
		r.fail("nvim did not finish within %v", nvimTimeout)
	case r.rec.Error != "":
		r.fail("Lua scenario failed: %s", r.rec.Error)
	case runErr != nil:
		r.fail("nvim: %v", runErr)
	case readErr != nil:
		r.fail("no result: %v", readErr)
	}
	return &r.rec
}

// fail stops the test with everything needed to see what went wrong.
func (r *run) fail(format string, args ...any) {
	r.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	fmt.Fprintf(&b, "\n--- steps:\n  %s", strings.Join(r.rec.Steps, "\n  "))
	fmt.Fprintf(&b, "\n--- nvim output:\n%s", r.output.String())
	if log, err := os.ReadFile(r.path("state", "agentls", "agentls.log")); err == nil {
		fmt.Fprintf(&b, "\n--- agentls.log:\n%s", log)
	}
	if log, err := os.ReadFile(r.path("cache", "nvim", "lsp.log")); err == nil {
		fmt.Fprintf(&b, "\n--- nvim lsp.log:\n%s", tail(string(log), 4000))
	}
	r.t.Fatal(b.String())
}

// checkExit asserts that the client shut the server down properly and
// that no server process outlived Neovim.
func (r *run) checkExit() {
	t := r.t
	t.Helper()
	rec := &r.rec
	if rec.ServerPID <= 0 {
		t.Errorf("server pid not recorded")
	} else if d, alive := waitGone(rec.ServerPID, 5*time.Second); alive {
		t.Errorf("orphan: server pid %d still running %v after nvim quit", rec.ServerPID, d)
	}
	switch {
	case rec.ExitTimeoutMS > 0:
		how := "it did not exit on SIGTERM either; it ended only when nvim quit and closed its stdin"
		if rec.Exit != nil {
			how = fmt.Sprintf("it then exited with code %d, signal %d", rec.Exit.Code, rec.Exit.Signal)
		}
		t.Errorf("agentls was still running %d ms after the shutdown request and exit notification "+
			"(Neovim keeps the server's stdin open until the process ends); the harness sent SIGTERM and %s; its log:\n%s",
			rec.ExitTimeoutMS, how, r.logTail())
	case rec.Exit == nil:
		t.Errorf("server exit was not recorded")
	case rec.Exit.Code != 0 || rec.Exit.Signal != 0:
		t.Errorf("server exited with code %d, signal %d; want 0 after shutdown and exit", rec.Exit.Code, rec.Exit.Signal)
	}
	if log, err := os.ReadFile(r.logPath()); err != nil {
		t.Errorf("server log not in XDG_STATE_HOME: %v", err)
	} else if !strings.Contains(string(log), "msg=exit code=0") {
		t.Errorf("server log does not end with a clean exit:\n%s", tail(string(log), 2000))
	}
}

func (r *run) logPath() string { return r.path("state", "agentls", "agentls.log") }

// logTail is the end of the server's log, or why there is none.
func (r *run) logTail() string {
	log, err := os.ReadFile(r.logPath())
	if err != nil {
		return err.Error()
	}
	return tail(string(log), 3000)
}

// waitGone polls until process pid no longer exists (a zombie counts as
// gone: its reaper may be a container's init that never waits). It
// reports how long it waited and whether the process is still alive.
func waitGone(pid int, limit time.Duration) (time.Duration, bool) {
	start := time.Now()
	for {
		if !alive(pid) {
			return time.Since(start), false
		}
		if time.Since(start) > limit {
			return time.Since(start), true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) // no /proc (macOS): trust kill -0
	}
	// The state follows the parenthesized command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}

// The walking skeleton in a real editor: the user edits main.go without
// saving and asks; the agent's view tool sees the buffer, not the disk.
func TestNvimAskSeesUnsavedBuffer(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		const (
			disk     = "package main\n\nfunc main() { println(\"DISK\") }\n"
			unsaved  = `func main() { println("UNSAVED") }`
			answer   = "The file prints UNSAVED."
			scriptJS = `{"turns":[
			{"text":"Looking.","tool_calls":[{"name":"view","input":{"file_path":"main.go"}}]},
			{"text":"` + answer + `\nDetails follow."}]}`
		)
		r := newRun(t, map[string]string{"main.go": disk})
		script := r.path("replay.json")
		if err := os.WriteFile(script, []byte(scriptJS), 0o644); err != nil {
			t.Fatal(err)
		}
		r.env["AGENTLS_E2E_MODEL"] = "replay:" + script
		r.env["AGENTLS_E2E_FILE"] = "main.go"
		r.env["AGENTLS_E2E_LINE"] = "3"
		r.env["AGENTLS_E2E_TEXT"] = unsaved
		r.env["AGENTLS_E2E_PROMPT"] = "what does main print?"
		rec := r.nvim("ask_unsaved.lua")

		if !rec.Initialized || !contains(rec.Commands, lsp.CommandAsk) {
			t.Errorf("initialize: commands %v lack %s", rec.Commands, lsp.CommandAsk)
		}
		if !rec.ModifiedBeforeAsk || !rec.ModifiedAtEnd || !strings.Contains(rec.BufferText, unsaved) {
			t.Errorf("buffer not modified-and-unsaved as set up: before=%v end=%v text=%q",
				rec.ModifiedBeforeAsk, rec.ModifiedAtEnd, rec.BufferText)
		}
		res := rec.Ask.ask(t, "agentls.ask")

		// Events: the whole turn, on the returned ids, and the view saw the buffer.
		var types []string
		viewed, end := "", ""
		for _, e := range rec.Events {
			if e.Type != agent.EventTextDelta { // streamed pieces of the texts
				types = append(types, string(e.Type))
			}
			if e.TurnID != res.TurnID || e.SessionID != res.SessionID {
				t.Errorf("event %s on session %q turn %q, ask returned %+v", e.Type, e.SessionID, e.TurnID, res)
			}
			switch e.Type {
			case agent.EventToolResult:
				if e.Name == "view" && e.Content != nil {
					viewed = *e.Content
					if e.IsError != nil && *e.IsError {
						t.Errorf("view failed: %s", viewed)
					}
				}
			case agent.EventTurnEnd:
				end = e.Reason
			}
		}
		if got, want := strings.Join(types, " "), "turn_start text tool_call permission tool_result text turn_end"; got != want {
			t.Errorf("events = %s\nwant     %s", got, want)
		}
		if !strings.Contains(viewed, `println("UNSAVED")`) || strings.Contains(viewed, "DISK") {
			t.Errorf("view did not read the unsaved buffer:\n%s", viewed)
		}
		if end != agent.ReasonCompleted {
			t.Errorf("turn_end reason = %q, want %q", end, agent.ReasonCompleted)
		}
		if b, err := os.ReadFile(filepath.Join(r.root, "main.go")); err != nil || string(b) != disk {
			t.Errorf("main.go on disk changed: %q, %v", b, err)
		}

		// Progress: one token, created by the server, begin … report view … end.
		if len(rec.Created) != 1 {
			t.Fatalf("window/workDoneProgress/create tokens = %v, want one", rec.Created)
		}
		token := rec.Created[0]
		var kinds []string
		report := ""
		for _, p := range rec.Progress {
			if p.Token != token {
				t.Errorf("$/progress on token %q, created %q", p.Token, token)
			}
			if len(kinds) == 0 || kinds[len(kinds)-1] != p.Value.Kind {
				kinds = append(kinds, p.Value.Kind) // reports come per tool call and as the answer streams
			}
			if p.Value.Kind == "report" {
				report += p.Value.Message + "\n"
			}
		}
		if got := strings.Join(kinds, " "); got != "begin report end" {
			t.Errorf("$/progress kinds = %s, want begin report end", got)
		}
		if !strings.Contains(report, "view") {
			t.Errorf("$/progress reports %q do not mention view", report)
		}

		// view is read-only: no permission prompt.
		if len(rec.Asks) != 0 {
			t.Errorf("window/showMessageRequest for a read-only tool: %+v", rec.Asks)
		}

		// The final message and the transcript.
		if len(rec.Shows) != 1 || rec.Shows[0].Type != 3 || rec.Shows[0].Message != "agentls: "+answer {
			t.Errorf("window/showMessage = %+v, want one Info (3) %q", rec.Shows, "agentls: "+answer)
		}
		logged := ""
		for _, l := range rec.Logs {
			logged += l.Message + "\n"
		}
		streamed := 0
		for _, e := range rec.Events {
			if e.Type == agent.EventTextDelta {
				streamed++
			}
		}
		if len(rec.Logs) < len(rec.Events)-streamed || !strings.Contains(logged, "view") {
			t.Errorf("window/logMessage transcript (%d messages for %d events):\n%s", len(rec.Logs), len(rec.Events), logged)
		}

		r.checkExit()
		if t.Failed() {
			t.Logf("steps:\n  %s", strings.Join(rec.Steps, "\n  "))
		}
	})
}

// slowModel is an OpenAI-compatible endpoint that never answers: each
// chat request stays open until the client gives up or the test ends. It
// writes how many requests it has received to the file seen, so the Lua
// scenario can wait until a turn really is waiting on the model.
type slowModel struct {
	seen     string
	mu       sync.Mutex
	requests int
	done     chan struct{}
}

// ServeHTTP counts the request into m.seen and holds it until the
// request or the test ends, never answering. Any other request (agentls
// asking a local server its context window) gets the 404 a real server
// sends.
func (m *slowModel) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		http.NotFound(w, req)
		return
	}
	io.Copy(io.Discard, req.Body)
	m.mu.Lock()
	m.requests++
	tmp := m.seen + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(m.requests)), 0o644); err == nil {
		os.Rename(tmp, m.seen)
	}
	m.mu.Unlock()
	select {
	case <-req.Context().Done():
	case <-m.done:
		http.Error(w, "test over", http.StatusServiceUnavailable)
	}
}

// An ask while a turn is running is refused with "already running";
// agentls.cancel ends the turn; quitting during a turn still shuts the
// server down with exit code 0.
func TestNvimAskWhileRunning(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newRun(t, map[string]string{"main.go": "package main\n"})
		model := &slowModel{seen: r.path("model-requests"), done: make(chan struct{})}
		srv := httptest.NewServer(model)
		t.Cleanup(srv.Close)
		t.Cleanup(func() { close(model.done) }) // runs before srv.Close
		cfg := fmt.Sprintf(`{"providers":{"slow":{"base_url":%q}}}`, srv.URL+"/v1")
		if err := os.MkdirAll(r.path("config", "agentls"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.path("config", "agentls", "config.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		r.env["AGENTLS_E2E_MODEL"] = "slow:never"
		r.env["AGENTLS_E2E_MODEL_SEEN"] = model.seen
		r.env["AGENTLS_E2E_FILE"] = "main.go"
		rec := r.nvim("ask_busy.lua")

		first := rec.First.ask(t, "first ask")
		if rec.Second == nil || rec.Second.Error == nil || !strings.Contains(rec.Second.Error.Message, "already running") {
			t.Errorf("second ask while running = %v, want an error saying a turn is already running", rec.Second)
		}
		var cancelled struct {
			Cancelled bool   `json:"cancelled"`
			TurnID    string `json:"turnId"`
		}
		if rec.Cancel == nil || rec.Cancel.Error != nil || json.Unmarshal(rec.Cancel.Result, &cancelled) != nil ||
			!cancelled.Cancelled || cancelled.TurnID != first.TurnID {
			t.Errorf("agentls.cancel = %v, want {cancelled: true, turnId: %q}", rec.Cancel, first.TurnID)
		}
		var firstEnd string
		for _, e := range rec.Events {
			if e.Type == agent.EventTurnEnd && e.TurnID == first.TurnID {
				firstEnd = e.Reason
			}
		}
		if firstEnd != agent.ReasonCancelled {
			t.Errorf("first turn ended %q, want %q; events %+v", firstEnd, agent.ReasonCancelled, rec.Events)
		}
		if len(rec.Shows) == 0 || rec.Shows[0].Message != "agentls: turn cancelled" {
			t.Errorf("window/showMessage = %+v, want agentls: turn cancelled", rec.Shows)
		}
		third := rec.Third.ask(t, "ask after cancel")
		if third.TurnID == first.TurnID {
			t.Errorf("ask after cancel reused turn id %s", first.TurnID)
		}
		model.mu.Lock()
		if model.requests != 2 {
			t.Errorf("the model endpoint got %d requests, want 2 (first and third ask)", model.requests)
		}
		model.mu.Unlock()
		r.checkExit()
		if t.Failed() {
			t.Logf("steps:\n  %s", strings.Join(rec.Steps, "\n  "))
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mergeEnv overrides (or adds) variables of base.
func mergeEnv(base []string, set map[string]string) []string {
	var out []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// vimEscape escapes a file name for an Ex command argument, like
// fnameescape().
func vimEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(" \t\n*?[{`$\\%#'\"|!<", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
