//go:build unix

// Package emacs_test runs agentls inside a real Emacs: Emacs 28 with eglot
// 1.9 (Debian's emacs-nox and elpa-eglot), in batch mode, starts `agentls
// serve --stdio` through eglot with the configuration documented in
// docs/editors/emacs.md (loaded verbatim), asks with a replay model that
// views then edits a file, and answers the permission ask through eglot's
// own window/showMessageRequest handler (its completing-read is the one
// stub, the prompt UI). When Emacs or eglot is missing the test installs
// them with install-emacs.sh (as root, with apt-get); it fails, never
// skips, when that is impossible.
//
// Run: go test ./editors/emacs/ -count=1 -v
package emacs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// emacsTimeout bounds one Emacs run; the elisp waits are shorter.
const emacsTimeout = 60 * time.Second

// binaryEnv names a prebuilt agentls binary to test instead of building one.
const binaryEnv = "AGENTLS_EMACS_E2E_BIN"

const installHint = "install Emacs with eglot: sudo apt-get install -y --no-install-recommends emacs-nox elpa-eglot " +
	"(or run editors/emacs/install-emacs.sh as root)"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error

	emacsOnce sync.Once
	emacsBin  string
	emacsErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// agentlsDir builds agentls once per test process into a directory that
// the test puts first on PATH: the documented configuration starts
// "agentls" by name.
func agentlsDir(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(binaryEnv); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(abs) != "agentls" {
			t.Fatalf("$%s = %s: the binary must be named agentls (it is started by name)", binaryEnv, p)
		}
		return filepath.Dir(abs)
	}
	buildOnce.Do(func() {
		if bin := os.Getenv("AGENTLS_TEST_BIN"); bin != "" {
			// scripts/test built the program once for every end-to-end test
			// (under another name: a folder of its own holds it as agentls).
			binDir, buildErr = os.MkdirTemp("", "agentls-emacs-e2e-")
			if buildErr == nil {
				buildErr = os.Symlink(bin, filepath.Join(binDir, "agentls"))
			}
			return
		}
		goCmd, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("the go command is needed to build agentls: %w", err)
			return
		}
		binDir, err = os.MkdirTemp("", "agentls-emacs-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		cmd := exec.Command(goCmd, "build", "-o", filepath.Join(binDir, "agentls"), "github.com/agentls/agentls/cmd/agentls")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build agentls: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// eglotWorks reports why `emacs --batch` cannot load eglot, or "" when it
// can. Debian's elpa-eglot is on the load path through site-start, which
// --batch loads (-Q would not).
func eglotWorks(emacs string) string {
	if emacs == "" {
		return "emacs is not on PATH"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, emacs, "--batch", "-q", "--eval",
		`(progn (require 'eglot) (princ (format "eglot-ok %s" emacs-version)))`).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("eglot-ok")) {
		return fmt.Sprintf("emacs cannot load eglot (%v): %s", err, tail(string(out), 500))
	}
	return ""
}

// emacsPath finds Emacs with eglot, installing both with install-emacs.sh
// when they are missing; it fails the test with the install hint when that
// does not work.
func emacsPath(t *testing.T) string {
	t.Helper()
	emacsOnce.Do(func() {
		find := func() (string, string) {
			p, _ := exec.LookPath("emacs")
			return p, eglotWorks(p)
		}
		p, why := find()
		if why == "" {
			emacsBin = p
			return
		}
		script, err := filepath.Abs("install-emacs.sh")
		if err != nil {
			emacsErr = err
			return
		}
		t.Logf("%s; installing with %s", why, script)
		start := time.Now()
		out, err := exec.Command("sh", script).CombinedOutput()
		t.Logf("install-emacs.sh: %v (%v)\n%s", err, time.Since(start).Round(time.Second), tail(string(out), 2000))
		if p, why = find(); why != "" {
			emacsErr = fmt.Errorf("%s, and installing failed (%v): %s", why, err, installHint)
			return
		}
		emacsBin = p
	})
	if emacsErr != nil {
		t.Fatal(emacsErr)
	}
	return emacsBin
}

// docConfig returns the first ```elisp block of docs/editors/emacs.md: the
// configuration people copy is the one tested.
func docConfig(t *testing.T) string {
	t.Helper()
	const doc = "../../docs/editors/emacs.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatalf("read the documented configuration: %v", err)
	}
	_, rest, ok := strings.Cut(string(data), "\n```elisp\n")
	if !ok {
		t.Fatalf("%s has no ```elisp block", doc)
	}
	block, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatalf("%s: the ```elisp block does not end", doc)
	}
	return block + "\n"
}

