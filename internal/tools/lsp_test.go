package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/permission"
)

func TestReplaceSymbolText(t *testing.T) {
	goSrc := "package p\n\n// A does a.\nfunc A() {\n}\n\n// B does b.\nfunc B() {}\n"
	rangeOf := func(src, start, end string) client.Location {
		l1, c1 := findPos(t, src, start, 1)
		l2, c2 := findPos(t, src, end, 1)
		return client.Location{Line: l1, Column: c1, EndLine: l2, EndColumn: c2 + len([]rune(end))}
	}
	a := rangeOf(goSrc, "func A", "}")
	cases := []struct {
		name, mode, src, newText, ext, want string
		r                                   client.Location
	}{
		{"replace keeps the doc comment", "replace", goSrc, "func A() { a() }\n", ".go",
			"package p\n\n// A does a.\nfunc A() { a() }\n\n// B does b.\nfunc B() {}\n", a},
		{"replace with a comment replaces it", "replace", goSrc, "// A is new.\nfunc A() {}", ".go",
			"package p\n\n// A is new.\nfunc A() {}\n\n// B does b.\nfunc B() {}\n", a},
		{"insert before goes above the comment", "insert_before", goSrc, "func Z() {}", ".go",
			"package p\n\nfunc Z() {}\n\n// A does a.\nfunc A() {\n}\n\n// B does b.\nfunc B() {}\n", a},
		{"insert after", "insert_after", goSrc, "func Z() {}\n", ".go",
			"package p\n\n// A does a.\nfunc A() {\n}\n\nfunc Z() {}\n\n// B does b.\nfunc B() {}\n", a},
		{"insert after the last", "insert_after", goSrc, "func Z() {}", ".go",
			goSrc + "\nfunc Z() {}\n", rangeOf(goSrc, "func B", "{}")},
		{"delete takes the comment and one blank line", "delete", goSrc, "", ".go",
			"package p\n\n// B does b.\nfunc B() {}\n", a},
		{"CRLF is kept", "insert_after", "x\r\nfunc A() {}\r\ny\r\n", "func Z() {}\n", ".go",
			"x\r\nfunc A() {}\r\nfunc Z() {}\r\ny\r\n", rangeOf("x\r\nfunc A() {}\r\ny\r\n", "func A", "{}")},
		{"python decorators belong to the function", "delete", "import x\n\n@dec\n# note\ndef f():\n    pass\n\ndef g():\n    pass\n", "", ".py",
			"import x\n\ndef g():\n    pass\n", rangeOf("import x\n\n@dec\n# note\ndef f():\n    pass\n", "def f", "pass")},
		{"nested method: the first line goes after the indentation", "replace", "class C:\n    def m(self):\n        pass\n", "    def m(self):\n        return 1", ".py",
			"class C:\n    def m(self):\n        return 1\n", rangeOf("class C:\n    def m(self):\n        pass\n", "def m", "pass")},
		{"a range after keywords starts at the line", "replace", "type T struct {\n}\n", "type T int", ".go",
			"type T int\n", rangeOf("type T struct {\n}\n", "T struct", "}")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := replaceSymbolText(c.src, c.r, c.mode, c.newText, c.ext)
			if err != nil || got != c.want {
				t.Errorf("got %v\n%q\nwant\n%q", err, got, c.want)
			}
		})
	}
}

func TestSymbolNames(t *testing.T) {
	for in, want := range map[string]string{
		"(*Server).Start":       "Server Start",
		"Server.Start":          "Server Start",
		"ns::Greeter::greet":    "ns Greeter greet",
		"example.com/pkg.Hello": "example com pkg Hello",
		" Foo ":                 "Foo",
	} {
		if got := strings.Join(nameSegments(in), " "); got != want {
			t.Errorf("nameSegments(%q) = %q, want %q", in, got, want)
		}
	}
	mk := func(name, container string, line int, parents ...string) symCandidate {
		return symCandidate{sym: client.Symbol{Name: name, Container: container, SelectionRange: client.Location{Path: "/a", Line: line}}, parents: parents}
	}
	all := []symCandidate{mk("(*Server).Start", "", 1), mk("Start", "Client", 2), mk("start", "", 3), mk("Start", "", 4, "Outer", "Server")}
	if got := pick(all, "Server.Start"); len(got) != 2 || got[0].sym.SelectionRange.Line != 1 || got[1].sym.SelectionRange.Line != 4 {
		t.Errorf("pick Server.Start = %+v", got)
	}
	if got := pick(all, "Start"); len(got) != 3 {
		t.Errorf("pick Start = %d candidates, want the 3 exact ones", len(got))
	}
	if got := pick(all, "START"); len(got) != 4 {
		t.Errorf("pick START (no exact match: case folded) = %d candidates", len(got))
	}
	if got := pick(all, "Client.Stop"); got != nil {
		t.Errorf("pick Client.Stop = %+v", got)
	}
}

