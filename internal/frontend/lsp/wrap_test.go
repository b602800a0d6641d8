package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/langserver/framing"
	"github.com/agentls/agentls/internal/langserver/overlay"
)

// serveEnv makes the test binary `agentls serve --wrap` with the command
// line it holds (space-separated), on stdin and stdout, as the editor
// starts agentls: a process of its own (BenchmarkWrapHover).
const serveEnv = "AGENTLS_TEST_SERVE_WRAP"

func TestMain(m *testing.M) {
	if log, ok := os.LookupEnv(slowLSPEnv); ok {
		os.Exit(runSlowLanguageServer(log))
	}
	if cmd := os.Getenv(serveEnv); cmd != "" {
		dir, err := os.MkdirTemp("", "agentls-wrap-serve-")
		if err != nil {
			os.Exit(1)
		}
		o := app.Options{Getenv: func(string) string { return "" }, DataDir: dir, StateDir: dir}
		o.Config.Sandbox.Mode = os.Getenv("AGENTLS_TEST_SANDBOX_MODE")
		a := app.New(o)
		if prof := os.Getenv("AGENTLS_TEST_CPUPROFILE"); prof != "" {
			f, _ := os.Create(prof)
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		conn := framing.OpenStdio(os.Stdin, os.Stdout) // as agentls serve does
		code := lsp.Serve(context.Background(), conn, lsp.Options{App: a, Wrap: strings.Fields(cmd)})
		conn.Restore()
		os.RemoveAll(dir)
		pprof.StopCPUProfile()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// wrapFiles is the module the wrap tests edit: use.go calls Hello after
// text whose UTF-16 and byte columns differ, and fmt.go is unformatted.
var wrapFiles = map[string]string{
	"go.mod":   "module example.com/hello\n\ngo 1.22\n",
	"hello.go": "package hello\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"hello \" + name\n}\n",
	"use.go":   "package hello\n\n// Use calls Hello after non-ASCII text.\nfunc Use() string { return \"é😀 \" + Hello(\"wörld\") }\n",
	"fmt.go":   "package hello\n\nfunc   Spaced( ) int {\nreturn 1 }\n",
}

// rawEditor is a plain LSP client that records what a server sends: the
// same client talks to gopls directly and to agentls wrapping gopls.
type rawEditor struct {
	t    testing.TB
	dir  string
	conn jsonrpc2.Conn

	// hierarchicalSymbols declares hierarchicalDocumentSymbolSupport, as
	// VS Code, Neovim and eglot do.
	hierarchicalSymbols bool

	mu       sync.Mutex
	diags    map[string][]json.RawMessage // uri → publishDiagnostics params, in order
	requests []string                     // methods of the server's requests
	wake     chan struct{}
}

func writeWorkspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A workspace path without links: gopls reports URIs of real paths.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func newRawEditor(t testing.TB, dir string, stream jsonrpc2.Stream) *rawEditor {
	e := &rawEditor{t: t, dir: dir, diags: map[string][]json.RawMessage{}, wake: make(chan struct{})}
	e.conn = jsonrpc2.NewConn(stream)
	e.conn.Go(context.Background(), e.handle)
	return e
}

// handle answers the server's requests as a plain editor does.
func (e *rawEditor) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, call := req.(*jsonrpc2.Call); call {
		e.requests = append(e.requests, req.Method())
	}
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		e.diags[p.URI] = append(e.diags[p.URI], req.Params())
		close(e.wake)
		e.wake = make(chan struct{})
		return nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		return reply(ctx, make([]any, len(p.Items)), nil)
	case "workspace/applyEdit":
		return reply(ctx, map[string]any{"applied": false}, nil)
	}
	if _, call := req.(*jsonrpc2.Call); call {
		return reply(ctx, nil, nil)
	}
	return nil
}

// startDirect starts gopls itself.
func startDirect(t testing.TB, dir string) *rawEditor {
	t.Helper()
	return startProcess(t, dir, exec.Command("gopls"))
}

// startWrappedProcess starts this test binary as `agentls serve --wrap
// gopls`, a process of its own as an editor starts it.
func startWrappedProcess(t testing.TB, dir string) *rawEditor {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	if relay := os.Getenv("AGENTLS_BENCH_RELAY"); relay != "" {
		// A floor to compare with: a relay that only copies bytes
		// (bench/relayfloor), in agentls's place.
		cmd = exec.Command(relay, "gopls")
	}
	cmd.Env = append(os.Environ(), serveEnv+"=gopls")
	return startProcess(t, dir, cmd)
}

// startProcess starts a server program on stdin and stdout.
func startProcess(t testing.TB, dir string, cmd *exec.Cmd) *rawEditor {
	t.Helper()
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return newRawEditor(t, dir, framing.New(pipeRWC{out, in}, framing.Options{}))
}

type pipeRWC struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error                { return p.w.Close() }

// startWrapped runs agentls serve --wrap gopls in this process; the
// returned channel gets Serve's exit code.
func startWrapped(t testing.TB, dir string, mod func(*app.Options)) (*rawEditor, <-chan int) {
	t.Helper()
	return startServe(t, dir, mod, []string{"gopls"})
}

// startServe runs agentls serve in this process, wrapping the command
// wrapped (nil: alone); the returned channel gets Serve's exit code.
func startServe(t testing.TB, dir string, mod func(*app.Options), wrapped []string) (*rawEditor, <-chan int) {
	t.Helper()
	a, b := net.Pipe()
	opts := app.Options{Getenv: func(string) string { return "" }, DataDir: t.TempDir(), StateDir: t.TempDir()}
	if mod != nil {
		mod(&opts)
	}
	code, ended := make(chan int, 1), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		_ = a.Close()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Error("agentls did not end within 10 s of the test's end")
		}
	})
	go func() {
		code <- lsp.Serve(ctx, b, lsp.Options{App: app.New(opts), Wrap: wrapped})
		close(ended)
	}()
	return newRawEditor(t, dir, framing.New(a, framing.Options{})), code
}