// driver is the batch script: it loads the documented configuration
// ($AGENTLS_EMACS_CONFIG), stubs the prompt UI, visits the file, starts
// eglot, runs M-x agentls-ask (or picks "Ask agent about selection…" in M-x
// eglot-code-actions), waits for the turn's end in *agentls*,
// runs M-x agentls-revert, shuts eglot down and writes a JSON record to
// $AGENTLS_E2E_RESULT.
const driver = `;;; driver.el --- agentls eglot end-to-end test  -*- lexical-binding: t -*-
(require 'json)
(require 'seq)
(require 'subr-x)
(setq debug-on-error nil)

(defvar agentls-test-t0 (float-time))
(defvar agentls-test-record nil)
(defvar agentls-test-steps nil)
(defvar agentls-test-asks nil)
(defvar agentls-test-confirms nil)
(defvar agentls-test-server nil)

(defun agentls-test-put (key value)
  (setf (alist-get key agentls-test-record) value))

(defun agentls-test-step (what)
  (push (format "%dms %s" (round (* 1000 (- (float-time) agentls-test-t0))) what) agentls-test-steps))

(defun agentls-test-wait (what seconds pred)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (error "Timed out after %ss waiting for %s" seconds what))
    (agentls-test-step what)))

(defun agentls-test-disk (path)
  (when (file-exists-p path)
    (with-temp-buffer
      (let ((coding-system-for-read 'utf-8-unix))
        (insert-file-contents path))
      (buffer-string))))

(defun agentls-test-write (err)
  (agentls-test-put 'steps (vconcat (reverse agentls-test-steps)))
  (agentls-test-put 'asks (vconcat (reverse agentls-test-asks)))
  (agentls-test-put 'confirms (vconcat (reverse agentls-test-confirms)))
  (when (get-buffer "*agentls*")
    (agentls-test-put 'transcript (with-current-buffer "*agentls*" (buffer-string))))
  (when err
    (agentls-test-put 'error err)
    (when agentls-test-server
      (agentls-test-put 'events (with-current-buffer (jsonrpc-events-buffer agentls-test-server)
                                  (buffer-string)))))
  (let ((coding-system-for-write 'utf-8-unix))
    (with-temp-file (getenv "AGENTLS_E2E_RESULT")
      (insert (json-encode agentls-test-record)))))

;; The prompt UI, stubbed: eglot shows window/showMessageRequest (and its
;; code-action menu) with completing-read; pick the first of the
;; comma-separated $AGENTLS_E2E_ANSWERS that is offered (none: dismissed)
;; and record what was offered. y-or-n-p / yes-or-no-p would be eglot's own
;; edit confirmation, which the documented configuration turns off: record any.
(advice-add 'completing-read :override
            (lambda (prompt collection &rest _)
              (let ((offered (all-completions "" collection)))
                (push (list (cons 'prompt prompt) (cons 'titles (vconcat offered)))
                      agentls-test-asks)
                (or (seq-find (lambda (a) (member a offered))
                              (split-string (getenv "AGENTLS_E2E_ANSWERS") ","))
                    ""))))
(advice-add 'y-or-n-p :override (lambda (prompt) (push prompt agentls-test-confirms) t))
(advice-add 'yes-or-no-p :override (lambda (prompt) (push prompt agentls-test-confirms) t))

(condition-case err
    (let ((path (getenv "AGENTLS_E2E_FILE")))
      (load (getenv "AGENTLS_EMACS_CONFIG") nil t)
      (agentls-test-step "configuration loaded")
      (agentls-test-put 'eglot (locate-library "eglot"))
      (agentls-test-put 'emacs emacs-version)
      (find-file path)
      (agentls-test-put 'mode (symbol-name major-mode))
      (agentls-test-put 'text_before (buffer-string))
      (apply #'eglot (eglot--guess-contact))
      (agentls-test-wait "eglot manages the buffer" 15 #'eglot-managed-p)
      (let* ((server (eglot--current-server-or-lose))
             (caps (eglot--capabilities server)))
        (setq agentls-test-server server)
        (agentls-test-put 'server_pid (process-id (jsonrpc--process server)))
        (agentls-test-put 'server_name (plist-get (eglot--server-info server) :name))
        (agentls-test-put 'commands (plist-get (plist-get caps :executeCommandProvider) :commands))
        (if (equal (getenv "AGENTLS_E2E_VIA") "code-action")
            ;; M-x eglot-code-actions on line 1 ("Ask agent about selection…").
            ;; A non-list last-nonmenu-event makes eglot read with
            ;; completing-read, as after a key sequence, not with a mouse menu.
            (let ((last-nonmenu-event ?a))
              (goto-char (point-min))
              (eglot-code-actions (point-min) (line-end-position) nil t))
          (agentls-ask (getenv "AGENTLS_E2E_PROMPT")))
        (agentls-test-wait "agentls.ask reply" 10
                           (lambda () (equal (car agentls-last-result) "agentls.ask")))
        (agentls-test-put 'turn_id (plist-get (cdr agentls-last-result) :turnId))
        (agentls-test-wait "turn_end in *agentls*" 20
                           (lambda () (with-current-buffer (get-buffer-create "*agentls*")
                                        (string-match-p " ended: " (buffer-string)))))
        (agentls-test-put 'text_after (buffer-string))
        (agentls-test-put 'modified_after (buffer-modified-p))
        (agentls-test-put 'disk_after (agentls-test-disk path))
        (when (equal (getenv "AGENTLS_E2E_REVERT") "1")
          (agentls-revert)
          (agentls-test-wait "agentls.revertTurn reply" 10
                             (lambda () (equal (car agentls-last-result) "agentls.revertTurn")))
          (agentls-test-put 'text_reverted (buffer-string))
          (agentls-test-put 'modified_reverted (buffer-modified-p))
          (agentls-test-put 'disk_reverted (agentls-test-disk path)))
        (eglot-shutdown server)
        (agentls-test-step "eglot-shutdown")
        (agentls-test-put 'server_exit (process-exit-status (jsonrpc--process server))))
      (agentls-test-write nil)
      (kill-emacs 0))
  (error
   (agentls-test-write (error-message-string err))
   (kill-emacs 1)))
`

