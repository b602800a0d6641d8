package tools

// Real-server tests of the lsp_* tools: gopls, pyright, clangd and
// typescript-language-server over small fixture workspaces, through the
// Tool interface (Describe, then Run) on a real Workspace. A missing
// server fails the test with how to install it.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/langserver/client"
)

// serverCase is one language's fixture and what the tests expect of it.
// The def file defines the symbol and calls it from caller; the use file
// calls it from useCaller on a line with é😀 before the call, where code
// points, UTF-16 units and bytes all differ.
type serverCase struct {
	server   string
	programs []string
	files    map[string]string
	setup    func(f *lspFixture)
	def, use string
	// symbol is the function, kind its outline kind.
	symbol, kind string
	// caller (in def) and useCaller (in use) call symbol.
	caller, useCaller string
	// callInDef and callInUse find the calls: the first occurrence of
	// symbol+"(" after the declaration in def, and in use.
	callInDef, callInUse int
	// breakFrom → breakTo in use introduces an error whose message
	// contains errWant, at the position of errAt.
	breakFrom, breakTo, errWant, errAt string
	newName                            string
	// renamed is how many files the rename edits.
	renamed int
	// check builds or type-checks the fixture: it must pass after the
	// rename.
	check func(f *lspFixture)
	// warm waits until the server has loaded the whole project.
	warm func(f *lspFixture)
}

var goCase = serverCase{
	server:   "gopls",
	programs: []string{"gopls", "go"},
	files: map[string]string{
		"go.mod":   "module example.com/hello\n\ngo 1.22\n",
		"hello.go": "package hello\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"hello \" + name\n}\n\n// Greeter greets with a prefix.\ntype Greeter struct {\n\tPrefix string\n}\n\n// Greet greets through Hello.\nfunc (g Greeter) Greet() string {\n\treturn Hello(g.Prefix)\n}\n",
		"use.go":   "package hello\n\n// Use calls Hello after non-ASCII text.\nfunc Use() string { return \"é😀 \" + Hello(\"wörld\") }\n",
	},
	def: "hello.go", use: "use.go",
	symbol: "Hello", kind: "Function", caller: "Greet", useCaller: "Use",
	callInDef: 1, callInUse: 1,
	breakFrom: `Hello("wörld")`, breakTo: `Hello(42)`, errWant: "cannot use 42", errAt: "42",
	newName: "Hi", renamed: 2,
	check: func(f *lspFixture) { f.run("go", "build", "./...") },
}

var pyCase = serverCase{
	server:   "pyright",
	programs: []string{"pyright-langserver", "pyright"},
	files: map[string]string{
		"pyrightconfig.json": "{}\n",
		"hello.py":           "def hello(name: str) -> str:\n    return \"hello \" + name\n\n\nclass Greeter:\n    def __init__(self, prefix: str) -> None:\n        self.prefix = prefix\n\n    def greet(self) -> str:\n        return hello(self.prefix)\n",
		"use.py":             "from hello import hello\n\n\ndef use() -> str:\n    return \"é😀 \" + hello(\"wörld\")\n",
	},
	def: "hello.py", use: "use.py",
	symbol: "hello", kind: "Function", caller: "greet", useCaller: "use",
	callInDef: 1, callInUse: 1,
	breakFrom: `hello("wörld")`, breakTo: `hello(42)`, errWant: `"Literal[42]"`, errAt: "42",
	newName: "hi", renamed: 2,
	check: func(f *lspFixture) { f.run("pyright", "hello.py", "use.py") },
}