func (e *rawEditor) uri(name string) string { return overlay.PathToURI(filepath.Join(e.dir, name)) }

// call makes a request and returns its result with the workspace's path
// written as $DIR, so two workspaces' results compare.
func (e *rawEditor) call(ctx context.Context, method string, params any) string {
	e.t.Helper()
	var res json.RawMessage
	if _, err := e.conn.Call(ctx, method, params, &res); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
	return e.norm(string(res))
}

func (e *rawEditor) norm(s string) string {
	s = strings.ReplaceAll(s, strings.TrimPrefix(overlay.PathToURI(e.dir), "file://"), "$DIR")
	return strings.ReplaceAll(s, e.dir, "$DIR")
}

func (e *rawEditor) notify(ctx context.Context, method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(ctx, method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

func (e *rawEditor) initialize(ctx context.Context, initOptions any) map[string]any {
	e.t.Helper()
	params := map[string]any{
		"processId": nil, "rootUri": overlay.PathToURI(e.dir),
		"workspaceFolders": []any{map[string]any{"uri": overlay.PathToURI(e.dir), "name": "w"}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{
				"configuration": true, "workspaceFolders": true, "applyEdit": true,
				"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			},
			"textDocument": map[string]any{
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"rename":             map[string]any{"prepareSupport": true},
				"codeAction": map[string]any{"codeActionLiteralSupport": map[string]any{
					"codeActionKind": map[string]any{"valueSet": []string{"quickfix", "refactor", "source"}}}},
			},
		},
		"initializationOptions": initOptions,
	}
	if e.hierarchicalSymbols {
		td := params["capabilities"].(map[string]any)["textDocument"].(map[string]any)
		td["documentSymbol"] = map[string]any{"hierarchicalDocumentSymbolSupport": true}
	}
	var res map[string]any
	if _, err := e.conn.Call(ctx, "initialize", params, &res); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	e.notify(ctx, "initialized", map[string]any{})
	return res
}

func (e *rawEditor) open(ctx context.Context, name string) {
	e.t.Helper()
	text, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.t.Fatal(err)
	}
	e.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": e.uri(name), "languageId": "go", "version": 1, "text": string(text)}})
}

// change replaces a document's text (a whole-text change) at version.
func (e *rawEditor) change(ctx context.Context, name string, version int, text string) {
	e.notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": e.uri(name), "version": version},
		"contentChanges": []any{map[string]any{"text": text}}})
}

