package lsp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/agent/fim/fimtest"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
	"github.com/agentls/agentls/internal/langserver/framing"
)

// TestInlineCompletionSymbolsFromGopls: the model gets, beside the
// buffer, the signature gopls shows for a function the lines at the
// cursor call and another file of the package declares — never the
// signature of one declared in a file .agentlsignore names.
func TestInlineCompletionSymbolsFromGopls(t *testing.T) {
	requireGopls(t)
	ctx := ctxT(t)
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"return total"}} })
	defer srv.Close()
	const mainGo = "package calc\n\nfunc Total() int {\n\ttotal := Sum(1, 2) + len(Key())\n\t\n}\n"
	ed, root := setup(t, map[string]string{
		"go.mod":         "module example.com/calc\n\ngo 1.22\n",
		"sum.go":         "package calc\n\n// Sum adds its arguments.\nfunc Sum(xs ...int) int {\n\tn := 0\n\tfor _, x := range xs {\n\t\tn += x\n\t}\n\treturn n\n}\n",
		"secret.go":      "package calc\n\nfunc Key() (secretToken string) { return \"k\" }\n",
		".agentlsignore": "secret.go\n",
		"main.go":        mainGo,
	}, nil, func(o *fake.Options) { o.InitOptions = completionSettings(srv, nil) })
	path := filepath.Join(root, "main.go")
	if err := ed.Open(ctx, path, mainGo); err != nil {
		t.Fatal(err)
	}
	// gopls starts for the editor's document; until it has loaded the
	// package the completion goes without its symbols.
	prompt := promptOnceLoaded(ctx, t, ed, srv, path, 4, 1, "func Sum(")
	if !strings.Contains(prompt, "// sum.go: func Sum(xs ...int) int\n") {
		t.Fatalf("the prompt has no signature of Sum from sum.go:\n%s", prompt)
	}
	if !strings.Contains(prompt, "not part of this file):\n// sum.go: func Sum(xs ...int) int\n\npackage calc\n\nfunc Total() int {\n") {
		t.Errorf("the symbols are not a comment block before the buffer:\n%s", prompt)
	}
	if strings.Contains(prompt, "secretToken") || strings.Contains(prompt, "secret.go") {
		t.Errorf("the prompt holds the signature of Key, declared in an excluded file:\n%s", prompt)
	}
}

// promptOnceLoaded asks for inline completions at line (0-based), after
// column col, until the model's prompt holds want (the language server
// has loaded the files) or 100 tries, and returns the last prompt. Each
// try types a space, so the model is asked again (no cached answer).
func promptOnceLoaded(ctx context.Context, t *testing.T, ed *fake.Editor, srv *fimtest.Server, path string, line, col int, want string) string {
	t.Helper()
	var prompt string
	for i := 0; ; i++ {
		if err := ed.Change(ctx, path, fake.Edit{StartLine: line, StartChar: col + i, EndLine: line, EndChar: col + i, Text: " "}); err != nil {
			t.Fatal(err)
		}
		if _, err := ed.InlineCompletion(ctx, path, line, col+1+i, fake.InlineInvoked); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		prompt = reqs[len(reqs)-1].Prompt
		if strings.Contains(prompt, want) || ctx.Err() != nil || i == 100 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("prompt:\n%s", prompt)
	return prompt
}

// TestInlineCompletionSymbolsFromPyright: the symbols come from whichever
// language server runs for the file — here pyright for Python, whose
// hovers read "(function) def …" — and a declaration in an excluded file
// stays out.
func TestInlineCompletionSymbolsFromPyright(t *testing.T) {
	if _, err := exec.LookPath("pyright-langserver"); err != nil {
		t.Fatal("pyright-langserver is not on PATH: install it with `npm install -g pyright`")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"return total"}} })
	defer srv.Close()
	const mainPy = "from helpers import scale\nfrom secret import key\n\n\ndef total() -> int:\n    t = scale(2, 3) + len(key())\n    \n"
	ed, root := setup(t, map[string]string{
		"helpers.py":     "def scale(value: int, factor: int) -> int:\n    \"\"\"Scales value by factor.\"\"\"\n    return value * factor\n",
		"secret.py":      "def key(secret_token: str = \"k\") -> str:\n    return secret_token\n",
		".agentlsignore": "secret.py\n",
		"main.py":        mainPy,
	}, nil, func(o *fake.Options) { o.InitOptions = completionSettings(srv, nil) })
	path := filepath.Join(root, "main.py")
	if err := ed.Open(ctx, path, mainPy); err != nil {
		t.Fatal(err)
	}
	// Until pyright has analysed the files the completion goes without
	// its symbols.
	prompt := promptOnceLoaded(ctx, t, ed, srv, path, 6, 4, "def scale(")
	if !strings.Contains(prompt, "# helpers.py: (function) def scale(value: int, factor: int) -> int\n") {
		t.Fatalf("the prompt has no signature of scale from helpers.py:\n%s", prompt)
	}
	if strings.Contains(prompt, "secret_token") || strings.Contains(prompt, "secret.py") {
		t.Errorf("the prompt holds the signature of key, declared in an excluded file:\n%s", prompt)
	}
	if strings.Contains(prompt, "(module)") {
		t.Errorf("the prompt holds a module as a declaration:\n%s", prompt)
	}
}

