package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/langserver/client"
	"github.com/agentls/agentls/internal/sandbox/sandboxtest"
)

// programHints are how to install each real program the tests use.
var programHints = map[string]string{
	"gopls":                      "go install golang.org/x/tools/gopls@v0.23.0 (it lands in ~/go/bin)",
	"pyright-langserver":         "npm install -g pyright",
	"pyright":                    "npm install -g pyright",
	"typescript-language-server": "npm install -g typescript-language-server@5.3.0 typescript@5.9.3",
	"tsc":                        "npm install -g typescript@5.9.3",
	"clangd":                     "apt-get update && apt-get install -y clangd",
	"clang":                      "apt-get update && apt-get install -y clang",
	"go":                         "install Go",
	"rg":                         "apt-get update && apt-get install -y ripgrep",
}

var goBinOnPath sync.Once

// requireProgram fails (never skips) when a program the tests need (a
// real language server, ripgrep) is missing, with how to install it.
func requireProgram(t testing.TB, name string) {
	t.Helper()
	goBinOnPath.Do(func() {
		// Real servers installed with `go install` live in GOPATH/bin.
		if home, err := os.UserHomeDir(); err == nil {
			os.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+filepath.Join(home, "go", "bin"))
		}
	})
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not on PATH: install it with `%s` (the tests need it)", name, programHints[name])
	}
}

// lspFixture is a workspace with real files, an overlay the test can
// type into, and the lsp tools over it.
type lspFixture struct {
	t    testing.TB
	root string
	ws   *Workspace
	ov   *syncOverlay
	env  *LSPEnv
	byN  map[string]Tool
	seq  *atomic.Int64
}

// with is the fixture reporting to t (a subtest).
func (f *lspFixture) with(t testing.TB) *lspFixture {
	c := *f
	c.t = t
	return &c
}

// syncOverlay is a concurrency-safe in-test editor. Like the editor's
// overlay it signals every change (OverlayWaiter).
type syncOverlay struct {
	mu      sync.Mutex
	docs    map[string]Document
	changed chan struct{} // closed and replaced on every set
}

func newSyncOverlay() *syncOverlay {
	return &syncOverlay{docs: map[string]Document{}, changed: make(chan struct{})}
}

func (o *syncOverlay) Document(path string) (Document, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[path]
	return d, ok
}

func (o *syncOverlay) WaitDocument(ctx context.Context, path string, ok func(Document, bool) bool) bool {
	for {
		o.mu.Lock()
		d, open := o.docs[path]
		ch := o.changed
		o.mu.Unlock()
		if ok(d, open) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-ch:
		}
	}
}

func (o *syncOverlay) set(path, text string) {
	o.mu.Lock()
	o.setLocked(path, text)
	o.mu.Unlock()
}

func (o *syncOverlay) setLocked(path, text string) {
	d := o.docs[path]
	o.docs[path] = Document{Text: text, Version: d.Version + 1}
	close(o.changed)
	o.changed = make(chan struct{})
}

// overlayApplier applies changes of open documents to the in-test
// overlay, like an editor without the plugin (buffer only).
type overlayApplier struct {
	o *syncOverlay
	// late delays the change reaching the overlay.
	late time.Duration
}

func (a overlayApplier) ApplyOpen(_ context.Context, ch FileChange) (Applied, error) {
	a.o.mu.Lock()
	defer a.o.mu.Unlock()
	d := a.o.docs[ch.Path]
	if d.Version != ch.Version || d.Text != ch.Old {
		return Applied{}, &NotAppliedError{Reason: "version mismatch"}
	}
	if a.late > 0 {
		// An editor that sends its didChange after answering applyEdit
		// (Neovim debounces it).
		time.AfterFunc(a.late, func() { a.o.set(ch.Path, ch.New) })
		return Applied{Unsaved: "test editor"}, nil
	}
	a.o.setLocked(ch.Path, ch.New)
	return Applied{Unsaved: "test editor"}, nil
}

