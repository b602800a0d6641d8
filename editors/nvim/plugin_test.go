//go:build unix

package nvim_test

// The Neovim plugin (editors/nvim: lua/agentls, plugin/agentls.lua) in a
// real headless Neovim 0.7.2, loaded the way a person loads it: `nvim -u
// test/plugin_init.lua`, a tiny init that adds editors/nvim to
// 'runtimepath' and calls require('agentls').setup{}. The only stub is the
// prompt UI (vim.ui.select); the commands are typed as Ex commands. Like
// the other tests here, these fail (never skip) when nvim is missing.

import (
	"bufio"
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
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
)

// pluginTimeout bounds one Neovim run; the Lua waits are shorter.
const pluginTimeout = 60 * time.Second

// pluginRecord is what the plugin_*.lua scenarios write (through
// test/harness.lua's h.run). Buffer texts are lines joined by "\n" without
// a final newline; disk texts are the file's bytes (nil: no file).
type pluginRecord struct {
	Error string   `json:"error"`
	Steps []string `json:"steps"`
	// Raw holds every field, for the scenarios' own (see str, boolean).
	Raw map[string]json.RawMessage `json:"-"`

	// plugin_edit.lua
	Root         string         `json:"root"`
	Attached     bool           `json:"attached"`
	ServerPID    int            `json:"server_pid"`
	TextBefore   string         `json:"text_before"`
	StatusBefore string         `json:"status_before"`
	StatusAsked  string         `json:"status_asked"`
	StatusAfter  string         `json:"status_after"`
	StatusEnd    string         `json:"status_end"`
	TextAfter    string         `json:"text_after"`
	ModAfter     bool           `json:"modified_after"`
	DiskAfter    *string        `json:"disk_after"`
	TextReverted string         `json:"text_reverted"`
	ModReverted  bool           `json:"modified_reverted"`
	DiskReverted *string        `json:"disk_reverted"`
	Statuses     []string       `json:"statuses"`
	Selects      []pluginSelect `json:"selects"`
	LogName      string         `json:"log_name"`
	Log          []string       `json:"log"`
	WindowsAfter []pluginWindow `json:"windows_after"`

	// plugin_question.lua
	Inputs []struct {
		Prompt string `json:"prompt"`
		Answer string `json:"answer"`
	} `json:"inputs"`

	// plugin_coroutine.lua
	Yielded            bool   `json:"yielded"`
	StatusWhileYielded string `json:"status_while_yielded"`
	Result             *struct {
		Title string `json:"title"`
	} `json:"result"`

	// plugin_binary.lua
	Messages    []string    `json:"messages"`
	FoundBefore pluginFound `json:"found_before"`
	FoundAfter  pluginFound `json:"found_after"`
	Checkout    string      `json:"checkout"`
	ClientCmd   []string    `json:"client_cmd"`

	// plugin_help.lua, plugin_binary.lua
	Health []string `json:"health"`
	Help   []struct {
		Tag   string `json:"tag"`
		OK    bool   `json:"ok"`
		Error string `json:"error"`
		File  string `json:"file"`
		Line  string `json:"line"`
	} `json:"help"`
}

// pluginSelect is one call of the stubbed vim.ui.select.
type pluginSelect struct {
	Prompt string   `json:"prompt"`
	Kind   string   `json:"kind"`
	Titles []string `json:"titles"`
	Answer string   `json:"answer"`
	Status string   `json:"status"` // require('agentls').status() during the ask
	// Windows are the windows open when the select was called.
	Windows []pluginWindow `json:"windows"`
}

// pluginWindow is one window a scenario recorded.
type pluginWindow struct {
	Name    string `json:"name"`
	Buftype string `json:"buftype"`
	Text    string `json:"text"`
}

// pluginFound is what require('agentls.binary').find() returned.
type pluginFound struct {
	Path   string   `json:"path"`
	From   string   `json:"from"`
	Looked []string `json:"looked"`
}

// pluginRun is one headless Neovim run of a plugin scenario.
type pluginRun struct {
	t       *testing.T
	dir     string // home, XDG dirs, result
	root    string // the workspace, Neovim's working directory
	env     map[string]string
	timeout time.Duration // of the run; 0: pluginTimeout
	// listen, when set, is the address Neovim serves RPC on (--listen), and
	// during runs while Neovim does (typing into it with --remote-send).
	listen string
	during func()
	// init is the init file in test/ (-u); "": plugin_init.lua.
	init   string
	rec    pluginRecord
	output bytes.Buffer
}

func newPluginRun(t *testing.T, files map[string]string) *pluginRun {
	t.Helper()
	dir := t.TempDir()
	r := &pluginRun{t: t, dir: dir, root: filepath.Join(dir, "workspace"), env: map[string]string{}}
	for _, d := range []string{"workspace", "home", "config", "state", "data", "cache", "runtime"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
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

func (r *pluginRun) path(elem ...string) string {
	return filepath.Join(append([]string{r.dir}, elem...)...)
}

// replay writes a replay script and makes it the model.
func (r *pluginRun) replay(script string) {
	p := r.path("replay.json")
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.env["AGENTLS_E2E_MODEL"] = "replay:" + p
}

// newFileRun is a plugin run in a workspace holding a.txt (pluginFile),
// the file the scenario edits ($AGENTLS_E2E_FILE).
func newFileRun(t *testing.T) *pluginRun {
	t.Helper()
	r := newPluginRun(t, map[string]string{"a.txt": pluginFile})
	r.env["AGENTLS_E2E_FILE"] = "a.txt"
	return r
}

// provider makes the OpenAI-compatible endpoint url (openaitest's) the
// model "rec:m".
func (r *pluginRun) provider(url string) { r.pricedProvider(url, "") }

// pricedProvider is provider with the model's price (a config price
// object; "" for none, so the model shows tokens only).
func (r *pluginRun) pricedProvider(url, price string) {
	cfg := fmt.Sprintf(`{"providers":{"rec":{"base_url":%q}}}`, url)
	if price != "" {
		cfg = fmt.Sprintf(`{"providers":{"rec":{"base_url":%q,"price":%s}}}`, url, price)
	}
	if err := os.MkdirAll(r.path("config", "agentls"), 0o700); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(r.path("config", "agentls", "config.json"), []byte(cfg), 0o600); err != nil {
		r.t.Fatal(err)
	}
	r.env["AGENTLS_E2E_MODEL"] = "rec:m"
}

// commandModel makes the model one that runs command with bash, then
// answers "Made it.".
func (r *pluginRun) commandModel(command string) {
	srv := openaitest.New(func(req openaitest.Request) openaitest.Reply {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return openaitest.Reply{Parts: []string{"Made it."}}
			}
		}
		return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("b1", "bash", map[string]any{"command": command})}}
	})
	r.t.Cleanup(srv.Close)
	r.provider(srv.URL)
}

// str and boolean read a scenario's own field of the record ("" and nil
// when it is missing or of another type).
func (rec *pluginRecord) str(key string) string {
	var s string
	json.Unmarshal(rec.Raw[key], &s)
	return s
}

func (rec *pluginRecord) boolean(key string) any {
	var b *bool
	if json.Unmarshal(rec.Raw[key], &b) != nil || b == nil {
		return nil
	}
	return *b
}

