package client

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// The fixture: hello.go defines Hello (line 4) and calls it from Greet;
// use.go calls it on a line with é and 😀 before the call, where code
// points, UTF-16 units and bytes all differ.

func TestGoplsNavigation(t *testing.T) {
	t.Parallel()
	dir := copyFixture(t, "hello")
	m := goplsManager(t, newTestWS(dir), nil)
	ctx := context.Background()
	hello, use := filepath.Join(dir, "hello.go"), filepath.Join(dir, "use.go")
	defLine, defCol := find(t, hello, "Hello", 2)     // func Hello
	greetLine, greetCol := find(t, hello, "Hello", 3) // call in Greet
	useLine, useCol := find(t, use, "Hello", 2)       // call after é😀
	if l := strings.Split(mustRead(t, use), "\n")[useLine-1]; useCol-1 == strings.Index(l, "Hello(") {
		t.Fatal("the fixture line must have non-ASCII text before Hello")
	}

	c, err := m.ClientFor(ctx, use)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "gopls" || c.Root() != dir {
		t.Fatalf("client %s at %s, want gopls at %s", c.Name(), c.Root(), dir)
	}
	def := Location{Path: hello, Line: defLine, Column: defCol, EndLine: defLine, EndColumn: defCol + 5}

	t.Run("definition", func(t *testing.T) {
		locs, err := c.Definition(ctx, use, useLine, useCol+2) // inside the name
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != 1 || locs[0] != def {
			t.Errorf("definition = %+v, want %+v", locs, def)
		}
	})

	t.Run("references", func(t *testing.T) {
		locs, err := c.References(ctx, use, useLine, useCol, true)
		if err != nil {
			t.Fatal(err)
		}
		want := []Location{
			def,
			{Path: hello, Line: greetLine, Column: greetCol, EndLine: greetLine, EndColumn: greetCol + 5},
			{Path: use, Line: useLine, Column: useCol, EndLine: useLine, EndColumn: useCol + 5},
		}
		if !equalLocs(locs, want) {
			t.Errorf("references =\n%+v\nwant\n%+v", locs, want)
		}
		locs, err = c.References(ctx, use, useLine, useCol, false)
		if err != nil {
			t.Fatal(err)
		}
		if !equalLocs(locs, want[1:]) {
			t.Errorf("references without the declaration = %+v, want %+v", locs, want[1:])
		}
	})

	t.Run("document symbols", func(t *testing.T) {
		syms, err := c.DocumentSymbols(ctx, hello)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]Symbol{}
		for _, s := range syms {
			byName[s.Name] = s
		}
		h, ok := byName["Hello"]
		if !ok || h.Kind != "Function" || h.SelectionRange != def || h.Range.Line != defLine || h.Range.EndLine != defLine+2 {
			t.Errorf("Hello symbol = %+v (found %v), want a Function named at %+v spanning 3 lines", h, ok, def)
		}
		g := byName["Greeter"]
		if g.Kind != "Struct" || len(g.Children) != 1 || g.Children[0].Name != "Prefix" || g.Children[0].Kind != "Field" {
			t.Errorf("Greeter = %+v, want a Struct with the field Prefix as a child", g)
		}
		syms, err = c.DocumentSymbols(ctx, use)
		if err != nil {
			t.Fatal(err)
		}
		uLine, uCol := find(t, use, "Use", 2)
		if len(syms) != 1 || syms[0].Name != "Use" || syms[0].SelectionRange.Line != uLine || syms[0].SelectionRange.Column != uCol {
			t.Errorf("use.go symbols = %+v, want Use at %d:%d", syms, uLine, uCol)
		}
		// The end of Use's range is after é😀: in code points.
		if wantEnd := len([]rune(strings.Split(mustRead(t, use), "\n")[uLine-1])) + 1; syms[0].Range.EndColumn != wantEnd {
			t.Errorf("Use ends at column %d, want %d (code points)", syms[0].Range.EndColumn, wantEnd)
		}
	})

	t.Run("workspace symbols", func(t *testing.T) {
		syms, err := c.WorkspaceSymbols(ctx, "Hello")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range syms {
			if s.Name == "Hello" && s.Kind == "Function" && s.Range.Path == hello && s.Range.Line == defLine && s.Range.Column == defCol {
				found = true
			}
		}
		if !found {
			t.Errorf("workspace symbols for Hello = %+v, want Hello at %s:%d:%d", syms, hello, defLine, defCol)
		}
	})

	t.Run("incoming calls", func(t *testing.T) {
		calls, err := c.IncomingCalls(ctx, hello, defLine, defCol)
		if err != nil {
			t.Fatal(err)
		}
		sites := map[string]Location{}
		for _, call := range calls {
			if len(call.Sites) != 1 {
				t.Errorf("%s calls Hello at %d sites, want 1", call.Symbol.Name, len(call.Sites))
				continue
			}
			sites[call.Symbol.Name] = call.Sites[0]
		}
		if len(calls) != 2 {
			t.Errorf("incoming calls = %+v, want Greet and Use", calls)
		}
		if got, want := sites["Use"], (Location{Path: use, Line: useLine, Column: useCol, EndLine: useLine, EndColumn: useCol + 5}); got != want {
			t.Errorf("Use's call site = %+v, want %+v", got, want)
		}
		if got := sites["Greet"]; got.Path != hello || got.Line != greetLine || got.Column != greetCol {
			t.Errorf("Greet's call site = %+v, want %d:%d", got, greetLine, greetCol)
		}
	})

	t.Run("outgoing calls", func(t *testing.T) {
		uLine, uCol := find(t, use, "Use", 2)
		calls, err := c.OutgoingCalls(ctx, use, uLine, uCol)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 || calls[0].Symbol.Name != "Hello" || calls[0].Symbol.SelectionRange != def {
			t.Fatalf("outgoing calls = %+v, want Hello", calls)
		}
		if got, want := calls[0].Sites, []Location{{Path: use, Line: useLine, Column: useCol, EndLine: useLine, EndColumn: useCol + 5}}; !equalLocs(got, want) {
			t.Errorf("call sites = %+v, want %+v", got, want)
		}
	})

	t.Run("rename", func(t *testing.T) {
		target, err := c.PrepareRename(ctx, use, useLine, useCol+1)
		if err != nil {
			t.Fatal(err)
		}
		if want := (Location{Path: use, Line: useLine, Column: useCol, EndLine: useLine, EndColumn: useCol + 5}); target.Location != want || target.Placeholder != "Hello" {
			t.Errorf("prepareRename = %+v, want %+v named Hello", target, want)
		}
		edit, err := c.Rename(ctx, use, useLine, useCol, "Hi")
		if err != nil {
			t.Fatal(err)
		}
		if edit.Encoding != "utf-16" {
			t.Errorf("encoding %q, want utf-16", edit.Encoding)
		}
		check := func(path string, want []Location) {
			t.Helper()
			edits := edit.Changes[path]
			if len(edits) != len(want) {
				t.Fatalf("%s: %d edits %+v, want %d", path, len(edits), edits, len(want))
			}
			for i, e := range edits {
				got := Location{Path: path, Line: e.Line, Column: e.Column, EndLine: e.EndLine, EndColumn: e.EndColumn}
				if got != want[i] || e.NewText != "Hi" {
					t.Errorf("%s edit %d = %+v %q, want %+v \"Hi\"", path, i, got, e.NewText, want[i])
				}
			}
		}
		// gopls also renames the doc comment's mention.
		docLine, docCol := find(t, hello, "Hello", 1)
		check(hello, []Location{{Path: hello, Line: docLine, Column: docCol, EndLine: docLine, EndColumn: docCol + 5}, def, {Path: hello, Line: greetLine, Column: greetCol, EndLine: greetLine, EndColumn: greetCol + 5}})
		check(use, []Location{{Path: use, Line: useLine, Column: useCol, EndLine: useLine, EndColumn: useCol + 5}})
		// The raw position is the server's: UTF-16 units, 0-based.
		line := strings.Split(mustRead(t, use), "\n")[useLine-1]
		units := uint32(len(utf16.Encode([]rune(line[:strings.Index(line, "Hello(")]))))
		if raw := edit.Changes[use][0].Raw; raw.StartLine != uint32(useLine-1) || raw.StartCharacter != units || raw.EndCharacter != units+5 {
			t.Errorf("raw range %+v, want line %d characters %d-%d", raw, useLine-1, units, units+5)
		}
		// documentChanges name the versions Sync sent.
		for _, p := range []string{hello, use} {
			if v, ok := edit.Versions[p]; !ok || v != c.current().docVersion(p) {
				t.Errorf("edit for version %d (%v) of %s, but the server has %d", v, ok, p, c.current().docVersion(p))
			}
		}
		// Nothing was applied.
		if !strings.Contains(mustRead(t, hello), "func Hello(") {
			t.Error("rename changed the file on disk")
		}
	})

	t.Run("disk writes announced", func(t *testing.T) {
		// A new file, announced through the watchers gopls registered
		// (gopls may also find it by itself; TestSyncAndDidWrite checks
		// the notification).
		extra := filepath.Join(dir, "extra.go")
		os.WriteFile(extra, []byte("package hello\n\nfunc Extra() string { return Hello(\"x\") }\n"), 0o644)
		m.DidWrite(ctx, extra)
		locs, err := c.References(ctx, use, useLine, useCol, false)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, l := range locs {
			found = found || l.Path == extra
		}
		if !found {
			t.Errorf("references after creating extra.go = %+v, want one there", locs)
		}
		// An edit of a file gopls has open (DocumentSymbols opened it):
		// resynced with didChange, so positions move. Without DidWrite
		// gopls keeps the old text.
		os.WriteFile(hello, []byte("// moved\n"+mustRead(t, hello)), 0o644)
		m.DidWrite(ctx, hello)
		locs, err = c.Definition(ctx, use, useLine, useCol)
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != 1 || locs[0].Line != defLine+1 {
			t.Errorf("definition after the edit = %+v, want line %d", locs, defLine+1)
		}
	})

	t.Run("bad position", func(t *testing.T) {
		if _, err := c.Definition(ctx, use, 99, 1); err == nil || !strings.Contains(err.Error(), "past the end") {
			t.Errorf("line past the end: %v", err)
		}
		if _, err := c.Definition(ctx, use, useLine, 500); err == nil || !strings.Contains(err.Error(), "column 500") {
			t.Errorf("column past the end: %v", err)
		}
	})
}

