//go:build unix

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
	"testing"
	"time"
)

// wrapDriver runs eglot with the documented one-entry configuration
// (`agentls serve --stdio --wrap gopls` for go-mode) on a Go file with an
// unused import: it waits for gopls's diagnostic in flymake, asks for
// hover, lists the code actions at the diagnostic, runs agentls's "Fix
// with agent: …" through eglot's own M-x eglot-code-actions, waits for
// the turn's end in *agentls*, shuts eglot down and writes a JSON record.
// Emacs 28 has no go-mode: a stand-in major mode is defined first.
const wrapDriver = `;;; wrapdriver.el --- agentls --wrap gopls through eglot  -*- lexical-binding: t -*-
(require 'json)
(require 'seq)
(require 'subr-x)
(require 'flymake)

(defvar agentls-test-t0 (float-time))
(defvar agentls-test-record nil)
(defvar agentls-test-steps nil)
(defvar agentls-test-offered nil)
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

(defun agentls-test-write (err)
  (agentls-test-put 'steps (vconcat (reverse agentls-test-steps)))
  (agentls-test-put 'offered (vconcat agentls-test-offered))
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

;; eglot's code-action menu reads with completing-read: record what it
;; offers and pick agentls's "Fix with agent: …".
(advice-add 'completing-read :override
            (lambda (_prompt collection &rest _)
              (let ((offered (all-completions "" collection)))
                (setq agentls-test-offered offered)
                (or (seq-find (lambda (a) (string-prefix-p "Fix with agent: " a)) offered) ""))))

(unless (fboundp 'go-mode)
  (define-derived-mode go-mode prog-mode "Go" "A stand-in for go-mode (Emacs 28 has none)."))
(add-to-list 'auto-mode-alist '("\\.go\\'" . go-mode))

(defun agentls-test-diags ()
  (flymake-diagnostics (point-min) (point-max)))

(condition-case err
    (let ((path (getenv "AGENTLS_E2E_FILE")))
      (dolist (config (split-string (getenv "AGENTLS_EMACS_CONFIGS") ":"))
        (load config nil t))
      (agentls-test-step "configuration loaded")
      (find-file path)
      (agentls-test-put 'mode (symbol-name major-mode))
      (apply #'eglot (eglot--guess-contact))
      (agentls-test-wait "eglot manages the buffer" 30 #'eglot-managed-p)
      (let* ((server (eglot--current-server-or-lose))
             (caps (eglot--capabilities server)))
        (setq agentls-test-server server)
        (agentls-test-put 'server_pid (process-id (jsonrpc--process server)))
        (agentls-test-put 'server_name (plist-get (eglot--server-info server) :name))
        (agentls-test-put 'command (vconcat (process-command (jsonrpc--process server))))
        (agentls-test-put 'commands (plist-get (plist-get caps :executeCommandProvider) :commands))
        ;; gopls's diagnostic reaches flymake (batch Emacs runs no idle
        ;; timers: start flymake by hand while waiting).
        (agentls-test-wait "gopls's diagnostic in flymake" 60
                           (lambda () (flymake-start) (agentls-test-diags)))
        (let ((diag (car (agentls-test-diags))))
          (agentls-test-put 'diagnostics (vconcat (mapcar #'flymake-diagnostic-text (agentls-test-diags))))
          ;; Hover on Println: gopls's answer through agentls.
          (goto-char (point-min))
          (search-forward "Println")
          (agentls-test-put 'hover
                            (plist-get (plist-get (jsonrpc-request server :textDocument/hover
                                                                   (eglot--TextDocumentPositionParams))
                                                  :contents)
                                       :value))
          ;; M-x eglot-code-actions on the diagnostic (a non-list
          ;; last-nonmenu-event: completing-read, not a mouse menu).
          (let ((last-nonmenu-event ?a))
            (eglot-code-actions (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag) nil t)))
        (agentls-test-wait "agentls.ask reply" 20
                           (lambda () (equal (car agentls-last-result) "agentls.ask")))
        (agentls-test-wait "turn_end in *agentls*" 30
                           (lambda () (with-current-buffer (get-buffer-create "*agentls*")
                                        (string-match-p " ended: " (buffer-string)))))
        ;; gopls takes over a second to answer shutdown (directly too),
        ;; more than eglot's default 1.5 s.
        (eglot-shutdown server nil 10)
        (agentls-test-step "eglot-shutdown")
        (agentls-test-put 'server_exit (process-exit-status (jsonrpc--process server))))
      (agentls-test-write nil)
      (kill-emacs 0))
  (error
   (agentls-test-write (error-message-string err))
   (kill-emacs 1)))
`