var tsCase = serverCase{
	server:   "typescript-language-server",
	programs: []string{"typescript-language-server", "tsc"},
	files: map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "commonjs"}, "include": ["*.ts"]}` + "\n",
		"hello.ts":      "export function hello(name: string): string {\n  return \"hello \" + name;\n}\n\nexport class Greeter {\n  constructor(public prefix: string) {}\n\n  greet(): string {\n    return hello(this.prefix);\n  }\n}\n",
		"use.ts":        "import { hello } from \"./hello\";\n\nexport function use(): string {\n  return \"é😀 \" + hello(\"wörld\");\n}\n",
	},
	def: "hello.ts", use: "use.ts",
	symbol: "hello", kind: "Function", caller: "greet", useCaller: "use",
	callInDef: 1, callInUse: 1,
	breakFrom: `hello("wörld")`, breakTo: `hello(42)`, errWant: "not assignable to parameter of type 'string'", errAt: "42",
	newName: "hi", renamed: 2,
	check: func(f *lspFixture) { f.run("tsc", "--noEmit", "-p", ".") },
	// tsserver loads the project in the background after the first open:
	// until then, references only cover open files.
	warm: func(f *lspFixture) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			out := f.must("lsp_references", map[string]any{"file_path": "hello.ts", "line": 1, "column": 17})
			if strings.Contains(out, "use.ts") {
				return
			}
			if time.Now().After(deadline) {
				f.t.Fatalf("tsserver never loaded the project:\n%s", out)
			}
			time.Sleep(200 * time.Millisecond)
		}
	},
}

var cCase = serverCase{
	server:   "clangd",
	programs: []string{"clangd", "clang"},
	files: map[string]string{
		"hello.h": "#ifndef HELLO_H\n#define HELLO_H\nint hello(int x);\n#endif\n",
		"hello.c": "#include \"hello.h\"\n\nint hello(int x) {\n\treturn x + 1;\n}\n\nint twice(int x) {\n\treturn hello(hello(x));\n}\n",
		"use.c":   "#include \"hello.h\"\n\nint use(void) {\n\tconst char *s = \"é😀\"; return hello(2) + (int)s[0];\n}\n",
	},
	setup: func(f *lspFixture) {
		lspWriteFiles(f.t, f.root, map[string]string{"compile_commands.json": fmt.Sprintf(`[
  {"directory": %q, "file": "hello.c", "arguments": ["clang", "-c", "hello.c"]},
  {"directory": %q, "file": "use.c", "arguments": ["clang", "-c", "use.c"]}
]`, f.root, f.root)})
	},
	def: "hello.c", use: "use.c",
	symbol: "hello", kind: "Function", caller: "twice", useCaller: "use",
	callInDef: 1, callInUse: 1,
	breakFrom: "hello(2)", breakTo: "hello(2, 3)", errWant: "oo many arguments", errAt: "3)",
	newName: "hi", renamed: 3,
	check: func(f *lspFixture) { f.run("clang", "-fsyntax-only", "-Werror", "hello.c", "use.c") },
}

func TestLSPToolsGopls(t *testing.T)   { t.Parallel(); testServer(t, goCase) }
func TestLSPToolsPyright(t *testing.T) { t.Parallel(); testServer(t, pyCase) }
func TestLSPToolsTS(t *testing.T)      { t.Parallel(); testServer(t, tsCase) }
func TestLSPToolsClangd(t *testing.T)  { t.Parallel(); testServer(t, cCase) }

func testServer(t *testing.T, sc serverCase) { testServerWith(t, sc, nil) }

// testServerWith runs the cases with the fixture's server set up by
// serve (nil: the tools start their own), whose result checks the
// server after them.
func testServerWith(t *testing.T, sc serverCase, serve func(f *lspFixture) (after func())) {
	for _, p := range sc.programs {
		requireProgram(t, p)
	}
	f := newLSPFixture(t, sc.files, client.Config{})
	if sc.setup != nil {
		sc.setup(f)
	}
	if serve != nil {
		defer serve(f)()
	}
	def, use := sc.def, sc.use
	declLoc := f.loc(def, sc.symbol+"(", 1)
	defCallLoc := f.loc(def, sc.symbol+"(", 1+sc.callInDef)
	useCallLoc := f.loc(use, sc.symbol+"(", sc.callInUse)
	// The use line really has non-ASCII text before the call.
	useLine, useCol := f.pos(use, sc.symbol+"(", sc.callInUse)
	if line := strings.Split(f.read(use), "\n")[useLine-1]; useCol-1 == strings.Index(line, sc.symbol+"(") {
		t.Fatalf("the fixture's use line has no non-ASCII text before %s: %q", sc.symbol, line)
	}

	t.Run("symbols", func(t *testing.T) {
		f := f.with(t)
		out := f.must("lsp_symbols", map[string]any{"file_path": def})
		l, c := f.pos(def, sc.symbol+"(", 1)
		wantIn(t, out, fmt.Sprintf("%d:%d %s %s", l, c, sc.kind, sc.symbol))
		out = f.must("lsp_symbols", map[string]any{"file_path": use})
		wantIn(t, out, sc.useCaller)
	})

	t.Run("definition", func(t *testing.T) {
		f := f.with(t)
		// At the call after é😀, one character into the name.
		out := f.must("lsp_definition", map[string]any{"file_path": use, "line": useLine, "column": useCol + 1})
		wantIn(t, out, declLoc+": ", sc.symbol+" (at "+use)
	})

	if sc.warm != nil {
		sc.warm(f)
	}

	t.Run("references", func(t *testing.T) {
		f := f.with(t)
		out := f.must("lsp_references", map[string]any{"symbol": sc.symbol, "file_path": def})
		wantIn(t, out, declLoc+": ", defCallLoc+": ", useCallLoc+": ", "é😀")
		// From the use, by position (the last character of the name).
		out = f.must("lsp_references", map[string]any{"file_path": use, "line": useLine, "column": useCol + len(sc.symbol) - 1})
		wantIn(t, out, declLoc+": ", defCallLoc+": ", useCallLoc+": ")
	})

	t.Run("incoming calls", func(t *testing.T) {
		f := f.with(t)
		out := f.must("lsp_call_hierarchy", map[string]any{"symbol": sc.symbol, "file_path": def})
		wantIn(t, out, " "+sc.caller+" ", " "+sc.useCaller+" ", defCallLoc+": ", useCallLoc+": ")
	})

	t.Run("diagnostics after an edit", func(t *testing.T) {
		f := f.with(t)
		f.must("view", map[string]any{"file_path": use})
		out := f.must("edit", map[string]any{"file_path": use, "old_string": sc.breakFrom, "new_string": sc.breakTo})
		errLoc := f.loc(use, sc.errAt, 1)
		wantIn(t, out, "diagnostics after the change", errLoc+": error: ", sc.errWant)
		out = f.must("lsp_diagnostics", map[string]any{"file_path": use})
		wantIn(t, out, errLoc+": error: ", sc.errWant)
		// The fix: no error any more, in the edit's result and on request.
		out = f.must("edit", map[string]any{"file_path": use, "old_string": sc.breakTo, "new_string": sc.breakFrom})
		wantIn(t, out, "no errors or warnings in "+use)
		out = f.must("lsp_diagnostics", map[string]any{"file_path": use})
		wantIn(t, out, "no errors or warnings")
	})

	t.Run("rename across files", func(t *testing.T) {
		f := f.with(t)
		out := f.must("lsp_rename", map[string]any{"symbol": sc.symbol, "file_path": def, "new_name": sc.newName})
		wantIn(t, out, fmt.Sprintf("Renamed %s → %s", sc.symbol, sc.newName), fmt.Sprintf("in %d files", sc.renamed),
			"no errors or warnings")
		for _, rel := range []string{def, use} {
			if text := f.read(rel); strings.Contains(text, sc.symbol+"(") || !strings.Contains(text, sc.newName+"(") {
				t.Errorf("%s after the rename:\n%s", rel, text)
			}
		}
		sc.check(f)
	})
}

// The whole rename flow's permission request: one ask summarizing the
// rename, with every file and the diff; nothing changes before Run.
func TestLSPRenameRequest(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	f := newLSPFixture(t, goCase.files, client.Config{})
	raw := []byte(`{"symbol": "Hello", "new_name": "Hi"}`)
	tool := f.byN["lsp_rename"]
	ctx := context.Background()
	call := Call{ID: "r1", SessionID: "s1", TurnID: "t1", Input: raw}
	req, err := tool.Describe(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	if req.Summary != "agentls wants to rename Hello → Hi: 4 edits in 2 files" || req.Action != "write" || req.ReadOnly ||
		len(req.Paths) != 2 || !strings.Contains(req.Diff, "+func Hi(name string) string {") || !strings.Contains(req.Diff, "b/use.go") {
		t.Errorf("request = %+v", req)
	}
	if strings.Contains(f.read("hello.go"), "Hi(") {
		t.Fatal("Describe changed a file")
	}
	// A file changed between the ask and the run: refused, nothing changes.
	use := f.read("use.go")
	writeFiles(t, f.root, map[string]string{"use.go": use + "\n// touched\n"})
	res, err := tool.Run(ctx, call)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "changed since") {
		t.Fatalf("stale rename: %+v %v", res, err)
	}
	if strings.Contains(f.read("hello.go"), "Hi(") {
		t.Fatal("a stale rename changed a file")
	}
	// Asked again and run: applied.
	call.ID = "r2"
	if _, err := tool.Describe(ctx, call); err != nil {
		t.Fatal(err)
	}
	res, err = tool.Run(ctx, call)
	if err != nil || res.IsError || !strings.Contains(res.Diff, "+func Hi(") {
		t.Fatalf("rename: %+v %v", res, err)
	}
	f.run("go", "build", "./...")
	// Renaming to the same name, or something that is not a name.
	wantIn(t, f.call("lsp_rename", map[string]any{"symbol": "Hi", "new_name": "Hi"}).Content, "already named Hi")
	wantIn(t, f.call("lsp_rename", map[string]any{"symbol": "Hi", "new_name": "a b"}).Content, "one identifier")
}

// Editor buffers: the servers see unsaved text, and a rename lands in an
// open buffer through the applier, keeping the person's unsaved change.
func TestLSPToolsSeeEditorBuffers(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	f := newLSPFixture(t, goCase.files, client.Config{})
	use := f.path("use.go")
	disk := f.read("use.go")
	unsaved := strings.Replace(disk, "// Use calls", "// Use (unsaved) calls", 1)
	broken := strings.Replace(unsaved, `Hello("wörld")`, `Hello(true)`, 1)
	f.ov.set(use, broken)
	f.env.Touch(use)
	out := f.must("lsp_diagnostics", map[string]any{"file_path": "use.go"})
	l, c := findPos(t, broken, "true", 1) // only in the buffer
	wantIn(t, out, fmt.Sprintf("use.go:%d:%d: error: cannot use true", l, c))
	f.ov.set(use, unsaved)
	f.env.Touch(use)
	wantIn(t, f.must("lsp_diagnostics", map[string]any{"file_path": "use.go"}), "no errors")

	out = f.must("lsp_rename", map[string]any{"symbol": "Hello", "new_name": "Hi"})
	wantIn(t, out, "use.go: 1 edit (+1 −1), in the editor's buffer, not saved")
	buf, _ := f.ov.Document(use)
	if want := strings.Replace(unsaved, `Hello("wörld")`, `Hi("wörld")`, 1); buf.Text != want {
		t.Errorf("buffer after the rename:\n%s\nwant\n%s", buf.Text, want)
	}
	if f.read("use.go") != disk {
		t.Error("the rename wrote an open document to disk")
	}
	if !strings.Contains(f.read("hello.go"), "func Hi(") {
		t.Error("hello.go (not open) was not renamed on disk")
	}
}

// An edit of an open buffer whose didChange reaches the overlay after the
// editor answered applyEdit: the diagnostics in the result wait for it,
// so they are computed on the new text, not the old.
func TestLSPEditDiagnosticsWaitForTheBuffer(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	f := newLSPFixture(t, goCase.files, client.Config{})
	f.ws.SetApplier(overlayApplier{o: f.ov, late: 300 * time.Millisecond})
	use := f.path("use.go")
	f.ov.set(use, f.read("use.go"))
	f.env.Touch(use)
	wantIn(t, f.must("lsp_diagnostics", map[string]any{"file_path": "use.go"}), "no errors")
	f.must("view", map[string]any{"file_path": "use.go"})
	out := f.must("edit", map[string]any{"file_path": "use.go", "old_string": `Hello("wörld")`, "new_string": `Hello(42)`})
	wantIn(t, out, "in the editor's buffer", "cannot use 42")
}

// Symbols by name: a unique name resolves across the workspace, an
// ambiguous one lists the candidates and guesses nothing.
func TestLSPSymbolLookup(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	files := map[string]string{}
	for k, v := range goCase.files {
		files[k] = v
	}
	files["other/other.go"] = "package other\n\n// Greet is another Greet.\nfunc Greet() string { return \"x\" }\n"
	f := newLSPFixture(t, files, client.Config{})
	out := f.must("lsp_references", map[string]any{"symbol": "Hello"})
	wantIn(t, out, "3 references to Hello", "use.go:4:36: ")
	out = f.must("lsp_references", map[string]any{"symbol": "Hello", "include_declaration": false})
	wantIn(t, out, "2 references to Hello", "use.go:4:36: ", "hello.go:15:9: ")
	wantNotIn(t, out, "hello.go:4:6: ")
	res := f.call("lsp_references", map[string]any{"symbol": "Greet"})
	if !res.IsError {
		t.Fatalf("ambiguous name resolved: %s", res.Content)
	}
	wantIn(t, res.Content, `2 symbols match "Greet"`, "hello.go:14:18 Method", "other/other.go:4:6 Function")
	out = f.must("lsp_references", map[string]any{"symbol": "Greeter.Greet"})
	wantIn(t, out, "hello.go:14:18: ")
	out = f.must("lsp_call_hierarchy", map[string]any{"symbol": "(Greeter).Greet", "direction": "outgoing"})
	wantIn(t, out, "Function Hello hello.go:4:6", "hello.go:15:9: return Hello(g.Prefix)")
	res = f.call("lsp_definition", map[string]any{"symbol": "Nope", "file_path": "hello.go"})
	wantIn(t, res.Content, `no symbol named "Nope" in hello.go`, "Hello")
	out = f.must("lsp_symbols", map[string]any{"query": "Greet"})
	wantIn(t, out, "hello.go:14:18 Method", "other/other.go:4:6 Function Greet")
	out = f.must("lsp_diagnostics", map[string]any{})
	wantIn(t, out, "No errors or warnings", "gopls")
	// line with symbol instead of column.
	l, c := f.pos("use.go", "Hello(", 1)
	out = f.must("lsp_definition", map[string]any{"file_path": "use.go", "line": l, "symbol": "Hello"})
	wantIn(t, out, fmt.Sprintf("Hello (at use.go:%d:%d)", l, c), "hello.go:4:6: func Hello")
}

// lsp_replace_symbol: replace, insert after, insert before and delete a
// declaration found through gopls's outline; the package still builds.
func TestLSPReplaceSymbolGopls(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	requireProgram(t, "go")
	f := newLSPFixture(t, goCase.files, client.Config{})
	out := f.must("lsp_replace_symbol", map[string]any{"file_path": "hello.go", "symbol": "Greeter.Greet",
		"new_text": "func (g Greeter) Greet() string {\n\treturn Hello(g.Prefix + \"!\")\n}\n"})
	wantIn(t, out, "Edited hello.go (+1 −1)", "no errors or warnings")
	out = f.must("lsp_replace_symbol", map[string]any{"file_path": "hello.go", "symbol": "Hello", "mode": "insert_after",
		"new_text": "// Bye says goodbye.\nfunc Bye() string { return \"bye\" }"})
	wantIn(t, out, "Edited hello.go (+3 −0)")
	out = f.must("lsp_replace_symbol", map[string]any{"file_path": "hello.go", "symbol": "Greeter", "mode": "insert_before",
		"new_text": "const Excl = \"!\""})
	wantIn(t, out, "Edited hello.go (+2 −0)")
	// A replacement that starts with a comment replaces the doc comment.
	out = f.must("lsp_replace_symbol", map[string]any{"file_path": "hello.go", "symbol": "Hello",
		"new_text": "// Hello greets name politely.\nfunc Hello(name string) string {\n\treturn \"hello \" + name + Excl\n}"})
	wantIn(t, out, "no errors or warnings")
	out = f.must("lsp_replace_symbol", map[string]any{"file_path": "hello.go", "symbol": "Bye", "mode": "delete"})
	wantIn(t, out, "Edited hello.go (+0 −3)")
	want := "package hello\n\n// Hello greets name politely.\nfunc Hello(name string) string {\n\treturn \"hello \" + name + Excl\n}\n\n" +
		"const Excl = \"!\"\n\n// Greeter greets with a prefix.\ntype Greeter struct {\n\tPrefix string\n}\n\n" +
		"// Greet greets through Hello.\nfunc (g Greeter) Greet() string {\n\treturn Hello(g.Prefix + \"!\")\n}\n"
	if got := f.read("hello.go"); got != want {
		t.Errorf("hello.go =\n%s\nwant\n%s", got, want)
	}
	f.run("go", "build", "./...")
	// Breaking the build: the result says so.
	out = f.must("lsp_replace_symbol", map[string]any{"file_path": "hello.go", "symbol": "Hello", "new_text": "func Hello() string { return 1 }"})
	wantIn(t, out, "error")
	res := f.call("lsp_replace_symbol", map[string]any{"file_path": "hello.go", "symbol": "Nope", "new_text": "x"})
	wantIn(t, res.Content, `no symbol named "Nope"`)
}

// Crash: the gopls process is killed; the next lsp_references restarts it
// and answers.
func TestLSPGoplsCrash(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	f := newLSPFixture(t, goCase.files, client.Config{})
	args := map[string]any{"symbol": "Hello", "file_path": "hello.go"}
	wantIn(t, f.must("lsp_references", args), "3 references")
	m, err := f.env.Manager()
	if err != nil {
		t.Fatal(err)
	}
	cs := m.Clients()
	if len(cs) != 1 || cs[0].PID() == 0 {
		t.Fatalf("clients %v", cs)
	}
	pid := cs[0].PID()
	if p, err := os.FindProcess(pid); err != nil {
		t.Fatal(err)
	} else if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	wantIn(t, f.must("lsp_references", args), "3 references", "use.go:4:36: ")
	if cs[0].PID() == pid || cs[0].PID() == 0 {
		t.Errorf("gopls pid %d after the crash (was %d)", cs[0].PID(), pid)
	}
	wantIn(t, f.must("lsp_restart", map[string]any{"server": "gopls"}), "Restarted gopls")
	wantIn(t, f.must("lsp_references", args), "3 references")
	res := f.call("lsp_restart", map[string]any{"server": "nope"})
	if !res.IsError || !strings.Contains(res.Content, "nope") {
		t.Errorf("restart of an unknown server: %+v", res)
	}
}

// A file type without a server, and a server that is not installed.
func TestLSPMissingServer(t *testing.T) {
	t.Parallel()
	off := false
	f := newLSPFixture(t, map[string]string{"a.txt": "hello\n", "a.zz": "x\n"}, client.Config{AutoLSP: &off,
		Servers: map[string]config.ServerConfig{"zz": {Command: []string{"agentls-no-such-server"}, Filetypes: []string{"zz"}}}})
	res := f.call("lsp_diagnostics", map[string]any{"file_path": "a.txt"})
	wantIn(t, res.Content, "no language server handles")
	res = f.call("lsp_references", map[string]any{"file_path": "a.zz", "line": 1, "column": 1})
	wantIn(t, res.Content, "agentls-no-such-server", "not installed")
	// Edits still work, without diagnostics.
	f.must("view", map[string]any{"file_path": "a.zz"})
	out := f.must("edit", map[string]any{"file_path": "a.zz", "old_string": "x", "new_string": "y"})
	if out != "Edited a.zz (+1 −1)." {
		t.Errorf("edit result %q", out)
	}
	res = f.call("lsp_references", map[string]any{"file_path": filepath.Join(os.TempDir(), "x.go"), "line": 1, "column": 1})
	wantIn(t, res.Content, "outside the workspace")
}

// A rename whose edits reach outside the workspace roots is blocked at
// the permission gate and changes nothing.
func TestLSPRenameOutsideRootsBlocked(t *testing.T) {
	t.Parallel()
	requireProgram(t, "gopls")
	outer, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, outer, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\n// B uses a.Hello.\nfunc B() string { return a.Hello() }\n",
	})
	ws, err := NewWorkspace([]string{filepath.Join(outer, "a")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := NewLSPEnv(ws, nil, nil)
	t.Cleanup(func() { env.Shutdown(context.Background()) })
	tool := NewLSPRenameTool(env)
	call := Call{ID: "o1", Input: []byte(`{"file_path": "a.go", "symbol": "Hello", "new_name": "Hi"}`)}
	req, err := tool.Describe(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if req.Blocked == "" || !req.OutsideRoots || len(req.Paths) != 1 || req.Paths[0] != filepath.Join(outer, "b", "b.go") {
		t.Fatalf("request = %+v", req)
	}
	res, err := tool.Run(context.Background(), call)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "outside the workspace roots") {
		t.Errorf("Run = %+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(outer, "a", "a.go")); strings.Contains(string(data), "Hi(") {
		t.Error("a blocked rename changed a file")
	}
}