func TestGoplsDiagnostics(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"push", "pull"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := copyFixture(t, "hello")
			ws := newTestWS(dir)
			var initOptions any
			if mode == "pull" {
				initOptions = map[string]any{"pullDiagnostics": true}
			}
			m := goplsManager(t, ws, initOptions)
			ctx := context.Background()
			use := filepath.Join(dir, "use.go")
			c, err := m.ClientFor(ctx, use)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.current().pulls(); got != (mode == "pull") {
				t.Fatalf("pull diagnostics = %v in %s mode", got, mode)
			}
			diags, err := c.Diagnostics(ctx, use)
			if err != nil {
				t.Fatal(err)
			}
			if len(diags) != 0 {
				t.Fatalf("clean file has diagnostics: %+v", diags)
			}

			// An error typed in the editor, not on disk, after é😀.
			broken := strings.Replace(mustRead(t, use), `Hello("wörld")`, `Hello(42)`, 1)
			ws.edit(use, broken)
			if err := m.Sync(ctx, use); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			diags, err = c.Diagnostics(ctx, use)
			if err != nil {
				t.Fatal(err)
			}
			line, col := findIn(t, broken, "42", 1)
			if len(diags) != 1 || diags[0].Severity != "Error" || diags[0].Line != line || diags[0].Column != col || diags[0].EndColumn != col+2 || diags[0].Path != use {
				t.Fatalf("diagnostics of the broken buffer = %+v, want one Error at %d:%d-%d", diags, line, col, col+2)
			}
			if !strings.Contains(diags[0].Message, "42") {
				t.Errorf("message %q does not mention 42", diags[0].Message)
			}
			t.Logf("%s: error reported after %v: %s (%s)", mode, time.Since(start).Round(time.Millisecond), diags[0].Message, diags[0].Source)

			// A second, different error: the result must be fresh, not
			// the previous one.
			broken2 := strings.Replace(mustRead(t, use), `Hello("wörld")`, `Hello(true)`, 1)
			ws.edit(use, broken2)
			diags, err = c.Diagnostics(ctx, use) // Diagnostics syncs by itself
			if err != nil {
				t.Fatal(err)
			}
			if len(diags) != 1 || !strings.Contains(diags[0].Message, "true") {
				t.Fatalf("after changing the error, diagnostics = %+v, want the one about true", diags)
			}

			// Fixed in the editor (still different from disk).
			ws.edit(use, strings.Replace(mustRead(t, use), `"wörld"`, `"monde"`, 1))
			start = time.Now()
			diags, err = c.Diagnostics(ctx, use)
			if err != nil {
				t.Fatal(err)
			}
			if len(diags) != 0 {
				t.Fatalf("after the fix, diagnostics = %+v, want none (stale?)", diags)
			}
			t.Logf("%s: fix seen after %v", mode, time.Since(start).Round(time.Millisecond))
		})
	}
}

