package tools

// The gopls cases of the lsp_* tools again, with gopls started and shared
// as `agentls serve --wrap gopls` does it (internal/frontend/lsp/wrap.go,
// startWrapped): the tools' Servers start the program (StartShared, under
// their trust rules and sandbox), a wrap.Mux runs it between an editor
// and agentls, the editor's initialize goes through
// wrap.InitializeParams, and the tools use the one process (Share) —
// never one of their own.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/langserver/framing"
	"github.com/agentls/agentls/internal/langserver/overlay"
	"github.com/agentls/agentls/internal/langserver/wrap"
)

// noDocs: the test editor has no document open.
type noDocs struct{}

func (noDocs) Get(string) (string, int32, bool) { return "", 0, false }

// wrapGopls makes f's tools share a gopls wrapped for an editor, and
// returns its process id. The editor is a plain LSP client that answers
// the server's requests (configuration with nulls, the rest with null);
// agentls's side of its stream reads on, as the front-end's connection
// does.
func wrapGopls(t testing.TB, f *lspFixture) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sp, err := f.env.StartShared(ctx, []string{"gopls"}, f.root)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Name != "gopls" {
		t.Fatalf("the wrapped program stands for %q, want the built-in gopls", sp.Name)
	}
	ours, theirs := net.Pipe()
	ed := wrap.NewEditor(framing.New(ours, framing.Options{}), func(string, json.RawMessage) wrap.Route { return wrap.ToServer })
	editor := jsonrpc2.NewConn(framing.New(theirs, framing.Options{}))
	editor.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if _, call := req.(*jsonrpc2.Call); !call {
			return nil
		}
		if req.Method() == "workspace/configuration" {
			var p struct {
				Items []json.RawMessage `json:"items"`
			}
			_ = json.Unmarshal(req.Params(), &p)
			return reply(ctx, make([]any, len(p.Items)), nil)
		}
		return reply(ctx, nil, nil)
	})
	go func() { // agentls's connection: nothing of the editor's is its here
		for {
			if _, _, err := ed.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	m := wrap.Start(wrap.Options{Name: sp.Name, Proc: sp.Proc, Editor: ed, Docs: noDocs{}})
	t.Cleanup(func() {
		m.Close(3 * time.Second)
		editor.Close()
		ours.Close()
	})
	uri := overlay.PathToURI(f.root)
	params, _ := json.Marshal(map[string]any{
		"processId": nil, "rootUri": uri, "clientInfo": map[string]any{"name": "test editor"},
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": filepath.Base(f.root)}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{
				"configuration": true, "workspaceFolders": true, "applyEdit": true,
				"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true, "relativePatternSupport": true},
				"workspaceEdit":         map[string]any{"documentChanges": true},
			},
			"textDocument": map[string]any{
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"definition":         map[string]any{"linkSupport": true},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": true},
				"rename":             map[string]any{"prepareSupport": true},
			},
		},
	})
	adjusted, err := wrap.InitializeParams(params, sp.Confined)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Initialize(ctx, adjusted); err != nil {
		t.Fatalf("initialize the wrapped gopls: %v (%s)", err, sp.Proc.ExitStatus())
	}
	ed.Use(m)
	m.Notify("initialized", json.RawMessage(`{}`))
	f.env.Share(m.Shared(sp.Name))
	return sp.Proc.Pid()
}

// usesWrapped fails unless the tools' only gopls is the wrapped process.
func usesWrapped(t testing.TB, f *lspFixture, pid int) {
	t.Helper()
	m, err := f.env.Manager()
	if err != nil {
		t.Fatal(err)
	}
	cs := m.Clients()
	if len(cs) != 1 || cs[0].PID() != pid {
		pids := make([]int, len(cs))
		for i, c := range cs {
			pids[i] = c.PID()
		}
		t.Errorf("the tools' servers have pids %v, want only the wrapped gopls (%d)", pids, pid)
	}
}