// nvim runs `nvim --headless -u test/plugin_init.lua -c 'luafile
// test/<scenario>'` in the workspace and decodes the record. Any failure
// prints the Lua error, the steps reached, Neovim's output and the logs.
func (r *pluginRun) nvim(scenario string) *pluginRecord {
	t := r.t
	t.Helper()
	nvim := nvimPath(t)
	bin := binary(t)
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	rtp := abs(".")
	result := r.path("result.json")
	env := map[string]string{
		"HOME":               r.path("home"),
		"XDG_CONFIG_HOME":    r.path("config"),
		"XDG_STATE_HOME":     r.path("state"),
		"XDG_DATA_HOME":      r.path("data"),
		"XDG_CACHE_HOME":     r.path("cache"),
		"XDG_RUNTIME_DIR":    r.path("runtime"),
		"AGENTLS_MODEL":      "",
		"AGENTLS_PLUGIN_RTP": rtp,
		"AGENTLS_E2E_BIN":    bin,
		"AGENTLS_E2E_ROOT":   r.root,
		"AGENTLS_E2E_RESULT": result,
	}
	for k, v := range r.env {
		env[k] = v
	}
	timeout := pluginTimeout
	if r.timeout > 0 {
		timeout = r.timeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	init := "plugin_init.lua"
	if r.init != "" {
		init = r.init
	}
	args := []string{"--headless", "-u", abs(filepath.Join("test", init)), "-i", "NONE", "-n"}
	if r.listen != "" {
		args = append(args, "--listen", r.listen)
	}
	args = append(args, "-c", "luafile "+vimEscape(abs(filepath.Join("test", scenario))))
	cmd := exec.CommandContext(ctx, nvim, args...)
	cmd.Dir = r.root
	cmd.Env = mergeEnv(os.Environ(), env)
	cmd.Stdout = &r.output
	cmd.Stderr = &r.output
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Start()
	if runErr == nil {
		if r.during != nil {
			r.during()
		}
		runErr = cmd.Wait()
	}
	t.Logf("nvim -u %s %s: %v", init, scenario, time.Since(start).Round(time.Millisecond))

	data, readErr := os.ReadFile(result)
	if readErr == nil {
		if err := json.Unmarshal(data, &r.rec); err != nil {
			r.fail("result %s is not a record: %v\n%s", result, err, data)
		}
		json.Unmarshal(data, &r.rec.Raw)
	}
	switch {
	case ctx.Err() != nil:
		r.fail("nvim did not finish within %v", timeout)
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
func (r *pluginRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Fatal(r.report(format, args...))
}

func (r *pluginRun) report(format string, args ...any) string {
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	fmt.Fprintf(&b, "\n--- steps:\n  %s", strings.Join(r.rec.Steps, "\n  "))
	if len(r.rec.Log) > 0 {
		fmt.Fprintf(&b, "\n--- transcript:\n  %s", strings.Join(r.rec.Log, "\n  "))
	}
	fmt.Fprintf(&b, "\n--- nvim output:\n%s", r.output.String())
	if log, err := os.ReadFile(r.path("state", "agentls", "agentls.log")); err == nil {
		fmt.Fprintf(&b, "\n--- agentls.log:\n%s", tail(string(log), 6000))
	}
	if log, err := os.ReadFile(r.path("cache", "nvim", "lsp.log")); err == nil {
		fmt.Fprintf(&b, "\n--- nvim lsp.log:\n%s", tail(string(log), 4000))
	}
	return b.String()
}

// errorf records a failed check with the run's context, once.
func (r *pluginRun) errorf(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf(format, args...)
}

// done prints the context of any failed check and checks that the server
// process did not outlive Neovim.
func (r *pluginRun) done() {
	r.t.Helper()
	if pid := r.rec.ServerPID; pid > 0 {
		if pluginAliveAfter(pid, 5*time.Second) {
			r.t.Errorf("orphan: server pid %d still running 5s after nvim quit", pid)
		}
	}
	if r.t.Failed() {
		r.t.Log(r.report("context of the failures above:"))
	}
}

func pluginAliveAfter(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		alive := !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); alive && err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
				alive = false // a zombie whose reaper never waits
			}
		}
		if !alive {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const (
	pluginFile   = "hello world\nsecond line\n"
	pluginEdited = "hello agentls\nsecond line\n"
	pluginPrompt = "greet agentls"
	pluginAsk    = "agentls wants to edit a.txt (+1 −1)"
	pluginScript = `{"turns":[
		{"text":"Looking at a.txt.","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},
		{"text":"Changing the greeting.","tool_calls":[{"name":"edit","input":{"file_path":"a.txt","old_string":"hello world","new_string":"hello agentls"}}]},
		{"text":"Done: a.txt greets agentls."}]}`
)

// The whole plugin in one session: :AgentAsk <prompt> → the agent views
// and edits a.txt → the ask appears through vim.ui.select with the
// server's titles and is answered Allow → the buffer changes and, as the
// plugin declares saveDocument and the buffer was clean, so does the disk
// → the statusline went working, waiting for you, idle → :AgentRevert
// restores buffer and disk → :AgentLog shows the transcript: the prompt,
// the tool calls by title, their results, the diff, the turn's end and the
// revert.
func TestNvimPluginAskEditRevertLog(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.replay(pluginScript)
		r.env["AGENTLS_PLUGIN_ANSWERS"] = "Allow"
		r.env["AGENTLS_PLUGIN_REVIEW"] = "0"
		r.env["AGENTLS_PLUGIN_REVERT"] = "1"
		r.env["AGENTLS_E2E_PROMPT"] = pluginPrompt
		rec := r.nvim("plugin_edit.lua")
		defer r.done()

		original := strings.TrimSuffix(pluginFile, "\n")
		if !rec.Attached || rec.Root != r.root {
			r.errorf("a.txt attached=%v to a client on root %q, want attached on %q", rec.Attached, rec.Root, r.root)
		}
		if rec.TextBefore != original {
			r.errorf("buffer before the ask = %q, want %q", rec.TextBefore, original)
		}

		// The ask, through the plugin's UI.
		if len(rec.Selects) != 1 {
			r.errorf("vim.ui.select called %d times, want once: %+v", len(rec.Selects), rec.Selects)
		} else {
			s := rec.Selects[0]
			// The server may add titles (Allow … this session); these three stay.
			if !pluginInOrder(s.Titles, "Allow", "Deny", "Show diff") {
				r.errorf("vim.ui.select items = %q, want the server's actions Allow, Deny, Show diff", s.Titles)
			}
			if !strings.Contains(s.Prompt, pluginAsk) {
				r.errorf("vim.ui.select prompt = %q, want it to contain %q", s.Prompt, pluginAsk)
			}
			if s.Status != "waiting for you" {
				r.errorf("status() during the ask = %q, want %q", s.Status, "waiting for you")
			}
		}

		// The edit landed in the buffer and, saved by the plugin, on disk.
		if want := strings.TrimSuffix(pluginEdited, "\n"); rec.TextAfter != want {
			r.errorf("buffer after the turn = %q, want %q", rec.TextAfter, want)
		}
		if rec.ModAfter {
			r.errorf("buffer still modified after the turn: agentls/saveDocument did not write it")
		}
		if rec.DiskAfter == nil || *rec.DiskAfter != pluginEdited {
			r.errorf("a.txt on disk after the turn = %s, want %q", quoteOrNil(rec.DiskAfter), pluginEdited)
		}

		// The statusline.
		if rec.StatusBefore != "idle" || rec.StatusAsked != "working" || rec.StatusAfter != "idle" || rec.StatusEnd != "idle" {
			r.errorf("status() before ask / right after :AgentAsk / after the turn / after stop = %q / %q / %q / %q, want idle / working / idle / idle",
				rec.StatusBefore, rec.StatusAsked, rec.StatusAfter, rec.StatusEnd)
		}
		if !pluginInOrder(rec.Statuses, "working", "waiting for you", "working", "idle") ||
			len(rec.Statuses) == 0 || rec.Statuses[len(rec.Statuses)-1] != "idle" {
			r.errorf("User AgentlsStatus saw %q; want working … waiting for you … working … idle, ending idle", rec.Statuses)
		}

		// :AgentRevert.
		if rec.TextReverted != original {
			r.errorf("buffer after :AgentRevert = %q, want the original %q", rec.TextReverted, original)
		}
		if rec.DiskReverted == nil || *rec.DiskReverted != pluginFile {
			r.errorf("a.txt on disk after :AgentRevert = %s, want the original %q", quoteOrNil(rec.DiskReverted), pluginFile)
		}
		if rec.ModReverted {
			r.errorf("buffer modified after :AgentRevert, want it saved like the disk")
		}

		// :AgentLog.
		if rec.LogName != "agentls://log" {
			r.errorf(":AgentLog opened buffer %q, want agentls://log", rec.LogName)
		}
		checkTranscript(r, rec.Log, []string{
			"= you: " + pluginPrompt + "  [a.txt]",
			"^── turn ",
			"= agent: Looking at a.txt.",
			"= → view a.txt",
			"^← view a.txt: ok",
			"= agent: Changing the greeting.",
			"= → edit a.txt",
			"^  allowed edit a.txt (user",
			"^← edit a.txt: ok",
			"=     -hello world",
			"=     +hello agentls",
			"= agent: Done: a.txt greets agentls.",
			"$ ended: completed ──",
			"$: a.txt",
		})
	})
}