func TestGoplsCrashRestart(t *testing.T) {
	t.Parallel()
	dir := copyFixture(t, "hello")
	m := goplsManager(t, newTestWS(dir), nil)
	ctx := context.Background()
	use := filepath.Join(dir, "use.go")
	line, col := find(t, use, "Hello", 2)
	c, err := m.ClientFor(ctx, use)
	if err != nil {
		t.Fatal(err)
	}
	refs := func() error {
		locs, err := c.References(ctx, use, line, col, true)
		if err == nil && len(locs) != 3 {
			err = errors.New("wrong number of references")
		}
		return err
	}
	if err := refs(); err != nil {
		t.Fatal(err)
	}
	for crash := 1; crash <= 4; crash++ {
		pid := c.PID()
		if pid == 0 {
			t.Fatalf("crash %d: gopls is not running", crash)
		}
		if p, err := os.FindProcess(pid); err != nil {
			t.Fatal(err)
		} else if err := p.Kill(); err != nil {
			t.Fatal(err)
		}
		err := refs()
		if crash <= maxRestarts {
			if err != nil {
				t.Fatalf("References after crash %d: %v (want a transparent restart)", crash, err)
			}
			if c.PID() == pid {
				t.Fatalf("crash %d: same pid after restart", crash)
			}
			continue
		}
		if !errors.Is(err, ErrCrashLoop) {
			t.Fatalf("References after crash %d: %v, want ErrCrashLoop", crash, err)
		}
		for _, want := range []string{"gopls", "crashed 4 times", "lsp_restart"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("crash-loop error %q does not mention %q", err, want)
			}
		}
	}
	// An explicit restart forgives the crashes.
	if err := m.Restart(ctx, "gopls"); err != nil {
		t.Fatal(err)
	}
	if err := refs(); err != nil {
		t.Fatalf("References after Restart: %v", err)
	}
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func equalLocs(a, b []Location) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