// TestWrapInlineCompletionSymbols: with `agentls serve --wrap gopls` the
// symbols come from the wrapped gopls, the editor's process.
func TestWrapInlineCompletionSymbols(t *testing.T) {
	requireGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"return s"}} })
	defer srv.Close()
	const greetGo = "package hello\n\nfunc Greet() string {\n\ts := Hello(\"x\")\n\t\n}\n"
	files := map[string]string{"go.mod": wrapFiles["go.mod"], "hello.go": wrapFiles["hello.go"], "greet.go": greetGo}
	e, _ := startWrapped(t, writeWorkspace(t, files), nil)
	e.initialize(ctx, map[string]any{"agentls": completionSettings(srv, nil)})
	e.open(ctx, "greet.go")
	var prompt string
	for v := 2; ; v++ {
		// A new text each time: the answer is not cached.
		e.change(ctx, "greet.go", v, strings.Replace(greetGo, "\t\n}", "\t"+strings.Repeat(" ", v)+"\n}", 1))
		e.call(ctx, "textDocument/inlineCompletion", map[string]any{
			"textDocument": map[string]any{"uri": e.uri("greet.go")}, "position": pos(4, 1+v), "context": map[string]any{"triggerKind": 1}})
		reqs := srv.Requests()
		prompt = reqs[len(reqs)-1].Prompt
		if strings.Contains(prompt, "func Hello(") || ctx.Err() != nil || v == 100 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(prompt, "// hello.go: func Hello(name string) string\n") {
		t.Fatalf("the prompt has no signature of Hello from hello.go:\n%s", prompt)
	}
}

// slowLSPEnv makes the test binary a language server that answers
// initialize and shutdown but never a definition or a hover, appending
// each such request's method to the file the variable names.
const slowLSPEnv = "AGENTLS_TEST_SLOW_LSP"

func runSlowLanguageServer(log string) int {
	conn := jsonrpc2.NewConn(framing.New(framing.OpenStdio(os.Stdin, os.Stdout), framing.Options{}))
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		switch req.Method() {
		case "initialize":
			return reply(ctx, map[string]any{"capabilities": map[string]any{
				"textDocumentSync": 1, "definitionProvider": true, "hoverProvider": true}}, nil)
		case "textDocument/definition", "textDocument/hover":
			if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, req.Method())
				f.Close()
			}
			return nil // never answered
		case "exit":
			os.Exit(0)
		}
		if _, call := req.(*jsonrpc2.Call); call {
			return reply(ctx, nil, nil)
		}
		return nil
	})
	<-conn.Done()
	return 0
}

// TestInlineCompletionSlowLanguageServer: a language server that never
// answers the lookup of the symbols near the cursor, or none installed,
// delays the ghost text by no more than the short wait for them.
func TestInlineCompletionSlowLanguageServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"x"}} })
	defer srv.Close()
	logDir := t.TempDir()
	log := filepath.Join(logDir, "slow.log")
	settings := completionSettings(srv, nil)
	settings["lsp"] = map[string]any{
		"slow":    map[string]any{"command": []string{exe}, "filetypes": []string{"rb"}, "env": map[string]string{slowLSPEnv: log}, "run_untrusted": true},
		"missing": map[string]any{"command": []string{"agentls-test-no-such-server"}, "filetypes": []string{"lua"}, "run_untrusted": true},
	}
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.rb": "", "a.lua": ""}, nil, func(o *fake.Options) {
		o.InitOptions = settings
		// The server, confined, may write its log and get its variable.
		o.Server.Config.Sandbox.Writable = []string{logDir}
		o.Server.Config.Sandbox.Env = []string{slowLSPEnv}
	})
	// Well under symbolsBudget (1 s), which a completion waiting for
	// the lookup would take.
	const late = 500 * time.Millisecond
	for _, tt := range []struct {
		name, text string
		asked      bool // whether the server gets the lookup
	}{
		{"a.rb", "def total\n  s = sum_all(1, 2)\n  \nend\n", true},
		{"a.lua", "function total()\n  local s = sum_all(1, 2)\n  \nend\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(root, tt.name)
			if err := ed.Open(ctx, path, tt.text); err != nil {
				t.Fatal(err)
			}
			col := 0
			for i := 0; ; i++ {
				col = 3 + i
				// A new text each time: the answer is not cached.
				if err := ed.Change(ctx, path, fake.Edit{StartLine: 2, StartChar: 2 + i, EndLine: 2, EndChar: 2 + i, Text: " "}); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				got, err := ed.InlineCompletion(ctx, path, 2, 3+i, fake.InlineInvoked)
				if err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d > late || len(got.Items) != 1 {
					t.Fatalf("request %d: %+v after %v; want the ghost text within %v", i, got, d, late)
				}
				b, _ := os.ReadFile(log)
				if asked := strings.Contains(string(b), "textDocument/definition"); tt.asked && asked || !tt.asked && i == 5 {
					break
				}
				if i == 100 {
					t.Fatal("the slow server never got a definition request: the test proves nothing")
				}
				time.Sleep(50 * time.Millisecond)
			}
			if p := srv.Requests()[len(srv.Requests())-1].Prompt; strings.Contains(p, "from the language server") {
				t.Errorf("the prompt has symbols that no server gave:\n%s", p)
			}
			if !tt.asked {
				return
			}
			// The lookup is kept for the document version and line: the
			// cursor one column left asks the server nothing more.
			lookups := func() int {
				time.Sleep(200 * time.Millisecond) // the lookup's requests all sent
				b, _ := os.ReadFile(log)
				return strings.Count(string(b), "textDocument/definition")
			}
			before := lookups()
			asked := len(srv.Requests())
			if _, err := ed.InlineCompletion(ctx, path, 2, col-1, fake.InlineInvoked); err != nil {
				t.Fatal(err)
			}
			if len(srv.Requests()) == asked {
				t.Fatal("the request was answered from the cache: the test proves nothing")
			}
			if n := lookups(); n != before {
				t.Errorf("%d definition requests for a version and line already looked up, want none", n-before)
			}
		})
	}
}