// An edit asked about through agentls/ask (review off): "Show diff"
// twice, then "Deny", answered asynchronously (50 ms later from a timer,
// like telescope or dressing). The diff opens in one scratch window (no
// file: buftype nofile, agentls://diff/…), the same one the second time,
// the question comes again, and when it is answered the window is gone;
// the deny leaves buffer and disk alone.
func TestNvimPluginShowDiffThenDeny(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.replay(pluginScript)
		r.env["AGENTLS_PLUGIN_ANSWERS"] = "Show diff,Show diff,Deny"
		r.env["AGENTLS_PLUGIN_REVIEW"] = "0"
		r.env["AGENTLS_PLUGIN_ASYNC_SELECT"] = "1"
		r.env["AGENTLS_E2E_PROMPT"] = pluginPrompt
		rec := r.nvim("plugin_edit.lua")
		defer r.done()

		if len(rec.Selects) != 3 {
			r.errorf("vim.ui.select called %d times, want 3 (Show diff, Show diff, then Deny): %+v", len(rec.Selects), rec.Selects)
		}
		diffWindows := func(ws []pluginWindow) (n int, text string) {
			for _, w := range ws {
				if strings.HasPrefix(w.Name, "agentls://diff/") && w.Buftype == "nofile" {
					n, text = n+1, w.Text
				}
			}
			return n, text
		}
		for i, s := range rec.Selects {
			if !pluginInOrder(s.Titles, "Allow", "Deny", "Show diff") || !strings.Contains(s.Prompt, pluginAsk) || s.Status != "waiting for you" {
				r.errorf("ask %d = %+v, want prompt %q, titles [Allow, Deny, Show diff], status waiting for you", i+1, s, pluginAsk)
			}
			n, text := diffWindows(s.Windows)
			switch {
			case i == 0 && n != 0:
				r.errorf("a diff window is open before Show diff: %+v", s.Windows)
			case i > 0 && (n != 1 || !strings.Contains(text, "\n-hello world\n+hello agentls")):
				r.errorf("after Show diff %d time(s), %d scratch diff windows (want one with the diff): %+v", i, n, s.Windows)
			}
		}
		if n, _ := diffWindows(rec.WindowsAfter); n != 0 || len(rec.WindowsAfter) != 1 {
			r.errorf("windows after the answer %+v, want only a.txt's (the diff window closed with the question)", rec.WindowsAfter)
		}
		original := strings.TrimSuffix(pluginFile, "\n")
		if rec.TextAfter != original || rec.ModAfter {
			r.errorf("buffer after Deny = %q (modified %v), want the original, unmodified", rec.TextAfter, rec.ModAfter)
		}
		if rec.DiskAfter == nil || *rec.DiskAfter != pluginFile {
			r.errorf("a.txt on disk after Deny = %s, want the original", quoteOrNil(rec.DiskAfter))
		}
		if rec.StatusAfter != "idle" {
			r.errorf("status() after the turn = %q, want idle", rec.StatusAfter)
		}
		checkTranscript(r, rec.Log, []string{
			"= → view a.txt",
			"= → edit a.txt",
			"^  denied edit a.txt",
			"$ ended: denied ──",
		})
	})
}