// TestLSPToolsGoplsWrapped: TestLSPToolsGopls's cases — symbols,
// definition, references, incoming calls, diagnostics after an edit,
// rename across files — pass unchanged with the tools on the wrapped
// gopls, and the tools start no gopls of their own.
func TestLSPToolsGoplsWrapped(t *testing.T) {
	t.Parallel()
	testServerWith(t, goCase, func(f *lspFixture) func() {
		pid := wrapGopls(t, f)
		return func() { usesWrapped(t, f, pid) }
	})
}

// TestGoplsWrappedAnswersAsDirect: the same questions to gopls through
// the tools' own process and through the wrapped one get the same
// answers, paths aside — the client's hover, definition, references,
// prepareRename and rename (the edits), and the diagnostics of an error
// written to disk and of its fix; and the tools' texts for definition,
// references, diagnostics and a rename's permission request.
func TestGoplsWrappedAnswersAsDirect(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	direct := newLSPFixture(t, goCase.files, client.Config{})
	wrapped := newLSPFixture(t, goCase.files, client.Config{})
	pid := wrapGopls(t, wrapped)
	ask := func(f *lspFixture) []string {
		ctx := context.Background()
		use := f.path("use.go")
		c, err := f.env.clientFor(ctx, use)
		if err != nil {
			t.Fatal(err)
		}
		line, col := f.pos("use.go", "Hello(", 1)
		var out []string
		add := func(what string, v any, err error) {
			b, _ := json.Marshal(v)
			s := fmt.Sprintf("%s: %s %v", what, b, err)
			out = append(out, strings.ReplaceAll(s, f.root, "$ROOT"))
		}
		h, err := c.Hover(ctx, use, line, col+1)
		add("hover", h, err)
		if h == "" || !strings.Contains(h, "func Hello(name string) string") {
			t.Errorf("hover = %q, want Hello's signature", h)
		}
		defs, err := c.Definition(ctx, use, line, col+1)
		add("definition", defs, err)
		refs, err := c.References(ctx, use, line, col, true)
		add("references", refs, err)
		target, err := c.PrepareRename(ctx, use, line, col+1)
		add("prepareRename", target, err)
		edit, err := c.Rename(ctx, use, line, col, "Hi")
		edit.Versions = nil // the documents' versions are each client's own count
		add("rename", edit, err)
		broken := strings.Replace(goCase.files["use.go"], `Hello("wörld")`, `Hello(42)`, 1)
		lspWriteFiles(t, f.root, map[string]string{"use.go": broken})
		m, _ := f.env.Manager()
		m.DidWrite(ctx, use)
		diags, err := c.Diagnostics(ctx, use)
		add("diagnostics", diags, err)
		if len(diags) == 0 {
			t.Errorf("no diagnostics of the error")
		}
		lspWriteFiles(t, f.root, map[string]string{"use.go": goCase.files["use.go"]})
		m.DidWrite(ctx, use)
		diags, err = c.Diagnostics(ctx, use)
		add("diagnostics after the fix", diags, err)
		add("tool definition", f.must("lsp_definition", map[string]any{"file_path": "use.go", "line": line, "column": col + 1}), nil)
		add("tool references", f.must("lsp_references", map[string]any{"symbol": "Hello", "file_path": "hello.go"}), nil)
		add("tool diagnostics", f.must("lsp_diagnostics", map[string]any{"file_path": "use.go"}), nil)
		req, err := f.byN["lsp_rename"].Describe(ctx, Call{ID: "r", SessionID: "s1", TurnID: "t1", Input: json.RawMessage(`{"symbol":"Hello","new_name":"Hi"}`)})
		add("tool rename request", []string{req.Summary, req.Diff}, err)
		return out
	}
	want, got := ask(direct), ask(wrapped)
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("direct:  %s\nwrapped: %s", want[i], got[i])
		}
	}
	usesWrapped(t, wrapped, pid)
}