func TestLSPInputValidation(t *testing.T) {
	ws, _ := newTestWS(t, nil)
	env := NewLSPEnv(ws, nil, nil)
	defer env.Shutdown(context.Background())
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{}, "give file_path with line and column, or symbol"},
		{map[string]any{"line": 3, "column": 1}, "line needs file_path"},
		{map[string]any{"file_path": "a.go", "line": 3}, "give column as well as line"},
		{map[string]any{"file_path": "a.go", "column": 3}, "column needs line"},
		{map[string]any{"file_path": "a.go", "line": -1, "column": 1}, "line: minimum: -1 is less than 1"},
	} {
		_, err := describeTool(t, NewLSPReferencesTool(env), c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.in, err, c.want)
		}
	}
	_, err := describeTool(t, NewLSPCallHierarchyTool(env), map[string]any{"symbol": "F", "direction": "up"})
	if err == nil || !strings.Contains(err.Error(), "incoming") {
		t.Errorf("bad direction: %v", err)
	}
	_, err = describeTool(t, NewLSPSymbolsTool(env), map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "file_path") {
		t.Errorf("lsp_symbols without input: %v", err)
	}
	req, err := describeTool(t, NewLSPReferencesTool(env), map[string]any{"symbol": "F"})
	if err != nil || !req.ReadOnly || req.Capability != "lsp.references" || req.Action != permission.ActionRead || req.OutsideRoots ||
		req.Summary != "agentls wants to find the references to F" {
		t.Errorf("request = %+v, %v", req, err)
	}
}

// Every tool registers (valid capability, schema, description) and the
// gate knows its capability.
func TestLSPToolsRegister(t *testing.T) {
	ws, _ := newTestWS(t, nil)
	env := NewLSPEnv(ws, nil, nil)
	defer env.Shutdown(context.Background())
	reg, err := NewRegistry(DefaultTools(ws, NewShellEnv(ws, t.TempDir()), env)...)
	if err != nil {
		t.Fatal(err)
	}
	known := map[permission.Capability]bool{}
	for _, c := range permission.BuiltinCapabilities() {
		known[c] = true
	}
	want := map[string]bool{"lsp_diagnostics": true, "lsp_references": true, "lsp_definition": true, "lsp_symbols": true,
		"lsp_call_hierarchy": true, "lsp_rename": false, "lsp_replace_symbol": false, "lsp_restart": true}
	for name, readOnly := range want {
		tool, ok := reg.Get(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		s := tool.Spec()
		if s.ReadOnly != readOnly || string(s.Capability) != "lsp."+strings.TrimPrefix(name, "lsp_") || !known[s.Capability] {
			t.Errorf("%s: spec %+v (read-only %v, known %v)", name, s, s.ReadOnly, known[s.Capability])
		}
	}
	if reg2, _ := NewRegistry(DefaultTools(ws, NewShellEnv(ws, t.TempDir()), nil)...); len(reg2.Specs()) != len(reg.Specs())-len(want) {
		t.Error("DefaultTools without an LSPEnv still offers lsp tools")
	}
}

// The editor's documents reach the servers through the forwarder: those
// inside the roots only, the configuration read once, and a close
// forgets the document.
func TestLSPEnvEditorDocuments(t *testing.T) {
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{"a.txt": "a\n"})
	off := false
	calls := 0
	env := NewLSPEnv(ws, func() client.Config { calls++; return client.Config{AutoLSP: &off} }, nil)
	defer env.Shutdown(context.Background())
	for range 20 {
		env.Touch(root + "/a.txt")
	}
	env.Touch("/elsewhere/b.txt") // outside the roots: ignored
	env.flush(context.Background())
	if open := env.editor.Open(); len(open) != 1 || open[0] != root+"/a.txt" || calls != 1 {
		t.Errorf("after flush: open %v, config read %d times", open, calls)
	}
	env.Closed(root + "/a.txt")
	env.flush(context.Background())
	if open := env.editor.Open(); len(open) != 0 {
		t.Errorf("open after the close: %v", open)
	}
	// A reconfiguration before any server started just replaces it.
	env.Configure(client.Config{AutoLSP: &off})
	start := time.Now()
	env.Shutdown(context.Background())
	if _, err := env.Manager(); !errors.Is(err, client.ErrShutDown) || time.Since(start) > time.Second {
		t.Errorf("Manager after Shutdown: %v", err)
	}
	env.Touch(root + "/a.txt") // after Shutdown: ignored, no panic
}