// The asks' other path, for Neovim 0.10+, exercised on 0.7: there the RPC
// layer calls server-request handlers inside a coroutine and sends what the
// coroutine returns, so the plugin's handler must yield until an
// asynchronous vim.ui.select answers, and return the chosen title (here one
// of the longer titles the server will offer, picked 50 ms later). A
// review yields the same way, its window's keys (r, a) answering it; then
// three-hunk reviews: A accepts every hunk (a review asked while it is
// open is denied at once, in no second window), R rejects them all (a
// deny), review_answer({accept = {1, 3}}) takes the first and the third.
func TestNvimPluginAskInCoroutine(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.replay(pluginScript)
		const title = `Allow "go test" this session`
		r.env["AGENTLS_PLUGIN_ANSWERS"] = title
		r.env["AGENTLS_PLUGIN_ASYNC_SELECT"] = "1"
		rec := r.nvim("plugin_coroutine.lua")
		defer r.done()
		if !rec.Yielded || rec.StatusWhileYielded != "waiting for you" {
			r.errorf("handler in a coroutine: yielded=%v, status while waiting %q; want it to yield while the picker is open, status waiting for you",
				rec.Yielded, rec.StatusWhileYielded)
		}
		if rec.Result == nil || rec.Result.Title != title {
			r.errorf("handler returned %+v, want {title = %q}", rec.Result, title)
		}
		if len(rec.Selects) != 1 || strings.Join(rec.Selects[0].Titles, "|") != `Allow|Deny|`+title {
			r.errorf("vim.ui.select calls %+v, want one with the three titles", rec.Selects)
		}
		if rec.StatusAfter != "idle" {
			r.errorf("status() after the answer = %q, want idle", rec.StatusAfter)
		}
		var review struct {
			Accept []int   `json:"accept"`
			Answer *string `json:"answer"`
		}
		json.Unmarshal(rec.Raw["review_result"], &review)
		if rec.boolean("review_yielded") != true || rec.str("review_buffer") != "agentls://review/a.txt" ||
			fmt.Sprint(review.Accept) != "[2]" || review.Answer != nil || string(rec.Raw["review_windows"]) != "1" {
			r.errorf("review in a coroutine: yielded %v in %q, returned %s, %s windows after; want it to yield in the review, return {accept: [2]} and close",
				rec.Raw["review_yielded"], rec.str("review_buffer"), rec.Raw["review_result"], rec.Raw["review_windows"])
		}
		var three []struct {
			Buffer      string `json:"buffer"`
			Busy        bool   `json:"busy"`
			WindowsBusy int    `json:"windows_busy"`
			Answered    bool   `json:"answered"`
			Windows     int    `json:"windows"`
			Result      struct {
				Accept []int   `json:"accept"`
				Answer *string `json:"answer"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rec.Raw["reviews"], &three); err != nil || len(three) != 3 {
			r.fail("three-hunk reviews recorded: %s (%v), want three", rec.Raw["reviews"], err)
		}
		answer := func(i int) string {
			if a := three[i].Result.Answer; a != nil {
				return *a
			}
			return ""
		}
		for i, want := range []struct{ accept, answer string }{{"[1 2 3]", ""}, {"[]", "deny"}, {"[1 3]", ""}} {
			if got := fmt.Sprint(three[i].Result.Accept); got != want.accept || answer(i) != want.answer ||
				three[i].Buffer != "agentls://review/a.txt" || three[i].Windows != 1 {
				r.errorf("three-hunk review %d (%s): in %q, returned accept %s answer %q, %d windows after; want accept %s answer %q, closed",
					i+1, []string{"A", "R", "review_answer({accept = {1, 3}})"}[i], three[i].Buffer, got, answer(i), three[i].Windows, want.accept, want.answer)
			}
		}
		if !three[0].Busy || three[0].WindowsBusy != 2 || !three[2].Answered {
			r.errorf("a review asked while one is open: denied at once %v with %d windows (want true, 2: one review); review_answer returned %v, want true",
				three[0].Busy, three[0].WindowsBusy, three[2].Answered)
		}
	})
}

// recordingModel is an OpenAI-compatible chat endpoint that answers every
// request with the text "ok" and keeps the last user message of each.
type recordingModel struct {
	mu    sync.Mutex
	users []string
}

// ServeHTTP keeps the request's last user message and streams "ok". Any
// other request (agentls asking a local server its context window) gets
// the 404 a real server sends.
func (m *recordingModel) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		http.NotFound(w, req)
		return
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	data, _ := io.ReadAll(req.Body)
	if err := json.Unmarshal(data, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	last := ""
	for _, msg := range body.Messages {
		if msg.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(msg.Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(msg.Content, &parts)
			for _, p := range parts {
				s += p.Text
			}
		}
		last = s
	}
	m.mu.Lock()
	m.users = append(m.users, last)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriter(w)
	for _, ev := range []string{
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`[DONE]`,
	} {
		fmt.Fprintf(bw, "data: %s\n\n", ev)
	}
	bw.Flush()
}

// :'<,'>AgentAsk passes the buffer's uri and the selection's range: a
// charwise selection exactly (UTF-16 columns across é, ö and an emoji), a
// linewise one as whole lines, a typed range as its lines; :AgentAsk
// without a range passes the file only. What the agent was told is read
// at the model endpoint.
func TestNvimPluginAskSelection(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newPluginRun(t, map[string]string{"a.txt": "first line\nhéllo wörld 😀 end\nthird line\n"})
		model := &recordingModel{}
		srv := httptest.NewServer(model)
		t.Cleanup(srv.Close)
		r.provider(srv.URL + "/v1")
		r.env["AGENTLS_E2E_FILE"] = "a.txt"
		rec := r.nvim("plugin_select.lua")
		defer r.done()

		want := []string{
			"explain the word\n\nThe user is in a.txt with lines 2-2 selected:\n```\nwörld 😀\n```",
			"explain these lines\n\nThe user is in a.txt with lines 1-2 selected:\n```\nfirst line\nhéllo wörld 😀 end\n```",
			"explain line three\n\nThe user is in a.txt with lines 3-3 selected:\n```\nthird line\n```",
			"explain the file\n\nThe user is in a.txt.",
		}
		model.mu.Lock()
		got := append([]string(nil), model.users...)
		model.mu.Unlock()
		if len(got) != len(want) {
			r.errorf("the model got %d requests, want %d:\n%q", len(got), len(want), got)
		}
		for i := range want {
			if i < len(got) && got[i] != want[i] {
				r.errorf("ask %d: the agent was told\n%s\nwant\n%s", i+1, got[i], want[i])
			}
		}
		checkTranscript(r, rec.Log, []string{
			"= you: explain the word  [a.txt:2-2]",
			"= you: explain these lines  [a.txt:1-2]",
			"= you: explain line three  [a.txt:3-3]",
			"= you: explain the file  [a.txt]",
		})
	})
}

// :help agentls works without :helptags (the plugin makes the tags once,
// as a plugin manager's local folder runs none): the header is tags-able
// and every command and function has a tag. :checkhealth agentls finds the server and
// the model.
func TestNvimPluginHelp(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newPluginRun(t, nil)
		src, err := os.ReadFile(filepath.Join("doc", "agentls.txt"))
		if err != nil {
			t.Fatal(err)
		}
		doc := r.path("rtp", "doc")
		if err := os.MkdirAll(doc, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(doc, "agentls.txt"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		plugin, err := os.ReadFile(filepath.Join("plugin", "agentls.lua"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(r.path("rtp", "plugin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.path("rtp", "plugin", "agentls.lua"), plugin, 0o644); err != nil {
			t.Fatal(err)
		}
		tags := []string{"agentls", "agentls.txt", "agentls-setup", ":AgentAsk", ":AgentCancel", ":AgentRevert",
			":AgentLog", "agentls.status()", "agentls-asks", "agentls-saving", "agentls-install", "agentls-binary",
			":AgentInstall", "agentls.install()", ":AgentChat", ":AgentQuickfix", "agentls-chat", "agentls-review",
			"agentls-questions", "agentls-code-actions", "agentls.statusline()", "agentls.usage()", "agentls.review_answer()", "agentls.chat()",
			"agentls.quickfix()", "User_AgentlsReview", "User_AgentlsAsk", ":AgentSessions", ":AgentResume", ":AgentModel", "agentls-enable", ":AgentCheckpoints"}
		r.env["AGENTLS_PLUGIN_DOC"] = doc
		r.env["AGENTLS_PLUGIN_TAGS"] = strings.Join(tags, ",")
		r.env["AGENTLS_E2E_MODEL"] = "replay:none.json"
		rec := r.nvim("plugin_help.lua")
		defer r.done()
		if len(rec.Help) != len(tags) {
			r.fail("recorded %d :help results, want %d", len(rec.Help), len(tags))
		}
		for _, h := range rec.Help {
			if !h.OK || h.File != "agentls.txt" || !strings.Contains(h.Line, "*"+h.Tag+"*") {
				r.errorf(":help %s → ok=%v %s, file %q, line %q; want agentls.txt at the line with *%s*", h.Tag, h.OK, h.Error, h.File, h.Line, h.Tag)
			}
		}
		health := strings.Join(rec.Health, "\n")
		// The version is whatever the binary says (a release's v0.0.0-ci, a
		// go build's devel): the line names the binary, then "): agentls ".
		for _, want := range []string{"OK: Neovim 0.7 or later", "): agentls ", "OK: model (setup): replay:none.json"} {
			if !strings.Contains(health, want) {
				r.errorf(":checkhealth agentls lacks %q:\n%s", want, health)
			}
		}
		if strings.Contains(health, "ERROR") {
			r.errorf(":checkhealth agentls reports an error:\n%s", health)
		}
		if first := strings.SplitN(string(src), "\n", 2)[0]; !strings.HasPrefix(first, "*agentls.txt*") {
			r.errorf("doc/agentls.txt starts %q, want the tags-able header *agentls.txt*", first)
		}
	})
}

// checkTranscript checks that lines holds, in order, a line matching each
// pattern: "= text" (equal), "^text" (prefix), "$text" (suffix).
func checkTranscript(r *pluginRun, lines, patterns []string) {
	r.t.Helper()
	i := 0
	for _, p := range patterns {
		found := false
		for ; i < len(lines); i++ {
			if transcriptMatch(lines[i], p) {
				found, i = true, i+1
				break
			}
		}
		if !found {
			r.errorf("transcript lacks (in order) a line %q:\n  %s", p, strings.Join(lines, "\n  "))
			return
		}
	}
}

func transcriptMatch(line, p string) bool {
	switch {
	case strings.HasPrefix(p, "= "):
		return line == p[2:]
	case strings.HasPrefix(p, "^"):
		return strings.HasPrefix(line, p[1:])
	case strings.HasPrefix(p, "$"):
		return strings.HasSuffix(line, p[1:])
	}
	return false
}

// pluginInOrder reports whether list holds want as a subsequence.
func pluginInOrder(list []string, want ...string) bool {
	i := 0
	for _, s := range list {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	return i == len(want)
}

func quoteOrNil(s *string) string {
	if s == nil {
		return "<no file>"
	}
	return fmt.Sprintf("%q", *s)
}

// The agent's questions reach the person through the plugin's float
// (agentls/askQuestion: out of band, on every version), answered with keys
// typed 600 ms after it appears: free text on its answer line, one choice,
// several (marked with <CR>, sent from the answer line), and q dismisses
// ("no answer"). The model endpoint (the real OpenAI wire format) reads
// each answer in the tool result that follows.
func TestNvimPluginQuestion(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		questions := []map[string]any{
			{"question": "What should the table be called?"},
			{"question": "Which store?", "options": []string{"sqlite", "postgres"}},
			{"question": "Which checks?", "options": []string{"vet", "lint", "race"}, "multi": true},
			{"question": "Anything else?"},
		}
		srv := openaitest.New(func(req openaitest.Request) openaitest.Reply {
			asked := 0
			for _, m := range req.Messages {
				if m.Role == "tool" {
					asked++
				}
			}
			if asked < len(questions) {
				return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call(fmt.Sprintf("q%d", asked), "question", questions[asked])}}
			}
			return openaitest.Reply{Parts: []string{"Thanks."}}
		})
		t.Cleanup(srv.Close)
		r.provider(srv.URL)
		// Free text, postgres, vet and race marked then sent, dismissed.
		r.env["AGENTLS_PLUGIN_KEYS"] = "icall it kv<Esc><CR>,2<CR>,1<CR>3<CR>G<CR>,q"
		rec := r.nvim("plugin_question.lua")
		defer r.done()

		results := lastToolResults(srv)
		want := []string{"The person answered: call it kv", "The person chose: postgres", "The person chose: vet; race", "No answer: the person dismissed the question"}
		if len(results) != len(want) {
			r.errorf("tool results %q, want %q", results, want)
		}
		for i := range want {
			if i < len(results) && !strings.HasPrefix(results[i], want[i]) {
				r.errorf("answer %d = %q, want %q", i+1, results[i], want[i])
			}
		}
		var floats []string
		json.Unmarshal(rec.Raw["floats"], &floats)
		wantFloats := [][]string{
			{"agentls asks: What should the table be called?\n\n<CR>: send the answer typed below"},
			{"agentls asks: Which store?", "1 sqlite", "2 postgres", "<CR>: choose (or send the answer typed on the last line)"},
			{"agentls asks: Which checks?", "1 [ ] vet", "2 [ ] lint", "3 [ ] race"},
			{"agentls asks: Anything else?"},
		}
		if len(floats) != len(wantFloats) {
			r.errorf("%d choice floats, want %d: %q", len(floats), len(wantFloats), floats)
		}
		for i := range wantFloats {
			for _, w := range wantFloats[i] {
				if i < len(floats) && !strings.Contains(floats[i], w) {
					r.errorf("float %d lacks %q:\n%s", i+1, w, floats[i])
				}
			}
		}
		var focused []bool
		json.Unmarshal(rec.Raw["focused"], &focused)
		if len(focused) != 4 || slices.Contains(focused, false) {
			r.errorf("the float had the focus (Normal mode) %v, want at each of the 4 questions", focused)
		}
		if rec.str("status_asked") != "waiting for you" || len(rec.WindowsAfter) != 1 {
			r.errorf("status while asked %q, windows after %+v; want waiting for you, and no float left", rec.str("status_asked"), rec.WindowsAfter)
		}
	})
}

// reviewRecord is what plugin_review.lua records at each review.
type reviewRecord struct {
	Name       string `json:"name"`
	Buftype    string `json:"buftype"`
	Filetype   string `json:"filetype"`
	Modifiable bool   `json:"modifiable"`
	Clients    int    `json:"clients"`
	Windows    int    `json:"windows"`
	Text       string `json:"text"`
	Status     string `json:"status"`
}

// Review before apply, must-show: the agent writes two files, two hunks
// each; each change comes as agentls/review into a scratch diff split (no
// file, no language server attached, one window). a.txt is reviewed with
// typed keys — r rejects hunk 1, a accepts hunk 2; an A typed as the
// review appeared is dropped — and b.txt with
// review_answer({accept = {1}}). Only the accepted hunks land, in the
// buffers and on disk; the model reads in its tool results which hunks
// were rejected, with their diff; the review window is gone after each
// answer, and review_answer returns false when nothing is open. The
// statusline then offers the turn's revert, and a click on it restores
// both files.
func TestNvimPluginReviewOneHunkOfTwo(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		const (
			aOld = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
			aNew = "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nNINE\nten\n"
			bOld = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n"
			bNew = "ALPHA\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\nTHETA\n"
		)
		r := newPluginRun(t, map[string]string{"a.txt": aOld, "b.txt": bOld})
		srv := openaitest.New(func(req openaitest.Request) openaitest.Reply {
			done := 0
			for _, m := range req.Messages {
				if m.Role == "tool" {
					done++
				}
			}
			switch done {
			case 0:
				return openaitest.Reply{ToolCalls: []openaitest.ToolCall{
					openaitest.Call("v1", "view", map[string]any{"file_path": "a.txt"}),
					openaitest.Call("v2", "view", map[string]any{"file_path": "b.txt"})}}
			case 2:
				return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("w1", "write", map[string]any{"file_path": "a.txt", "content": aNew})}}
			case 3:
				return openaitest.Reply{ToolCalls: []openaitest.ToolCall{openaitest.Call("w2", "write", map[string]any{"file_path": "b.txt", "content": bNew})}}
			}
			return openaitest.Reply{Parts: []string{"Done."}}
		})
		t.Cleanup(srv.Close)
		r.provider(srv.URL)
		rec := r.nvim("plugin_review.lua")
		defer r.done()

		var reviews []reviewRecord
		if err := json.Unmarshal(rec.Raw["reviews"], &reviews); err != nil || len(reviews) != 2 {
			r.fail("reviews recorded: %s (%v), want two", rec.Raw["reviews"], err)
		}
		for i, rv := range reviews {
			file := []string{"a.txt", "b.txt"}[i]
			if rv.Name != "agentls://review/"+file || rv.Buftype != "nofile" || rv.Filetype != "diff" || rv.Modifiable {
				r.errorf("review %d buffer %q buftype %q filetype %q modifiable %v, want agentls://review/%s, a read-only nofile diff",
					i+1, rv.Name, rv.Buftype, rv.Filetype, rv.Modifiable, file)
			}
			if rv.Clients != 0 || rv.Windows != 1 || rv.Status != "waiting for you" {
				r.errorf("review %d: %d clients attached, %d review windows, status %q; want none, one, waiting for you", i+1, rv.Clients, rv.Windows, rv.Status)
			}
			if strings.Count(rv.Text, "\n@@ ") != 2 || !strings.Contains(rv.Text, "Allow edits in") {
				r.errorf("review %d shows\n%s\nwant two hunks and the grant on offer", i+1, rv.Text)
			}
		}
		want := map[string]string{
			"a": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nNINE\nten\n", // hunk 2 only
			"b": "ALPHA\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n",      // hunk 1 only
		}
		for _, f := range []struct{ name, buf, disk string }{
			{"a", rec.str("text_a"), rec.str("disk_a")}, {"b", rec.str("text_b"), rec.str("disk_b")},
		} {
			if f.buf != strings.TrimSuffix(want[f.name], "\n") || f.disk != want[f.name] {
				r.errorf("%s.txt after the review: buffer %q, disk %q; want %q (the accepted hunk only)", f.name, f.buf, f.disk, want[f.name])
			}
		}
		var results []string
		if reqs := srv.Requests(); len(reqs) > 0 {
			for _, m := range reqs[len(reqs)-1].Messages {
				if m.Role == "tool" {
					results = append(results, m.Content)
				}
			}
		}
		if len(results) != 4 {
			r.fail("tool results %q, want four (two views, two writes)", results)
		}
		for i, want := range []string{"applied only hunk(s) 2 of 2", "applied only hunk(s) 1 of 2"} {
			got := results[2+i]
			if !strings.Contains(got, want) || !strings.Contains(got, "Hunk "+map[int]string{0: "1", 1: "2"}[i]+":") {
				r.errorf("write %d's tool result\n%s\nwant it to say %q and show the rejected hunk", i+1, got, want)
			}
		}
		if !strings.Contains(results[2], "-two\n+TWO") || !strings.Contains(results[3], "-theta\n+THETA") {
			r.errorf("the rejected hunks' diffs are not in the tool results:\n%s\n%s", results[2], results[3])
		}
		if rec.boolean("answered") != true || rec.boolean("answered_none") != false {
			r.errorf("review_answer returned %v with a review open and %v with none; want true, false", rec.Raw["answered"], rec.Raw["answered_none"])
		}
		if sl := rec.str("statusline_after"); sl != "agentls: idle · %@AgentlsRevertClick@↶ :AgentRevert%X" {
			r.errorf("statusline() after the turn = %q, want idle with the clickable revert", sl)
		}
		if rec.str("text_a_reverted") != strings.TrimSuffix(aOld, "\n") || rec.str("text_b_reverted") != strings.TrimSuffix(bOld, "\n") ||
			rec.str("statusline_reverted") != "agentls: idle" {
			r.errorf("after the statusline's revert: a.txt %q, b.txt %q, statusline %q; want both restored, no revert offered",
				rec.str("text_a_reverted"), rec.str("text_b_reverted"), rec.str("statusline_reverted"))
		}
		for _, w := range rec.WindowsAfter {
			if strings.HasPrefix(w.Name, "agentls://review/") {
				r.errorf("a review window is still open after the turn: %+v", rec.WindowsAfter)
			}
		}
	})
}

// remote runs `nvim --server r.listen` with args (--remote-expr,
// --remote-send) and returns its output and how long it took.
func (r *pluginRun) remote(args ...string) (string, time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvimPath(r.t), append([]string{"--server", r.listen}, args...)...)
	cmd.Env = mergeEnv(os.Environ(), map[string]string{"HOME": r.path("home"), "XDG_CONFIG_HOME": r.path("config")})
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), time.Since(start), err
}

// waitFile waits up to limit for path to exist.
func waitFile(path string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// Asks never block, must-show: vim.ui.select is a picker that never
// answers (a broken telescope or dressing). The agent's command is asked
// (agentls/ask, a notification: the handler returns at once); while the
// picker hangs, Neovim answers another process's RPC at once and takes
// typed keys: :AgentCancel<CR>, typed with nvim --remote-send, ends the
// turn within seconds (the server closes the question with
// agentls/askDone). The picker's late answer is dropped: nothing runs.
func TestNvimPluginNeverAnsweringPicker(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.commandModel("mkdir build")
		r.env["AGENTLS_PLUGIN_ANSWERS"] = "<never>"
		mark := r.path("asked")
		r.env["AGENTLS_PLUGIN_MARK"] = mark
		r.listen = r.path("nvim.sock")
		var (
			sent     time.Time
			answered time.Duration
			status   string
		)
		r.during = func() {
			if !waitFile(mark, 30*time.Second) {
				t.Errorf("the ask never reached the picker")
				return
			}
			var err error
			status, answered, err = r.remote("--remote-expr", `luaeval("require('agentls').status()")`)
			if err != nil {
				t.Errorf("nvim --remote-expr while the picker hangs: %v (%s)", err, status)
			}
			sent = time.Now()
			if out, _, err := r.remote("--remote-send", ":AgentCancel<CR>"); err != nil {
				t.Errorf("nvim --remote-send :AgentCancel: %v (%s)", err, out)
			}
		}
		rec := r.nvim("plugin_never.lua")
		exited := time.Since(sent)
		defer r.done()

		if status != "waiting for you" || answered > 2*time.Second {
			r.errorf("while the picker hung, Neovim answered status() = %q after %v; want \"waiting for you\" within 2s", status, answered)
		}
		// The scenario waits 300 ms after the turn's end, then stops the server.
		if exited > 5*time.Second {
			r.errorf(":AgentCancel typed while the picker hung: Neovim was done %v later, want within 5s", exited)
		}
		if len(rec.Selects) != 1 || !strings.Contains(rec.Selects[0].Prompt, "mkdir build") || !pluginInOrder(rec.Selects[0].Titles, "Allow", "Deny") {
			r.errorf("picker calls %+v, want one for the mkdir build ask with Allow … Deny", rec.Selects)
		}
		if rec.str("status_asked") != "waiting for you" || rec.str("status_after") != "idle" || rec.str("status_late") != "idle" {
			r.errorf("status asked / after the cancel / after the late answer = %q / %q / %q, want waiting for you / idle / idle",
				rec.str("status_asked"), rec.str("status_after"), rec.str("status_late"))
		}
		checkTranscript(r, rec.Log, []string{"= → bash mkdir build", "$ ended: cancelled ──"})
		if _, err := os.Stat(filepath.Join(r.root, "build")); err == nil {
			r.errorf("build/ exists: the late picker answer ran the command")
		}
		for _, m := range rec.Messages {
			if strings.HasPrefix(m, "4 ") || strings.Contains(m, "error") {
				r.errorf("an error was shown: %q", m)
			}
		}
	})
}

// :AgentChat, must-show: the question typed in the chat's prompt area and
// sent with <CR>; the agent's plan (todos) shows, its tool calls are
// closed folds that open (<CR>) to their output, and its three-line answer
// streams in — the first line is in the buffer while the model still
// holds the rest — and is complete at the end; a follow-up sent then is
// refused in Neovim's words and stays in the prompt. A grep result goes to the
// quickfix list from the chat. A follow-up goes out in the same session:
// the model sees the first exchange. The person's own AGENTS.md is named
// in the chat (an instructions event). The model has a price: the
// statusline shows the turn's tokens and cost while it runs, and each
// turn ends in the chat with its tokens, its cost and the session's.
func TestNvimPluginChatStreams(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		mark := r.path("streamed")
		r.env["AGENTLS_PLUGIN_MARK"] = mark
		var held time.Duration
		srv := openaitest.New(func(req openaitest.Request) openaitest.Reply {
			tools, users := 0, 0
			for _, m := range req.Messages {
				switch m.Role {
				case "tool":
					tools++
				case "user":
					users++
				}
			}
			switch {
			case users > 1:
				return openaitest.Reply{Parts: []string{"Still hello."}}
			case tools == 0:
				return openaitest.Reply{ToolCalls: []openaitest.ToolCall{
					openaitest.Call("t1", "todos", map[string]any{"todos": []map[string]any{
						{"content": "Read a.txt", "status": "in_progress", "active_form": "Reading a.txt"},
						{"content": "Answer", "status": "pending"}}}),
					openaitest.Call("v1", "view", map[string]any{"file_path": "a.txt"}),
					openaitest.Call("g1", "grep", map[string]any{"pattern": "o"})}}
			}
			return openaitest.Reply{
				Parts: []string{"First line of the answer.\nSecond", " line, streamed.\n", "Third line."},
				BeforePart: func(i int) {
					if i == 2 {
						start := time.Now()
						waitFile(mark, 20*time.Second)
						held = time.Since(start)
					}
				},
			}
		})
		t.Cleanup(srv.Close)
		r.pricedProvider(srv.URL, `{"input":3,"output":15}`)
		// The person's own AGENTS.md: the chat says the model reads it.
		if err := os.WriteFile(r.path("config", "agentls", "AGENTS.md"), []byte("Answer in three lines.\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		rec := r.nvim("plugin_chat.lua")
		defer r.done()

		var got struct {
			Chat struct {
				Name, Filetype, Buftype string
			} `json:"chat"`
			Streaming struct {
				Status     string `json:"status"`
				Statusline string `json:"statusline"`
				HasThird   bool   `json:"has_third"`
			} `json:"streaming"`
			Refused struct {
				Error  string `json:"error"`
				Prompt string `json:"prompt"`
			} `json:"refused"`
			Lines       []string `json:"lines"`
			LinesAfter  []string `json:"lines_after"`
			PromptAfter []string `json:"prompt_after"`
			Fold        struct {
				Row       int      `json:"row"`
				Closed    int      `json:"closed"`
				ClosedEnd int      `json:"closed_end"`
				Opened    int      `json:"opened"`
				Text      string   `json:"text"`
				Body      []string `json:"body"`
			} `json:"fold"`
			QF      []string `json:"qf"`
			Items   []string `json:"items"`
			QFCount int      `json:"qf_count"`
			Chats   int      `json:"chats"`
			Clients int      `json:"clients_on_chat"`
		}
		raw, _ := json.Marshal(rec.Raw)
		if err := json.Unmarshal(raw, &got); err != nil {
			r.fail("record: %v", err)
		}
		if !strings.HasPrefix(got.Chat.Name, "agentls://chat/") || got.Chat.Filetype != "markdown" || got.Chat.Buftype != "nofile" || got.Clients != 0 {
			r.errorf("chat buffer %+v with %d clients, want agentls://chat/…, markdown, nofile, none attached", got.Chat, got.Clients)
		}
		if got.Streaming.HasThird || got.Streaming.Status != "working" || !strings.Contains(got.Streaming.Statusline, "writing the answer") {
			r.errorf("while streaming: third line shown %v, status %q, statusline %q; want the first line alone, working, \"writing the answer\"",
				got.Streaming.HasThird, got.Streaming.Status, got.Streaming.Statusline)
		}
		if !strings.Contains(got.Refused.Error, "already running") || !strings.Contains(got.Refused.Error, ":AgentCancel") ||
			strings.Contains(got.Refused.Error, "agentls.cancel") || got.Refused.Prompt != "too early" {
			r.errorf("a follow-up during the turn: %+v; want it refused naming :AgentCancel, the prompt kept", got.Refused)
		}
		if held <= 0 {
			r.errorf("the model never held its stream for the chat")
		}
		text := strings.Join(got.Lines, "\n")
		answer := "First line of the answer.\nSecond line, streamed.\nThird line."
		if strings.Count(text, answer) != 1 {
			r.errorf("the chat does not hold the three-line answer once:\n%s", text)
		}
		for _, want := range []string{"## You", "What does a.txt say?", "## agentls", "## Todos  (0/2: Reading a.txt)",
			"- [-] Read a.txt  ← Reading a.txt", "- [ ] Answer", "▸ view a.txt — ok", "▸ todos", "_project instructions: your AGENTS.md_"} {
			if !strings.Contains(text, want) {
				r.errorf("the chat lacks %q:\n%s", want, text)
			}
		}
		if strings.Join(got.PromptAfter, "|") != "" {
			r.errorf("prompt area after sending = %q, want it empty", got.PromptAfter)
		}
		if got.Fold.Closed != got.Fold.Row || got.Fold.ClosedEnd <= got.Fold.Row || got.Fold.Opened != -1 ||
			!strings.HasPrefix(got.Fold.Text, "▸ view a.txt — ok") || !strings.Contains(strings.Join(got.Fold.Body, "\n"), "hello world") {
			r.errorf("tool call fold %+v: want closed at its header, showing the header, opened by <CR> to the output (hello world)", got.Fold)
		}
		if got.QFCount != 2 || strings.Join(got.QF, "|") != "a.txt:1:hello world|a.txt:2:second line" {
			r.errorf(":AgentQuickfix on the grep call: %d items %q, want a.txt:1 and a.txt:2", got.QFCount, got.QF)
		}
		if items := strings.Join(got.Items, "|"); items != "a.txt:1:3:E:bad thing|a.txt:2:1::second line" {
			r.errorf("quickfix items of a diagnostics and a references result = %q", items)
		}
		after := strings.Join(got.LinesAfter, "\n")
		if !strings.Contains(after, "And now?") || !strings.Contains(after, "Still hello.") || !strings.Contains(after, answer) || got.Chats != 1 {
			r.errorf("after the follow-up (%d chats) the chat holds:\n%s", got.Chats, after)
		}
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		if !strings.Contains(last.Text(), "Third line.") || !strings.Contains(last.Text(), "And now?") {
			r.errorf("the follow-up's request lacks the first answer or the question: the session did not carry over\n%s", last.Text())
		}
		// Tokens and cost: $3 a million in, $15 out, for what the server billed.
		if !regexp.MustCompile(` · [0-9.]+k? tokens · \$[0-9.]+$`).MatchString(got.Streaming.Statusline) {
			r.errorf("statusline while streaming %q, want the turn's tokens and cost at its end", got.Streaming.Statusline)
		}
		usageLine := regexp.MustCompile(`^_[0-9,]+ tokens in, [0-9,]+ out · \$[0-9.]+ \(session (\$[0-9.]+)\)_$`)
		var ends []string
		for _, l := range got.LinesAfter {
			if m := usageLine.FindStringSubmatch(l); m != nil {
				ends = append(ends, m[1])
			}
		}
		billed := srv.Usage()
		session := agent.FormatCost((float64(billed.Input)*3 + float64(billed.Output)*15) / 1e6)
		if len(ends) != 2 || ends[1] != session {
			r.errorf("the chat's turn usage lines give the session's cost %q, want two turns, the last at %s (billed %+v):\n%s",
				ends, session, billed, after)
		}
	})
}

// Code actions from vim.lsp.buf: agentls's come first; "Ask agent about
// selection…" asks for your question and sends it with the selection, and
// "Fix with agent: check this line" (offered with no other server's
// diagnostics) shows its prompt, sent once you confirm it, with the
// cursor's line as its context (not an empty selection).
func TestNvimPluginCodeActions(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		model := &recordingModel{}
		srv := httptest.NewServer(model)
		t.Cleanup(srv.Close)
		r.provider(srv.URL + "/v1")
		r.env["AGENTLS_PLUGIN_ANSWERS"] = "Ask agent about selection…,Fix with agent: check this line"
		r.env["AGENTLS_PLUGIN_INPUTS"] = "why is this here?,<default>"
		rec := r.nvim("plugin_actions.lua")
		defer r.done()

		if len(rec.Selects) != 2 {
			r.fail("code action pickers %+v, want two", rec.Selects)
		}
		for i, s := range rec.Selects {
			if len(s.Titles) == 0 || !strings.HasPrefix(s.Titles[0], "Ask agent about") {
				r.errorf("code action %d offers %q: want agentls's Ask agent first", i+1, s.Titles)
			}
		}
		var inputs []struct {
			Prompt  string `json:"prompt"`
			Default string `json:"default"`
		}
		json.Unmarshal(rec.Raw["inputs"], &inputs)
		if len(inputs) != 2 || inputs[0].Default != "" || !strings.Contains(inputs[0].Prompt, "your question") ||
			!strings.HasPrefix(inputs[1].Default, "Check a.txt around line 2") {
			r.errorf("vim.ui.input calls %+v: want your question asked (no default), then the fix's prompt shown as the default", inputs)
		}
		model.mu.Lock()
		got := append([]string(nil), model.users...)
		model.mu.Unlock()
		if len(got) != 2 || !strings.HasPrefix(got[0], "why is this here?\n\nThe user is in a.txt with lines 1-1 selected") ||
			!strings.HasPrefix(got[1], "Check a.txt around line 2") {
			r.errorf("the agent was told %q", got)
		}
		// The check was asked on a plain cursor line (no selection): the
		// agent is told the line and its text, never "lines 2-2 selected"
		// over an empty block (issue 27).
		if len(got) == 2 && (!strings.HasSuffix(got[1], "\n\nThe user is in a.txt at line 2:\n```\nsecond line\n```") ||
			strings.Contains(got[1], "selected")) {
			r.errorf("the check on the cursor's line told the agent\n%s\nwant it to end with the line: The user is in a.txt at line 2:\n```\nsecond line\n```", got[1])
		}
		checkTranscript(r, rec.Log, []string{"= you: why is this here?  [a.txt:1-1]", "^you: Check a.txt around line 2"})
	})
}

// With Neovim's own vim.ui.select (inputlist(), which would take every
// key until answered) an ask shows in a float of the plugin's: focused,
// no file, the message and numbered choices. 1<CR>, typed, allows the
// command.
func TestNvimPluginAskFloat(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.commandModel("mkdir build")
		r.env["AGENTLS_PLUGIN_NO_STUB"] = "1"
		rec := r.nvim("plugin_float.lua")
		defer r.done()

		var float struct {
			Focused bool     `json:"focused"`
			Buftype string   `json:"buftype"`
			Lines   []string `json:"lines"`
		}
		json.Unmarshal(rec.Raw["float"], &float)
		text := strings.Join(float.Lines, "\n")
		if !float.Focused || // the scenario is in Normal mode
			float.Buftype != "nofile" || !strings.Contains(text, "mkdir build") || !strings.Contains(text, "1 Allow") ||
			!strings.Contains(text, "q: dismiss") || rec.str("status_asked") != "waiting for you" {
			r.errorf("the ask float: focused %v, buftype %q, status %q, text\n%s", float.Focused, float.Buftype, rec.str("status_asked"), text)
		}
		if st, err := os.Stat(filepath.Join(r.root, "build")); err != nil || !st.IsDir() {
			r.errorf("build/ was not made after 1 (Allow) was typed: %v", err)
		}
		if string(rec.Raw["floats_after"]) != "0" {
			r.errorf("%s floats open after the answer, want none", rec.Raw["floats_after"])
		}
		checkTranscript(r, rec.Log, []string{"= → bash mkdir build", "^  allowed bash", "$ ended: completed ──"})
	})
}

// :AgentCancel typed while a review is open (on 0.7 the review's wait
// reads the command line) ends the turn: the review window closes and
// nothing is applied.
func TestNvimPluginReviewCancel(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.replay(pluginScript)
		rec := r.nvim("plugin_review_cancel.lua")
		defer r.done()
		if string(rec.Raw["reviews"]) != "1" || rec.TextAfter != strings.TrimSuffix(pluginFile, "\n") || len(rec.WindowsAfter) != 1 {
			r.errorf("reviews %s, a.txt %q, windows %+v; want one review, a.txt unchanged, only its window left",
				rec.Raw["reviews"], rec.TextAfter, rec.WindowsAfter)
		}
		checkTranscript(r, rec.Log, []string{"= → edit a.txt", "$ ended: cancelled ──"})
	})
}

// Messages in Neovim's words: with no model configured, :AgentAsk's
// error names setup{model = …} (not --model or initializationOptions);
// :AgentRevert with nothing to revert says "revert:" once.
func TestNvimPluginNeovimWording(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		rec := r.nvim("plugin_wording.lua")
		defer r.done()
		if len(rec.Messages) != 2 {
			r.fail("messages %q, want two (the ask's, the revert's)", rec.Messages)
		}
		ask, revert := rec.Messages[0], rec.Messages[1]
		if !strings.Contains(ask, "no model configured") || !strings.Contains(ask, "require('agentls').setup{") ||
			strings.Contains(ask, "--model") || strings.Contains(ask, "initializationOptions") {
			r.errorf(":AgentAsk without a model said %q; want it to name setup{model = …} and neither --model nor initializationOptions", ask)
		}
		if !strings.HasPrefix(revert, "agentls: revert: ") || strings.Count(revert, "revert:") != 1 || strings.Contains(revert, "agentls.revertTurn") {
			r.errorf(":AgentRevert with nothing to revert said %q; want \"agentls: revert: …\" once, no protocol names", revert)
		}
	})
}

// The notification at a turn's end (vim.notify, the server's
// window/showMessage) is the answer's first plain line: an answer that
// begins with a Markdown heading ("## Done") is notified by its first line
// of prose, never as "agentls: ## Done" (issue 27).
func TestNvimPluginTurnNotification(t *testing.T) {
	eachNvim(t, func(t *testing.T) {
		r := newFileRun(t)
		r.replay(`{"turns":[{"text":"## Done\n\n- a.txt greets agentls now.\n- Nothing else changed."}]}`)
		rec := r.nvim("plugin_notify.lua")
		defer r.done()
		var closing []string
		for _, m := range rec.Messages {
			if strings.HasPrefix(m, "agentls: ") {
				closing = append(closing, m)
			}
		}
		if len(closing) != 1 || closing[0] != "agentls: a.txt greets agentls now." {
			r.errorf("notifications after the turn %q, want one: %q (the answer's first plain line, no heading or list marker)",
				closing, "agentls: a.txt greets agentls now.")
		}
		for _, m := range rec.Messages {
			if strings.Contains(m, "##") {
				r.errorf("a notification shows a Markdown heading marker: %q", m)
			}
		}
	})
}