// diagnosticsAt waits for name's diagnostics published for version and
// returns them.
func (e *rawEditor) diagnosticsAt(ctx context.Context, name string, version int, nonEmpty bool) string {
	e.t.Helper()
	uri := e.uri(name)
	for {
		e.mu.Lock()
		list, wake := e.diags[uri], e.wake
		e.mu.Unlock()
		for i := len(list) - 1; i >= 0; i-- {
			var p struct {
				Version     int               `json:"version"`
				Diagnostics []json.RawMessage `json:"diagnostics"`
			}
			_ = json.Unmarshal(list[i], &p)
			if p.Version == version && (!nonEmpty || len(p.Diagnostics) > 0) {
				return e.norm(string(list[i]))
			}
		}
		select {
		case <-wake:
		case <-ctx.Done():
			e.t.Fatalf("no diagnostics of %s at version %d: %v", name, version, ctx.Err())
		}
	}
}

// sortedJSON sorts a list in an answer (the answer itself, or its member
// key), whose order gopls does not fix (it walks maps), by each element's
// encoding.
func sortedJSON(answer, key string) string {
	var v any
	if json.Unmarshal([]byte(answer), &v) != nil {
		return answer
	}
	list, _ := v.([]any)
	if key != "" {
		m, _ := v.(map[string]any)
		list, _ = m[key].([]any)
	}
	slices.SortFunc(list, func(a, b any) int {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return strings.Compare(string(x), string(y))
	})
	out, _ := json.Marshal(v)
	return string(out)
}

func pos(line, char int) map[string]any { return map[string]any{"line": line, "character": char} }

func docPos(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(line, char)}
}

