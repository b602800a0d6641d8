package client

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/config"
)

func TestPositionConversion(t *testing.T) {
	t.Parallel()
	// Line 2: tab, é (2 bytes, 1 UTF-16 unit), 😀 (4 bytes, 2 units), x.
	src := "ascii\n\té😀x = 1\r\nlast"
	tx := newText(src)
	if n := tx.lineCount(); n != 3 {
		t.Fatalf("lineCount = %d, want 3", n)
	}
	if got := tx.line(1); got != "\té😀x = 1" {
		t.Fatalf("line 1 = %q", got)
	}
	// Column of x is 4 (code points); its server column per encoding:
	for enc, want := range map[encoding]uint32{encUTF16: 4, encUTF8: 7, encUTF32: 3} {
		p, err := tx.toServer(enc, 2, 4)
		if err != nil || p.Line != 1 || p.Character != want {
			t.Errorf("%s: toServer(2,4) = %+v %v, want 1:%d", enc, p, err, want)
		}
		if l, c := tx.fromServer(enc, p); l != 2 || c != 4 {
			t.Errorf("%s: fromServer(%+v) = %d:%d, want 2:4", enc, p, l, c)
		}
	}
	// A UTF-16 column inside the surrogate pair rounds down to the emoji.
	if _, c := tx.fromServer(encUTF16, position{Line: 1, Character: 3}); c != 3 {
		t.Errorf("mid-surrogate column -> %d, want 3", c)
	}
	// A UTF-8 column inside é rounds down too.
	if _, c := tx.fromServer(encUTF8, position{Line: 1, Character: 2}); c != 2 {
		t.Errorf("mid-é byte column -> %d, want 2", c)
	}
	// End of line is allowed; past it is an error naming the line length.
	if p, err := tx.toServer(encUTF16, 2, 9); err != nil || p.Character != 9 {
		t.Errorf("end of line: %+v %v", p, err)
	}
	if _, err := tx.toServer(encUTF16, 2, 10); err == nil || !strings.Contains(err.Error(), "8 characters") {
		t.Errorf("past the end of the line: %v", err)
	}
	if _, err := tx.toServer(encUTF16, 4, 1); err == nil {
		t.Error("line past the end accepted")
	}
	if _, err := tx.toServer(encUTF16, 0, 1); err == nil {
		t.Error("line 0 accepted")
	}
	// Server positions past the end clamp.
	if l, c := tx.fromServer(encUTF16, position{Line: 9, Character: 0}); l != 3 || c != 5 {
		t.Errorf("past the last line -> %d:%d, want 3:5", l, c)
	}
	if l, c := tx.fromServer(encUTF16, position{Line: 0, Character: 99}); l != 1 || c != 6 {
		t.Errorf("past the end of an ASCII line -> %d:%d, want 1:6", l, c)
	}
	// A lone CR ends a line too.
	if n := newText("a\rb").lineCount(); n != 2 {
		t.Errorf("lone CR: %d lines, want 2", n)
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"**/*.go", "/w/a/b.go", true},
		{"**/*.go", "b.go", true},
		{"**/*.go", "/w/a/b.gox", false},
		{"**/*.{go,mod}", "/w/go.mod", true},
		{"*.go", "a/b.go", false},
		{"src/**/test_?.py", "src/x/y/test_1.py", true},
		{"src/**/test_?.py", "src/test_12.py", false},
		{"[!a]bc", "xbc", true},
		{"[!a]bc", "abc", false},
		{"[a-c]*", "cz", true},
		{"**/é.txt", "/w/é.txt", true},
		{"**", "/any/thing", true},
	}
	for _, tt := range tests {
		re, err := globRegexp(tt.pattern)
		if err != nil {
			t.Errorf("%s: %v", tt.pattern, err)
			continue
		}
		if got := re.MatchString(tt.path); got != tt.want {
			t.Errorf("%s ~ %s = %v, want %v (%s)", tt.pattern, tt.path, got, tt.want, re)
		}
	}
	// Relative patterns and watch kinds.
	w, err := newWatcher(fileSystemWatcher{GlobPattern: json.RawMessage(`{"baseUri":"file:///w/mod","pattern":"**/*.go"}`), Kind: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if !w.matches("/w/mod/a/b.go", "/w", fileChanged) || w.matches("/w/other/b.go", "/w", fileChanged) || w.matches("/w/mod/b.go", "/w", fileCreated) {
		t.Error("relative watcher matched wrongly")
	}
	w, _ = newWatcher(fileSystemWatcher{GlobPattern: json.RawMessage(`{"baseUri":{"uri":"file:///w","name":"w"},"pattern":"*.mod"}`)})
	if !w.matches("/w/go.mod", "/w", fileDeleted) {
		t.Error("workspace-folder base not honoured")
	}
}

func ptr[T any](v T) *T { return &v }

func TestLookupSection(t *testing.T) {
	t.Parallel()
	settings := normalize(map[string]any{
		"gopls":           map[string]any{"hints": map[string]any{"x": true}},
		"python.analysis": map[string]any{"typeCheckingMode": "strict"},
	})
	tests := map[string]string{
		"gopls":                            `{"hints":{"x":true}}`,
		"gopls.hints.x":                    `true`,
		"python.analysis":                  `{"typeCheckingMode":"strict"}`,
		"python.analysis.typeCheckingMode": `"strict"`,
		"python":                           `null`,
		"nope":                             `null`,
	}
	for section, want := range tests {
		got, _ := json.Marshal(lookupSection(settings, section))
		if string(got) != want {
			t.Errorf("%s = %s, want %s", section, got, want)
		}
	}
	if got := lookupSection(nil, "gopls"); got != nil {
		t.Errorf("no settings -> %v, want nil", got)
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	var servers map[string]config.ServerConfig
	data := `{
		"gopls": {"settings": {"gopls": {"staticcheck": true}}},
		"pyright": {"disabled": true},
		"mine": {"command": "my-ls --stdio", "filetypes": [".zz"]}
	}`
	if err := json.Unmarshal([]byte(data), &servers); err != nil {
		t.Fatal(err)
	}
	if got := servers["mine"].Command; len(got) != 2 || got[0] != "my-ls" || got[1] != "--stdio" {
		t.Errorf("string command = %q", got)
	}
	if err := json.Unmarshal([]byte(`{"command": 3}`), new(config.ServerConfig)); err == nil || !strings.Contains(err.Error(), "list of strings") {
		t.Errorf("bad command: %v", err)
	}
	names := func(es []serverEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.cfg.Name)
		}
		return out
	}
	got := resolveServers(Config{Servers: servers})
	if n := strings.Join(names(got), ","); n != "gopls,mine,clangd,rust-analyzer,typescript-language-server" {
		t.Errorf("servers = %s (user entries first, pyright disabled)", n)
	}
	if g := got[0].cfg; g.Command[0] != "gopls" || g.Settings == nil || len(g.RootMarkers) == 0 {
		t.Errorf("gopls override lost built-in fields or settings: %+v", g)
	}
	off := false
	if n := strings.Join(names(resolveServers(Config{Servers: servers, AutoLSP: &off})), ","); n != "gopls,mine" {
		t.Errorf("auto_lsp off: servers = %s, want only the configured ones", n)
	}
	for path, want := range map[string]bool{"/a/x.go": true, "/a/go.mod": true, "/a/go.sum": true, "/a/x.gox": false, "/a/mod": false} {
		if got := handles(config.BuiltinServers()["gopls"].Filetypes, path); got != want {
			t.Errorf("gopls handles %s = %v", path, got)
		}
	}
	if !handles([]string{"typescriptreact"}, "/a/b.tsx") {
		t.Error("language-id filetype not matched")
	}
}