// record is what driver.el writes.
type record struct {
	Error      string   `json:"error"`
	Steps      []string `json:"steps"`
	Emacs      string   `json:"emacs"`
	Eglot      string   `json:"eglot"`
	Mode       string   `json:"mode"`
	ServerPID  int      `json:"server_pid"`
	ServerName string   `json:"server_name"`
	ServerExit *int     `json:"server_exit"`
	Commands   []string `json:"commands"`
	TurnID     string   `json:"turn_id"`
	Asks       []struct {
		Prompt string   `json:"prompt"`
		Titles []string `json:"titles"`
	} `json:"asks"`
	Confirms     []string `json:"confirms"`
	TextBefore   string   `json:"text_before"`
	TextAfter    string   `json:"text_after"`
	ModAfter     bool     `json:"modified_after"`
	DiskAfter    *string  `json:"disk_after"`
	TextReverted string   `json:"text_reverted"`
	ModReverted  bool     `json:"modified_reverted"`
	DiskReverted *string  `json:"disk_reverted"`
	Transcript   string   `json:"transcript"`
	// On failure: eglot's events buffer (the JSON-RPC traffic).
	Events string `json:"events"`
}

const (
	fileText   = "hello world\nsecond line\n"
	editedText = "hello agentls\nsecond line\n"
	askMessage = "agentls wants to edit a.txt (+1 −1)"
	script     = `{"turns":[
		{"text":"Looking at a.txt.","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}}]},
		{"text":"Changing the greeting.","tool_calls":[{"name":"edit","input":{"file_path":"a.txt","old_string":"hello world","new_string":"hello agentls"}}]},
		{"text":"Done: a.txt greets agentls."}]}`
)

// emacsRun says how driver.el runs: answers are the titles completing-read
// picks, in order of preference; via is "command" (M-x agentls-ask) or
// "code-action" (M-x eglot-code-actions); revert runs M-x agentls-revert
// after the turn.
type emacsRun struct {
	answers []string
	via     string
	revert  bool
}