// wrapRecord is what wrapDriver writes.
type wrapRecord struct {
	Error       string   `json:"error"`
	Steps       []string `json:"steps"`
	Mode        string   `json:"mode"`
	ServerPID   int      `json:"server_pid"`
	ServerName  string   `json:"server_name"`
	Command     []string `json:"command"`
	Commands    []string `json:"commands"`
	Diagnostics []string `json:"diagnostics"`
	Hover       string   `json:"hover"`
	Offered     []string `json:"offered"`
	ServerExit  *int     `json:"server_exit"`
	Transcript  string   `json:"transcript"`
	Events      string   `json:"events"`
}

// docBlockAfter returns the first ```elisp block of docs/editors/emacs.md
// after the heading that starts with heading.
func docBlockAfter(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../../docs/editors/emacs.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n"+heading)
	if !ok {
		t.Fatalf("docs/editors/emacs.md has no heading %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "\n```elisp\n")
	if !ok {
		t.Fatalf("docs/editors/emacs.md: no ```elisp block after %q", heading)
	}
	block, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatalf("docs/editors/emacs.md: the ```elisp block after %q does not end", heading)
	}
	return block + "\n"
}

// TestEglotOneEntryWrapsGopls: one eglot server entry, `agentls serve
// --stdio --wrap gopls`, gives a Go buffer gopls's diagnostics (flymake)
// and hover, and code actions that hold gopls's fix and agentls's "Fix
// with agent"; picking the latter in eglot's menu starts an agent turn,
// which ends; eglot-shutdown ends agentls (and gopls) with status 0.
func TestEglotOneEntryWrapsGopls(t *testing.T) {
	emacs := emacsPath(t)
	bin := agentlsDir(t)
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		if gp, gerr := exec.Command("go", "env", "GOPATH").Output(); gerr == nil {
			gopls, err = exec.LookPath(filepath.Join(strings.TrimSpace(string(gp)), "bin", "gopls"))
		}
	}
	if err != nil {
		t.Fatal("gopls is not on PATH: install it with `go install golang.org/x/tools/gopls@v0.23.0`")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("the go command is needed by gopls: install Go")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "workspace")
	for _, d := range []string{"workspace", "home", "config", "state", "data", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const mainGo = "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"
	write(filepath.Join(root, "go.mod"), "module example.com/w\n\ngo 1.22\n")
	write(filepath.Join(root, "main.go"), mainGo)
	write(filepath.Join(dir, "replay.json"), `{"turns":[{"text":"The import of os is unused: remove it."}]}`)
	write(filepath.Join(dir, "base.el"), ";;; -*- lexical-binding: t -*-\n"+docConfig(t))
	write(filepath.Join(dir, "wrap.el"), ";;; -*- lexical-binding: t -*-\n"+docBlockAfter(t, "## One entry for Go"))
	write(filepath.Join(dir, "driver.el"), wrapDriver)
	result := filepath.Join(dir, "result.json")
	path := strings.Join([]string{bin, filepath.Dir(gopls), filepath.Dir(goCmd), os.Getenv("PATH")}, string(os.PathListSeparator))
	env := map[string]string{
		"HOME":                  filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":       filepath.Join(dir, "config"),
		"XDG_STATE_HOME":        filepath.Join(dir, "state"),
		"XDG_DATA_HOME":         filepath.Join(dir, "data"),
		"XDG_CACHE_HOME":        filepath.Join(dir, "cache"),
		"PATH":                  path,
		"AGENTLS_MODEL":         "replay:" + filepath.Join(dir, "replay.json"),
		"AGENTLS_EMACS_CONFIGS": filepath.Join(dir, "base.el") + ":" + filepath.Join(dir, "wrap.el"),
		"AGENTLS_E2E_FILE":      filepath.Join(root, "main.go"),
		"AGENTLS_E2E_RESULT":    result,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*emacsTimeout)
	defer cancel()
	var output bytes.Buffer
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-q", "-l", filepath.Join(dir, "driver.el"))
	cmd.Dir = root
	cmd.Env = mergeEnv(os.Environ(), env)
	cmd.Stdout, cmd.Stderr = &output, &output
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("emacs --batch: %v", time.Since(start).Round(time.Millisecond))

	var rec wrapRecord
	data, readErr := os.ReadFile(result)
	if readErr == nil {
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("result is not a record: %v\n%s", err, data)
		}
	}
	if ctx.Err() != nil || rec.Error != "" || runErr != nil || readErr != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "emacs: %v; driver: %s; result: %v; ctx: %v", runErr, rec.Error, readErr, ctx.Err())
		fmt.Fprintf(&b, "\n--- steps:\n  %s", strings.Join(rec.Steps, "\n  "))
		fmt.Fprintf(&b, "\n--- emacs output:\n%s", tail(output.String(), 6000))
		fmt.Fprintf(&b, "\n--- eglot events buffer:\n%s", tail(rec.Events, 8000))
		if log, err := os.ReadFile(filepath.Join(dir, "state", "agentls", "agentls.log")); err == nil {
			fmt.Fprintf(&b, "\n--- agentls.log:\n%s", tail(string(log), 6000))
		}
		t.Fatal(b.String())
	}
	t.Logf("steps:\n  %s", strings.Join(rec.Steps, "\n  "))
	if got := strings.Join(rec.Command, " "); !strings.HasSuffix(got, "agentls serve --stdio --wrap gopls") {
		t.Errorf("eglot started %q, want the documented one entry", got)
	}
	if rec.ServerName != "agentls (gopls)" || !contains(rec.Commands, "agentls.ask") || !contains(rec.Commands, "gopls.tidy") {
		t.Errorf("eglot connected to %q with commands %v, want agentls (gopls) offering agentls.ask and gopls.tidy", rec.ServerName, rec.Commands)
	}
	if len(rec.Diagnostics) == 0 || !strings.Contains(strings.Join(rec.Diagnostics, "\n"), `"os" imported and not used`) {
		t.Errorf("flymake shows %q, want gopls's \"os\" imported and not used", rec.Diagnostics)
	}
	if !strings.Contains(rec.Hover, "func fmt.Println") {
		t.Errorf("hover on Println = %q, want gopls's signature", rec.Hover)
	}
	gopl, ours := -1, -1
	for i, title := range rec.Offered {
		if gopl < 0 && !strings.HasPrefix(title, "Fix with agent") && !strings.HasPrefix(title, "Ask agent") {
			gopl = i
		}
		if ours < 0 && strings.HasPrefix(title, "Fix with agent: ") && strings.Contains(title, `"os"`) {
			ours = i
		}
	}
	if gopl < 0 || ours < 0 {
		t.Errorf("eglot-code-actions offered %q: want gopls's own action and agentls's Fix with agent on the diagnostic", rec.Offered)
	}
	for _, want := range []string{"agent: The import of os is unused: remove it.", " ended: completed ──"} {
		if !strings.Contains(rec.Transcript, want) {
			t.Errorf("*agentls* lacks %q:\n%s", want, rec.Transcript)
		}
	}
	// eglot 1.9 deletes the process right after exit (jsonrpc-shutdown),
	// so the status is mostly a kill's; neither agentls nor gopls may be
	// left running.
	t.Logf("agentls's exit status after eglot-shutdown: %v", quoteInt(rec.ServerExit))
	if rec.ServerPID > 0 && aliveAfter(rec.ServerPID, 5*time.Second) {
		t.Errorf("orphan: agentls (pid %d) still running after Emacs quit", rec.ServerPID)
	}
	deadline := time.Now().Add(5 * time.Second)
	for pids := goplsIn(root); len(pids) > 0; pids = goplsIn(root) {
		if time.Now().After(deadline) {
			t.Errorf("orphan: gopls (pids %v) still running in the workspace 5 s after Emacs quit", pids)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// goplsIn lists the gopls processes working in dir.
func goplsIn(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if strings.TrimSpace(string(comm)) == "gopls" && cwd == dir && aliveAfter(pid, 0) {
			pids = append(pids, pid)
		}
	}
	return pids
}