// TestWrapPassesGoplsThrough: the same session — open, hover, definition,
// references, completion, prepareRename and rename, formatting, an error
// typed in the buffer and its diagnostics, the fix — gets the same
// answers from gopls directly and from agentls wrapping gopls (paths
// aside), while the tools' gopls is the editor's process.
func TestWrapPassesGoplsThrough(t *testing.T) {
	requireGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	session := func(e *rawEditor) []string {
		e.initialize(ctx, map[string]any{"agentls": map[string]any{"model": "replay:none.json"}})
		e.open(ctx, "use.go")
		e.open(ctx, "hello.go")
		e.open(ctx, "fmt.go")
		use, hello := e.uri("use.go"), e.uri("hello.go")
		// Hello( on use.go's line 3 (0-based), after é😀: UTF-16 column 36.
		line := strings.Split(wrapFiles["use.go"], "\n")[3]
		col := len([]rune(line[:strings.Index(line, "Hello(")])) + 1 // é and 😀: 😀 is two UTF-16 units
		var out []string
		add := func(what, got string) { out = append(out, what+": "+got) }
		add("clean diagnostics", e.diagnosticsAt(ctx, "use.go", 1, false))
		add("hover", e.call(ctx, "textDocument/hover", docPos(use, 3, col+1)))
		add("definition", e.call(ctx, "textDocument/definition", docPos(use, 3, col+1)))
		refs := docPos(hello, 3, 6)
		refs["context"] = map[string]any{"includeDeclaration": true}
		add("references", sortedJSON(e.call(ctx, "textDocument/references", refs), ""))
		add("completion", e.call(ctx, "textDocument/completion", docPos(hello, 4, 9)))
		add("prepareRename", e.call(ctx, "textDocument/prepareRename", docPos(hello, 3, 6)))
		rename := docPos(hello, 3, 6)
		rename["newName"] = "Hi"
		add("rename", sortedJSON(e.call(ctx, "textDocument/rename", rename), "documentChanges"))
		add("formatting", e.call(ctx, "textDocument/formatting", map[string]any{
			"textDocument": map[string]any{"uri": e.uri("fmt.go")}, "options": map[string]any{"tabSize": 4, "insertSpaces": false}}))
		broken := strings.Replace(wrapFiles["use.go"], `Hello("wörld")`, `Hello(42)`, 1)
		e.change(ctx, "use.go", 2, broken)
		add("diagnostics of an error typed in the buffer", e.diagnosticsAt(ctx, "use.go", 2, true))
		e.change(ctx, "use.go", 3, wrapFiles["use.go"])
		add("diagnostics after the fix", e.diagnosticsAt(ctx, "use.go", 3, false))
		return out
	}
	direct := session(startDirect(t, writeWorkspace(t, wrapFiles)))
	wrapped, code := startWrapped(t, writeWorkspace(t, wrapFiles), nil)
	through := session(wrapped)
	for i := range direct {
		if direct[i] != through[i] {
			t.Errorf("through agentls, %s\ngopls directly:\n%s", through[i], direct[i])
		}
	}
	if len(direct) != 10 || len(through) != len(direct) {
		t.Fatalf("%d answers directly, %d through agentls", len(direct), len(through))
	}
	for _, a := range direct {
		if strings.HasSuffix(a, ": null") || strings.HasSuffix(a, ": []") {
			t.Errorf("an empty answer compares nothing: %s", a)
		}
	}
	// The server's requests reached the editor (and were answered there).
	wrapped.mu.Lock()
	reqs := strings.Join(wrapped.requests, " ")
	wrapped.mu.Unlock()
	for _, want := range []string{"workspace/configuration", "client/registerCapability"} {
		if !strings.Contains(reqs, want) {
			t.Errorf("the editor got no %s from the wrapped gopls; it got: %s", want, reqs)
		}
	}
	wrapped.call(ctx, "shutdown", nil)
	wrapped.notify(ctx, "exit", nil)
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("agentls exited with %d after shutdown and exit", c)
		}
	case <-ctx.Done():
		t.Fatal("agentls did not exit")
	}
}

// TestWrapMergesCapabilitiesAndCodeActions: initialize's result is
// gopls's with agentls's commands and code-action kinds added, the
// encoding is UTF-16 (the editor offered UTF-8 too), and a code action
// request on a diagnostic gets gopls's actions and agentls's "Fix with
// agent"; gopls's own command runs in gopls, agentls's in agentls.
func TestWrapMergesCapabilitiesAndCodeActions(t *testing.T) {
	requireGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	files := map[string]string{
		"go.mod":  wrapFiles["go.mod"],
		"main.go": "package hello\n\nimport \"fmt\"\n\nfunc F() {}\n",
	}
	e, _ := startWrapped(t, writeWorkspace(t, files), nil)
	res := e.initialize(ctx, nil)
	caps := res["capabilities"].(map[string]any)
	if enc := caps["positionEncoding"]; enc != nil && enc != "utf-16" {
		t.Errorf("positionEncoding %v, want utf-16 (agentls's overlay counts in UTF-16)", enc)
	}
	cmds := fmt.Sprint(caps["executeCommandProvider"].(map[string]any)["commands"])
	for _, want := range []string{"agentls.ask", "gopls.tidy"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("commands %s lack %s", cmds, want)
		}
	}
	if _, ok := caps["hoverProvider"]; !ok {
		t.Errorf("gopls's hoverProvider is gone: %v", caps)
	}
	if name := res["serverInfo"].(map[string]any)["name"]; name != "agentls (gopls)" {
		t.Errorf("serverInfo.name %v", name)
	}
	e.open(ctx, "main.go")
	diags := e.diagnosticsAt(ctx, "main.go", 1, true)
	var p struct {
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(diags), &p); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Range json.RawMessage `json:"range"`
	}
	_ = json.Unmarshal(p.Diagnostics[0], &d)
	var actions []struct {
		Title   string `json:"title"`
		Command *struct {
			Command string `json:"command"`
		} `json:"command"`
	}
	raw := e.call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": e.uri("main.go")}, "range": d.Range,
		"context": map[string]any{"diagnostics": p.Diagnostics}})
	if err := json.Unmarshal([]byte(raw), &actions); err != nil {
		t.Fatal(err)
	}
	var titles []string
	gopls, ours := -1, -1
	for i, a := range actions {
		titles = append(titles, a.Title)
		if strings.Contains(a.Title, `"fmt"`) && gopls < 0 {
			gopls = i
		}
		if strings.HasPrefix(a.Title, "Fix with agent: ") && ours < 0 {
			ours = i
		}
	}
	if gopls < 0 || ours < 0 || ours < gopls {
		t.Errorf("code actions %q: want gopls's fix for the unused import, then agentls's Fix with agent", titles)
	}
	// agentls's command is agentls's, gopls's is gopls's.
	var model map[string]any
	if _, err := e.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "agentls.model"}, &model); err != nil {
		t.Fatalf("agentls.model: %v", err)
	}
	if _, ok := model["model"]; !ok {
		t.Errorf("agentls.model answered %v", model)
	}
	_, err := e.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "gopls.no_such_command"}, nil)
	if err == nil || !strings.Contains(err.Error(), "no_such_command") {
		t.Errorf("an unknown gopls command: %v, want gopls's own error", err)
	}
}