// runEmacs runs driver.el in `emacs --batch` on a workspace holding a.txt.
func runEmacs(t *testing.T, how emacsRun) *record {
	t.Helper()
	emacs := emacsPath(t)
	bin := agentlsDir(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "workspace")
	for _, d := range []string{"workspace", "home", "config", "state", "data", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "a.txt"), fileText)
	write(filepath.Join(dir, "replay.json"), script)
	write(filepath.Join(dir, "agentls-config.el"), ";;; -*- lexical-binding: t -*-\n"+docConfig(t))
	write(filepath.Join(dir, "driver.el"), driver)
	result := filepath.Join(dir, "result.json")
	env := map[string]string{
		"HOME":                 filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":      filepath.Join(dir, "config"),
		"XDG_STATE_HOME":       filepath.Join(dir, "state"),
		"XDG_DATA_HOME":        filepath.Join(dir, "data"),
		"XDG_CACHE_HOME":       filepath.Join(dir, "cache"),
		"PATH":                 bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"AGENTLS_MODEL":        "replay:" + filepath.Join(dir, "replay.json"),
		"AGENTLS_EMACS_CONFIG": filepath.Join(dir, "agentls-config.el"),
		"AGENTLS_E2E_FILE":     filepath.Join(root, "a.txt"),
		"AGENTLS_E2E_PROMPT":   "greet agentls",
		"AGENTLS_E2E_ANSWERS":  strings.Join(how.answers, ","),
		"AGENTLS_E2E_VIA":      how.via,
		"AGENTLS_E2E_RESULT":   result,
		"AGENTLS_E2E_REVERT":   map[bool]string{true: "1", false: ""}[how.revert],
	}
	ctx, cancel := context.WithTimeout(context.Background(), emacsTimeout)
	defer cancel()
	var output bytes.Buffer
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-q", "-l", filepath.Join(dir, "driver.el"))
	cmd.Dir = root
	cmd.Env = mergeEnv(os.Environ(), env)
	cmd.Stdout = &output
	cmd.Stderr = &output
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("emacs --batch: %v", time.Since(start).Round(time.Millisecond))

	var rec record
	fail := func(format string, args ...any) {
		t.Helper()
		var b strings.Builder
		fmt.Fprintf(&b, format, args...)
		fmt.Fprintf(&b, "\n--- steps:\n  %s", strings.Join(rec.Steps, "\n  "))
		fmt.Fprintf(&b, "\n--- *agentls*:\n%s", rec.Transcript)
		fmt.Fprintf(&b, "\n--- emacs output:\n%s", tail(output.String(), 6000))
		if rec.Events != "" {
			fmt.Fprintf(&b, "\n--- eglot events buffer:\n%s", tail(rec.Events, 8000))
		}
		if log, err := os.ReadFile(filepath.Join(dir, "state", "agentls", "agentls.log")); err == nil {
			fmt.Fprintf(&b, "\n--- agentls.log:\n%s", tail(string(log), 6000))
		}
		t.Fatal(b.String())
	}
	data, readErr := os.ReadFile(result)
	if readErr == nil {
		if err := json.Unmarshal(data, &rec); err != nil {
			fail("result is not a record: %v\n%s", err, data)
		}
	}
	switch {
	case ctx.Err() != nil:
		fail("emacs did not finish within %v", emacsTimeout)
	case rec.Error != "":
		fail("the elisp driver failed: %s", rec.Error)
	case runErr != nil:
		fail("emacs: %v", runErr)
	case readErr != nil:
		fail("no result: %v", readErr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("steps:\n  %s\n*agentls*:\n%s\nemacs output:\n%s", strings.Join(rec.Steps, "\n  "), rec.Transcript, tail(output.String(), 4000))
		}
	})
	if rec.ServerPID > 0 && aliveAfter(rec.ServerPID, 5*time.Second) {
		t.Errorf("orphan: server pid %d still running after Emacs quit", rec.ServerPID)
	}
	return &rec
}

// checkCommon checks the connection and the one permission ask, shown by
// eglot's own handler with the server's actions.
func checkCommon(t *testing.T, rec *record) {
	t.Helper()
	if rec.ServerName != "agentls" || !contains(rec.Commands, "agentls.ask") {
		t.Errorf("eglot connected to %q with commands %v, want agentls offering agentls.ask", rec.ServerName, rec.Commands)
	}
	if rec.TurnID == "" {
		t.Errorf("agentls-ask returned no turnId")
	}
	var asks []int
	for i, a := range rec.Asks {
		if contains(a.Titles, "Allow") {
			asks = append(asks, i)
		}
	}
	if len(asks) != 1 {
		t.Errorf("completing-read offered Allow %d times, want once (the permission ask): %+v", len(asks), rec.Asks)
	} else {
		a := rec.Asks[asks[0]]
		// The server may add titles (Allow … this session); these three stay.
		if !inOrder(a.Titles, "Allow", "Deny", "Show diff") || !strings.Contains(a.Prompt, askMessage) {
			t.Errorf("eglot asked %q with choices %q; want the server's message %q and actions [Allow, Deny, Show diff]",
				a.Prompt, a.Titles, askMessage)
		}
	}
	if len(rec.Confirms) != 0 {
		t.Errorf("eglot asked for confirmation %q: the documented eglot-confirm-server-initiated-edits nil should prevent it", rec.Confirms)
	}
}