func TestRootMarkers(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, f := range []string{"go.work", "a/go.mod", "b/go.mod", "b/c/x.go", "a/x.go", "d/x.go"} {
		p := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	m := NewManager(Config{}, newTestWS(ws), nil)
	markers := config.BuiltinServers()["gopls"].RootMarkers
	// go.work comes first: it wins over the nearer go.mod.
	if got, _ := m.rootFor(filepath.Join(ws, "b/c/x.go"), markers); got != ws {
		t.Errorf("root = %s, want the go.work folder %s", got, ws)
	}
	if got, _ := m.rootFor(filepath.Join(ws, "b/c/x.go"), []string{"go.mod"}); got != filepath.Join(ws, "b") {
		t.Errorf("root = %s, want %s/b", got, ws)
	}
	if got, _ := m.rootFor(filepath.Join(ws, "d/x.go"), []string{"go.mod"}); got != ws {
		t.Errorf("no marker: root = %s, want the workspace folder", got)
	}
	if got, _ := m.rootFor("/elsewhere/x.go", markers); got != "" {
		t.Errorf("outside the workspace: root = %q, want none", got)
	}
}

func TestNestFlatSymbols(t *testing.T) {
	t.Parallel()
	loc := func(l1, c1, l2, c2 int) Location {
		return Location{Path: "/f", Line: l1, Column: c1, EndLine: l2, EndColumn: c2}
	}
	flat := []Symbol{
		{Name: "method", Range: loc(2, 3, 4, 3)},
		{Name: "Class", Range: loc(1, 1, 10, 2)},
		{Name: "inner", Range: loc(3, 5, 3, 9)},
		{Name: "other", Range: loc(5, 3, 6, 3)},
		{Name: "free", Range: loc(12, 1, 14, 2)},
	}
	tree := nest(flat)
	if len(tree) != 2 || tree[0].Name != "Class" || tree[1].Name != "free" {
		t.Fatalf("roots = %+v", tree)
	}
	c := tree[0].Children
	if len(c) != 2 || c[0].Name != "method" || c[1].Name != "other" || len(c[0].Children) != 1 || c[0].Children[0].Name != "inner" {
		t.Errorf("Class children = %+v", c)
	}
}

// TestWaitPublished checks the settle rules on a session with no process.
func TestWaitPublished(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{RequestTimeout: 5 * time.Second}, newTestWS(t.TempDir()), nil)
	m.settle, m.changeWait, m.openWait = 100*time.Millisecond, 300*time.Millisecond, 600*time.Millisecond
	newSession := func() *session {
		s := &session{c: &Client{m: m}, name: "test", pushed: map[string]*published{}, diagWake: make(chan struct{})}
		s.ctx, s.cancel = context.WithCancel(context.Background())
		t.Cleanup(s.cancel)
		return s
	}
	publish := func(s *session, version int32, msg string) {
		s.storePublished(publishDiagnosticsParams{URI: "file:///f.go", Version: &version, Diagnostics: []diagnostic{{Message: msg}}})
	}
	now := time.Now()
	d := docState{path: "/f.go", version: 3, opened: now.Add(-time.Minute), sent: now}

	t.Run("waits for the sent version, then settles", func(t *testing.T) {
		// A settle far longer than the 50 ms between the stages, so a
		// busy machine does not settle on the first (the others' times
		// stay short).
		m.settle = time.Second
		defer func() { m.settle = 100 * time.Millisecond }()
		s := newSession()
		publish(s, 2, "old")
		go func() {
			time.Sleep(50 * time.Millisecond)
			publish(s, 3, "new, stage 1")
			time.Sleep(50 * time.Millisecond)
			publish(s, 3, "new, stage 2")
		}()
		start := time.Now()
		items, err := s.waitPublished(context.Background(), d)
		if err != nil || len(items) != 1 || items[0].Message != "new, stage 2" {
			t.Fatalf("got %+v %v, want the last stage", items, err)
		}
		if e := time.Since(start); e < 1090*time.Millisecond {
			t.Errorf("returned after %v, before settling", e)
		}
	})
	t.Run("no republish: the last publication stands after changeWait", func(t *testing.T) {
		s := newSession()
		publish(s, 2, "same")
		d := d
		d.sent = time.Now()
		start := time.Now()
		items, _ := s.waitPublished(context.Background(), d)
		if len(items) != 1 || items[0].Message != "same" {
			t.Fatalf("got %+v", items)
		}
		if e := time.Since(start); e < 280*time.Millisecond || e > time.Second {
			t.Errorf("returned after %v, want about changeWait (300ms)", e)
		}
	})
	t.Run("already fresh and quiet returns at once", func(t *testing.T) {
		s := newSession()
		publish(s, 3, "fresh")
		s.pushed["/f.go"].at = time.Now().Add(-time.Second)
		start := time.Now()
		items, _ := s.waitPublished(context.Background(), d)
		if len(items) != 1 || time.Since(start) > 50*time.Millisecond {
			t.Errorf("got %+v after %v", items, time.Since(start))
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		s := newSession()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		d := d
		d.sent = time.Now()
		if _, err := s.waitPublished(ctx, d); err == nil {
			t.Error("no error after the context ended")
		}
	})
}

// TestSettle checks the confirmation of unversioned publications: it
// follows each publication, returns once they stop changing, and gives up
// at its bound.
func TestSettle(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{}, newTestWS(t.TempDir()), nil)
	newSession := func() *session {
		s := &session{c: &Client{m: m}, name: "test", pushed: map[string]*published{}, diagWake: make(chan struct{})}
		s.ctx, s.cancel = context.WithCancel(context.Background())
		t.Cleanup(s.cancel)
		return s
	}
	publish := func(s *session, msgs ...string) {
		var items []diagnostic
		for _, m := range msgs {
			items = append(items, diagnostic{Message: m})
		}
		s.storePublished(publishDiagnosticsParams{URI: "file:///f.ts", Diagnostics: items})
	}
	stale := []Diagnostic{{Path: "/f.ts", Line: 1, Column: 1, EndLine: 1, EndColumn: 1, Severity: "Error", Message: "stale"}}

	t.Run("a later publication replaces the first result", func(t *testing.T) {
		s := newSession()
		publish(s, "stale")
		go func() {
			time.Sleep(100 * time.Millisecond)
			publish(s, "syntax")
			time.Sleep(100 * time.Millisecond)
			publish(s) // the semantic stage clears it
		}()
		start := time.Now()
		got := s.settle(context.Background(), "/f.ts", stale, 400*time.Millisecond, 3*time.Second)
		if len(got) != 0 {
			t.Fatalf("got %+v, want the last (empty) publication", got)
		}
		if e := time.Since(start); e < 590*time.Millisecond || e > 2*time.Second {
			t.Errorf("returned after %v, want about 200 ms of publications plus 400 ms quiet", e)
		}
	})
	t.Run("unchanged: returns after the quiet period", func(t *testing.T) {
		s := newSession()
		publish(s, "stale")
		start := time.Now()
		got := s.settle(context.Background(), "/f.ts", stale, 150*time.Millisecond, 2*time.Second)
		if len(got) != 1 || got[0].Message != "stale" {
			t.Fatalf("got %+v", got)
		}
		if e := time.Since(start); e < 140*time.Millisecond || e > 600*time.Millisecond {
			t.Errorf("returned after %v, want about 150 ms", e)
		}
	})
	t.Run("bounded while publications keep changing", func(t *testing.T) {
		s := newSession()
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
					publish(s, fmt.Sprint(i))
				}
			}
		}()
		start := time.Now()
		// A quiet window twenty times the gap between publications, so a
		// busy machine's stall does not look like quiet.
		s.settle(context.Background(), "/f.ts", stale, 400*time.Millisecond, 800*time.Millisecond)
		if e := time.Since(start); e < 790*time.Millisecond || e > 2*time.Second {
			t.Errorf("returned after %v, want the 800 ms bound", e)
		}
	})
	t.Run("the session ending ends the wait", func(t *testing.T) {
		s := newSession()
		time.AfterFunc(50*time.Millisecond, s.cancel)
		start := time.Now()
		s.settle(context.Background(), "/f.ts", stale, time.Second, 2*time.Second)
		if e := time.Since(start); e > 500*time.Millisecond {
			t.Errorf("returned after %v, want at the session's end (50 ms)", e)
		}
	})
}