func newLSPFixture(t testing.TB, files map[string]string, cfg client.Config) *lspFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lspWriteFiles(t, root, files)
	ov := newSyncOverlay()
	ws, err := NewWorkspace([]string{root}, ov)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetApplier(overlayApplier{o: ov})
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 60e9
	}
	if cfg.Sandbox == nil {
		// The servers run confined, as they do for a person.
		cfg.Sandbox = sandboxtest.New(t, root)
	}
	env := NewLSPEnv(ws, func() client.Config { return cfg }, nil)
	t.Cleanup(func() { env.Shutdown(context.Background()) })
	f := &lspFixture{t: t, root: root, ws: ws, ov: ov, env: env, byN: map[string]Tool{}, seq: new(atomic.Int64)}
	for _, tool := range append(LSPTools(env), NewEditTool(ws), NewViewTool(ws), NewWriteTool(ws)) {
		f.byN[tool.Spec().Name] = tool
	}
	return f
}

func (f *lspFixture) path(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

func (f *lspFixture) read(rel string) string {
	f.t.Helper()
	data, err := os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// call runs a tool like the agent does: Describe (its error is the
// result), then Run.
func (f *lspFixture) call(name string, input any) Result {
	f.t.Helper()
	tool, ok := f.byN[name]
	if !ok {
		f.t.Fatalf("no tool %s", name)
	}
	raw, err := json.Marshal(input)
	if err != nil {
		f.t.Fatal(err)
	}
	call := Call{ID: fmt.Sprint("call-", f.seq.Add(1)), SessionID: "s1", TurnID: "t1", Input: raw}
	ctx := context.Background()
	req, err := tool.Describe(ctx, call)
	if err != nil {
		return Errorf("%v", err)
	}
	if req.Capability != tool.Spec().Capability || req.Tool != name && req.Tool != "" {
		f.t.Errorf("%s: request %+v does not match its spec", name, req)
	}
	if req.Blocked != "" {
		return Errorf("%s", req.Blocked)
	}
	res, err := tool.Run(ctx, call)
	if err != nil {
		f.t.Fatalf("%s.Run: %v", name, err)
	}
	return res
}

// must runs a tool and fails the test on an error result.
func (f *lspFixture) must(name string, input any) string {
	f.t.Helper()
	res := f.call(name, input)
	if res.IsError {
		f.t.Fatalf("%s %v: error result:\n%s", name, input, res.Content)
	}
	return res.Content
}

// pos is the 1-based line and code-point column of the n-th (from 1)
// occurrence of needle in the file.
func (f *lspFixture) pos(rel, needle string, n int) (int, int) {
	f.t.Helper()
	return findPos(f.t, f.read(rel), needle, n)
}

func findPos(t testing.TB, text, needle string, n int) (int, int) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		off := 0
		for {
			j := strings.Index(line[off:], needle)
			if j < 0 {
				break
			}
			if n--; n == 0 {
				return i + 1, utf8.RuneCountInString(line[:off+j]) + 1
			}
			off += j + len(needle)
		}
	}
	t.Fatalf("%q not found", needle)
	return 0, 0
}

// loc is "rel:line:col" for the n-th occurrence of needle.
func (f *lspFixture) loc(rel, needle string, n int) string {
	f.t.Helper()
	l, c := f.pos(rel, needle, n)
	return fmt.Sprintf("%s:%d:%d", rel, l, c)
}

// run runs a command in the fixture's root and fails with its output.
func (f *lspFixture) run(name string, args ...string) {
	f.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = f.root
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func wantIn(t testing.TB, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("result lacks %q:\n%s", w, got)
		}
	}
}

func wantNotIn(t testing.TB, got string, notWant ...string) {
	t.Helper()
	for _, w := range notWant {
		if strings.Contains(got, w) {
			t.Errorf("result has %q:\n%s", w, got)
		}
	}
}

// lspWriteFiles is writeFiles for benchmarks too.
func lspWriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