// Allow: the edit lands in the buffer, and — with the documented
// saveDocument handler, the buffer being clean — on disk; the *agentls*
// transcript shows the tool calls, the diff and the end; M-x agentls-revert
// restores buffer and disk.
func TestEglotAskEditAllowRevert(t *testing.T) {
	rec := runEmacs(t, emacsRun{answers: []string{"Allow"}, via: "command", revert: true})
	t.Logf("Emacs %s, %s, %s; server exit status after eglot-shutdown: %v", rec.Emacs, rec.Eglot, rec.Mode, quoteInt(rec.ServerExit))
	checkCommon(t, rec)
	if rec.TextBefore != fileText {
		t.Errorf("buffer before = %q, want %q", rec.TextBefore, fileText)
	}
	if rec.TextAfter != editedText {
		t.Errorf("buffer after the turn = %q, want %q", rec.TextAfter, editedText)
	}
	if rec.ModAfter || rec.DiskAfter == nil || *rec.DiskAfter != editedText {
		t.Errorf("after the turn: buffer modified=%v, disk %s; want saved, disk %q", rec.ModAfter, quote(rec.DiskAfter), editedText)
	}
	for _, want := range []string{
		"agent: Looking at a.txt.\n→ view a.txt\n",
		"→ edit a.txt\n  allowed edit ",
		"← edit: ok\n",
		"    -hello world\n    +hello agentls\n",
		"agent: Done: a.txt greets agentls.\n",
		" ended: completed ──\n",
	} {
		if !strings.Contains(rec.Transcript, want) {
			t.Errorf("*agentls* lacks %q:\n%s", want, rec.Transcript)
		}
	}
	if rec.TextReverted != fileText || rec.ModReverted || rec.DiskReverted == nil || *rec.DiskReverted != fileText {
		t.Errorf("after M-x agentls-revert: buffer %q (modified %v), disk %s; want the original everywhere",
			rec.TextReverted, rec.ModReverted, quote(rec.DiskReverted))
	}
}

// Deny: nothing changes, and the turn ends as denied.
func TestEglotAskEditDeny(t *testing.T) {
	rec := runEmacs(t, emacsRun{answers: []string{"Deny"}, via: "command"})
	checkCommon(t, rec)
	if rec.TextAfter != fileText || rec.ModAfter || rec.DiskAfter == nil || *rec.DiskAfter != fileText {
		t.Errorf("after Deny: buffer %q (modified %v), disk %s; want the original, unmodified", rec.TextAfter, rec.ModAfter, quote(rec.DiskAfter))
	}
	if !strings.Contains(rec.Transcript, "  denied edit ") || !strings.Contains(rec.Transcript, " ended: denied ──") {
		t.Errorf("*agentls* does not show the deny:\n%s", rec.Transcript)
	}
}

// The ask started from a code action ("Ask agent about selection…", run by
// eglot's own M-x eglot-code-actions): the documented configuration makes
// it asynchronous, so the turn's messages are read at once and the edit
// lands. (With eglot's synchronous executeCommand, Emacs 28's jsonrpc can
// leave them unread until the server writes again: a fast turn then shows
// nothing and an ask is never seen.)
func TestEglotCodeActionAsk(t *testing.T) {
	rec := runEmacs(t, emacsRun{answers: []string{"Ask agent about selection…", "Allow"}, via: "code-action"})
	checkCommon(t, rec)
	if len(rec.Asks) == 0 || !contains(rec.Asks[0].Titles, "Ask agent about selection…") {
		t.Errorf("eglot-code-actions offered %+v, want \"Ask agent about selection\"", rec.Asks)
	}
	if rec.TextAfter != editedText || rec.DiskAfter == nil || *rec.DiskAfter != editedText {
		t.Errorf("after the code action's turn: buffer %q, disk %s; want %q in both", rec.TextAfter, quote(rec.DiskAfter), editedText)
	}
	if !strings.Contains(rec.Transcript, " ended: completed ──") {
		t.Errorf("*agentls* does not show the end of the turn:\n%s", rec.Transcript)
	}
}

func aliveAfter(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		alive := syscall.Kill(pid, 0) == nil
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); alive && err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
				alive = false
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

// inOrder reports whether list holds want as a subsequence.
func inOrder(list []string, want ...string) bool {
	i := 0
	for _, s := range list {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	return i == len(want)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteInt(n *int) string {
	if n == nil {
		return "<none>"
	}
	return fmt.Sprint(*n)
}

func quote(s *string) string {
	if s == nil {
		return "<no file>"
	}
	return fmt.Sprintf("%q", *s)
}

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

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