// A flat document-symbol answer has no name position: onNames finds the
// name, whole, inside the declaration, counting code points.
func TestOnNames(t *testing.T) {
	tx := newText("package p\n\n// Hello, not here.\nfunc é() { HelloX(); Hello() }\ntype (T) struct{}\n")
	syms := []Symbol{
		{Name: "Hello", Range: Location{Path: "/p.go", Line: 3, Column: 1, EndLine: 4, EndColumn: 31}},
		{Name: "(*T).Greet", Range: Location{Path: "/p.go", Line: 5, Column: 1, EndLine: 5, EndColumn: 18}},
		{Name: "Missing", Range: Location{Path: "/p.go", Line: 1, Column: 1, EndLine: 1, EndColumn: 9}},
	}
	syms[0].SelectionRange, syms[1].SelectionRange, syms[2].SelectionRange = syms[0].Range, syms[1].Range, syms[2].Range
	onNames(syms, tx)
	if got, want := syms[0].SelectionRange, (Location{Path: "/p.go", Line: 3, Column: 4, EndLine: 3, EndColumn: 9}); got != want {
		t.Errorf("Hello at %+v, want %+v (the first whole word)", got, want)
	}
	syms[0].Range.Line, syms[0].Range.Column = 4, 1
	syms[0].SelectionRange = syms[0].Range
	onNames(syms[:1], tx)
	if got, want := syms[0].SelectionRange, (Location{Path: "/p.go", Line: 4, Column: 22, EndLine: 4, EndColumn: 27}); got != want {
		t.Errorf("Hello at %+v, want %+v (after é, not HelloX)", got, want)
	}
	if got := syms[1].SelectionRange; got != syms[1].Range {
		t.Errorf("Greet, absent from its range, moved to %+v", got)
	}
	if syms[2].SelectionRange != syms[2].Range {
		t.Errorf("a name not in the declaration moved the range: %+v", syms[2].SelectionRange)
	}
}
