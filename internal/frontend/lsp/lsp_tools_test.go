package lsp_test

// The lsp_* tools inside the editor-facing server: the editor touching a
// file starts its language server and the server follows the buffer, and
// lsp_rename lands in open buffers through workspace/applyEdit (keeping
// the person's unsaved change), on disk for the rest, and is reverted with
// agentls.revertTurn. These tests run the real gopls.

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

var helloFiles = map[string]string{
	"go.mod":   "module example.com/hello\n\ngo 1.22\n",
	"hello.go": "package hello\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"hello \" + name\n}\n\n// Greet greets twice.\nfunc Greet() string {\n\treturn Hello(\"a\") + Hello(\"b\")\n}\n",
	"use.go":   "package hello\n\n// Use calls Hello after non-ASCII text.\nfunc Use() string { return \"é😀 \" + Hello(\"wörld\") }\n",
}

// requireGopls fails (never skips) without gopls, with how to install it.
func requireGopls(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err == nil {
		return
	}
	if home, err := os.UserHomeDir(); err == nil {
		bin := filepath.Join(home, "go", "bin")
		if _, err := os.Stat(filepath.Join(bin, "gopls")); err == nil {
			t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+bin)
			return
		}
	}
	t.Fatal("gopls is not on PATH: install it with `go install golang.org/x/tools/gopls@v0.23.0`")
}

func toolResult(t *testing.T, evs []agent.Event, name string) string {
	t.Helper()
	r := resultsOf(evs, name)
	if len(r) != 1 || r[0].Content == nil {
		t.Fatalf("%s results: %+v", name, r)
	}
	if *r[0].IsError {
		t.Fatalf("%s failed: %s", name, *r[0].Content)
	}
	return *r[0].Content
}

func TestLSPRenameThroughEditor(t *testing.T) {
	requireGopls(t)
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"lsp_rename","input":{"symbol":"Hello","new_name":"Hi"}}]},
		{"text":"renamed"}]}`)
	var asked []string
	ed, root := setup(t, helloFiles, prov, func(o *fake.Options) {
		o.Server.DataDir = t.TempDir()
		o.Answer = func(msg string, _ []string) string {
			asked = append(asked, msg)
			return "Allow"
		}
	})
	use, hello := filepath.Join(root, "use.go"), filepath.Join(root, "hello.go")
	if err := ed.Open(ctx, use, helloFiles["use.go"]); err != nil {
		t.Fatal(err)
	}
	// The person's unsaved change: "package hello" → "package hello // mine".
	if err := ed.Change(ctx, use, fake.Edit{StartLine: 0, StartChar: 13, EndLine: 0, EndChar: 13, Text: " // mine"}); err != nil {
		t.Fatal(err)
	}
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "rename Hello to Hi"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	out := toolResult(t, evs, "lsp_rename")
	for _, want := range []string{"Renamed Hello → Hi: 5 edits in 2 files", "use.go: 1 edit", "in the editor's buffer, not saved", "no errors or warnings"} {
		if !strings.Contains(out, want) {
			t.Errorf("result lacks %q:\n%s", want, out)
		}
	}
	if len(asked) != 1 || asked[0] != "agentls wants to rename Hello → Hi: 5 edits in 2 files" {
		t.Errorf("asks = %q", asked)
	}
	renamedUse := strings.Replace(strings.Replace(helloFiles["use.go"], "package hello", "package hello // mine", 1), `Hello("wörld")`, `Hi("wörld")`, 1)
	if got, _ := ed.Buffer(use); got != renamedUse {
		t.Errorf("buffer =\n%s\nwant (renamed, the unsaved change kept)\n%s", got, renamedUse)
	}
	if disk, _ := os.ReadFile(use); string(disk) != helloFiles["use.go"] {
		t.Errorf("the open document was written to disk:\n%s", disk)
	}
	if disk, _ := os.ReadFile(hello); strings.Contains(string(disk), "Hello(") || strings.Count(string(disk), "Hi(") != 3 {
		t.Errorf("hello.go on disk:\n%s", disk)
	}
	applied := ed.Applied()
	if len(applied) != 1 || !strings.Contains(string(applied[0]), `"label":"agentls: rename Hello → Hi"`) {
		t.Errorf("applyEdit params = %s", applied)
	}

	// agentls.revertTurn undoes the rename: the buffer gets back the
	// person's text (with their change), the disk file its old content.
	if _, err := ed.ExecuteCommand(ctx, lsp.CommandRevertTurn, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := ed.Buffer(use); got != strings.Replace(helloFiles["use.go"], "package hello", "package hello // mine", 1) {
		t.Errorf("buffer after revert:\n%s", got)
	}
	if disk, _ := os.ReadFile(hello); string(disk) != helloFiles["hello.go"] {
		t.Errorf("hello.go after revert:\n%s", disk)
	}
}

// goplsChildren counts the gopls processes this test process started.
func goplsChildren(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	me := strconv.Itoa(os.Getpid())
	n := 0
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "(gopls") {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[0] != "Z" && f[1] == me {
			n++
		}
	}
	return n
}

// The editor opening a Go file starts gopls before any question, and the
// tools see the editor's unsaved text; once the editor closes the file,
// its text on disk.
func TestEditorTouchStartsLanguageServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts child processes through /proc")
	}
	requireGopls(t)
	ctx := ctxT(t)
	prov := script(t, `{"turns":[
		{"tool_calls":[{"name":"lsp_diagnostics","input":{"file_path":"use.go"}}]},
		{"text":"checked"},
		{"tool_calls":[{"name":"lsp_diagnostics","input":{"file_path":"use.go"}}]},
		{"text":"checked again"}]}`)
	ed, root := setup(t, helloFiles, prov, nil)
	use := filepath.Join(root, "use.go")
	before := goplsChildren(t)
	broken := strings.Replace(helloFiles["use.go"], `Hello("wörld")`, `Hello(42)`, 1)
	if err := ed.Open(ctx, use, broken); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for goplsChildren(t) <= before {
		if time.Now().After(deadline) {
			t.Fatal("opening a Go file in the editor did not start gopls")
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "check use.go"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if out := toolResult(t, evs, "lsp_diagnostics"); !strings.Contains(out, "use.go:4:42: error: cannot use 42") {
		t.Errorf("diagnostics of the unsaved buffer:\n%s", out)
	}
	if err := ed.Conn().Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": "file://" + use}}); err != nil {
		t.Fatal(err)
	}
	res, err = ed.Ask(ctx, lsp.AskArgs{Prompt: "check again"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err = ed.WaitTurnEnd(ctx, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if out := toolResult(t, evs, "lsp_diagnostics"); !strings.Contains(out, "no errors or warnings") {
		t.Errorf("diagnostics after the editor closed the file (the disk has no error):\n%s", out)
	}
}