// TestWrapSharesGoplsWithTools: with the buffer changed in the editor
// and not saved, the agent's lsp_diagnostics and lsp_definition answer
// from the editor's gopls — no second gopls starts — about the buffer's
// text, and never open, change or close the editor's document.
func TestWrapSharesGoplsWithTools(t *testing.T) {
	requireGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := writeWorkspace(t, wrapFiles)
	prov := &scriptedCalls{calls: []agent.ToolCall{
		{ID: "1", Name: "lsp_diagnostics", Input: json.RawMessage(`{"file_path":"use.go"}`)},
		{ID: "2", Name: "lsp_definition", Input: json.RawMessage(`{"file_path":"use.go","line":4,"symbol":"Hello"}`)},
	}}
	e, _ := startWrapped(t, dir, func(o *app.Options) {
		o.NewProvider = func(string, string) (agent.Provider, error) { return prov, nil }
		o.ModelFlag = "test:calls"
	})
	e.initialize(ctx, nil)
	before := goplsChildren(t)
	e.open(ctx, "use.go")
	broken := strings.Replace(wrapFiles["use.go"], `Hello("wörld")`, `Hello(42)`, 1)
	e.change(ctx, "use.go", 2, broken)
	e.diagnosticsAt(ctx, "use.go", 2, true)
	var res lsp.AskResult
	if _, err := e.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "agentls.ask",
		"arguments": []any{map[string]any{"prompt": "check"}}}, &res); err != nil {
		t.Fatal(err)
	}
	results := prov.wait(t, ctx)
	if !strings.Contains(results["1"], "42") {
		t.Errorf("lsp_diagnostics of the unsaved buffer: %s", results["1"])
	}
	if !strings.Contains(results["2"], "hello.go:4") {
		t.Errorf("lsp_definition: %s", results["2"])
	}
	if after := goplsChildren(t); after != before {
		t.Errorf("gopls processes: %d before the tools ran, %d after: the tools started their own", before, after)
	}
	// The diagnostics the editor got are still of its version 2 only: the
	// tools sent gopls no text of their own for use.go.
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.diags[e.uri("use.go")] {
		var v struct {
			Version int `json:"version"`
		}
		_ = json.Unmarshal(p, &v)
		if v.Version != 1 && v.Version != 2 {
			t.Errorf("diagnostics for version %d: the tools changed the editor's document", v.Version)
		}
	}
}

// scriptedCalls is a model that calls the given tools, one per step,
// then ends; wait returns each call's result by id.
type scriptedCalls struct {
	calls []agent.ToolCall

	mu      sync.Mutex
	step    int
	results map[string]string
	done    chan struct{}
}

func (p *scriptedCalls) Name() string { return "test:calls" }

func (p *scriptedCalls) Complete(_ context.Context, r agent.Request, _ agent.Stream) (agent.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.results == nil {
		p.results, p.done = map[string]string{}, make(chan struct{})
	}
	for _, m := range r.Messages {
		if m.ToolCallID != "" {
			p.results[m.ToolCallID] = m.Content
		}
	}
	if p.step < len(p.calls) {
		c := p.calls[p.step]
		p.step++
		return agent.Response{ToolCalls: []agent.ToolCall{c}}, nil
	}
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	return agent.Response{Text: "done"}, nil
}

func (p *scriptedCalls) wait(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	for {
		p.mu.Lock()
		done := p.done
		p.mu.Unlock()
		if done != nil {
			select {
			case <-done:
				p.mu.Lock()
				defer p.mu.Unlock()
				return p.results
			case <-ctx.Done():
				t.Fatalf("the turn did not end: %v", ctx.Err())
			}
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("the model was never asked: %v", ctx.Err())
		}
	}
}

// TestWrapToolsAnswerAsDirect: the agent's lsp_* tools — diagnostics of
// an error typed in the editor's buffer, definition, references, call
// hierarchy, symbols — answer the same through `agentls serve --wrap
// gopls` (the editor's gopls) as through `agentls serve` with a gopls of
// their own. The wrapped gopls answers with the editor's capabilities:
// for an editor without hierarchical document symbols it lists them flat,
// without their signatures, and the tools still find a symbol's name in
// its declaration.
func TestWrapToolsAnswerAsDirect(t *testing.T) {
	requireGopls(t)
	calls := []agent.ToolCall{
		{ID: "diagnostics", Name: "lsp_diagnostics", Input: json.RawMessage(`{"file_path":"use.go"}`)},
		{ID: "definition", Name: "lsp_definition", Input: json.RawMessage(`{"file_path":"use.go","line":4,"symbol":"Hello"}`)},
		{ID: "references", Name: "lsp_references", Input: json.RawMessage(`{"file_path":"hello.go","symbol":"Hello"}`)},
		{ID: "calls", Name: "lsp_call_hierarchy", Input: json.RawMessage(`{"file_path":"hello.go","symbol":"Hello"}`)},
		{ID: "symbols", Name: "lsp_symbols", Input: json.RawMessage(`{"file_path":"hello.go"}`)},
	}
	run := func(wrapped []string, hierarchical bool) map[string]string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		prov := &scriptedCalls{calls: calls}
		e, _ := startServe(t, writeWorkspace(t, wrapFiles), func(o *app.Options) {
			o.NewProvider = func(string, string) (agent.Provider, error) { return prov, nil }
			o.ModelFlag = "test:calls"
		}, wrapped)
		e.hierarchicalSymbols = hierarchical
		e.initialize(ctx, nil)
		e.open(ctx, "use.go")
		e.change(ctx, "use.go", 2, strings.Replace(wrapFiles["use.go"], `Hello("wörld")`, `Hello(42)`, 1))
		var res lsp.AskResult
		if _, err := e.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "agentls.ask",
			"arguments": []any{map[string]any{"prompt": "check"}}}, &res); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for id, r := range prov.wait(t, ctx) {
			out[id] = e.norm(r)
		}
		return out
	}
	direct := run(nil, true)
	if !strings.Contains(direct["diagnostics"], "cannot use 42") || !strings.Contains(direct["references"], "use.go:4:") {
		t.Fatalf("the direct answers miss the buffer's error or a reference: %v", direct)
	}
	for _, hierarchical := range []bool{true, false} {
		wrapped := run([]string{"gopls"}, hierarchical)
		for _, c := range calls {
			want := direct[c.ID]
			if c.ID == "symbols" && !hierarchical {
				want = strings.Replace(want, "Hello func(name string) string", "Hello", 1)
			}
			if wrapped[c.ID] != want {
				t.Errorf("%s, hierarchical symbols %v:\ndirect:  %s\nwrapped: %s", c.Name, hierarchical, want, wrapped[c.ID])
			}
		}
	}
}
