package client

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/agentls/agentls/internal/config"
)

func TestShutdownSendsNoParams(t *testing.T) {
	t.Parallel()
	m, dir, logPath := fakeManager(t, "", nil)
	ctx := context.Background()
	path := fakeFile(t, dir, "hello\n")
	if _, err := m.ClientFor(ctx, path); err != nil {
		t.Fatal(err)
	}
	m.Shutdown(ctx)

	init := framesWith(t, logPath, "initialize")
	if len(init) != 1 {
		t.Fatalf("got %d initialize requests, want 1", len(init))
	}
	var params struct {
		Capabilities struct {
			General struct {
				PositionEncodings []string `json:"positionEncodings"`
			} `json:"general"`
		} `json:"capabilities"`
	}
	json.Unmarshal(init[0]["params"], &params)
	if got := params.Capabilities.General.PositionEncodings; len(got) == 0 || got[0] != "utf-16" {
		t.Errorf("positionEncodings = %v, want utf-16 offered", got)
	}
	for _, method := range []string{"shutdown", "exit"} {
		fs := framesWith(t, logPath, method)
		if len(fs) != 1 {
			t.Fatalf("got %d %s messages, want 1", len(fs), method)
		}
		if p, ok := fs[0]["params"]; ok {
			t.Errorf("%s was sent with a params member (%s); tsgo rejects that", method, p)
		}
	}
	if _, err := m.ClientFor(ctx, path); !errors.Is(err, ErrShutDown) {
		t.Errorf("ClientFor after Shutdown: %v, want ErrShutDown", err)
	}
}

// TestShutdownAbandonsAStart: a server still starting when agentls exits
// is not waited for until the start times out: the editor waits for
// agentls's exit, and Neovim sends SIGTERM after a few seconds.
func TestShutdownAbandonsAStart(t *testing.T) {
	t.Parallel()
	m, dir, logPath := fakeManager(t, "noinit", func(c *Config) { c.StartTimeout = time.Minute })
	path := fakeFile(t, dir, "hello\n")
	started := make(chan error, 1)
	go func() {
		_, err := m.ClientFor(context.Background(), path)
		started <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(framesWith(t, logPath, "initialize")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the fake server never received initialize")
		}
		time.Sleep(10 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() {
		m.Shutdown(context.Background())
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown waited for a start that never ends (its timeout is a minute)")
	}
	if err := <-started; err == nil {
		t.Error("ClientFor of an abandoned start succeeded")
	}
}

func TestPositionEncodings(t *testing.T) {
	t.Parallel()
	const line = "\té😀 x := 1 // ü"
	tests := []struct {
		mode, want string
		units      func(string) int
	}{
		{"echo", "utf-16", func(s string) int { return len(utf16.Encode([]rune(s))) }},
		{"echo,enc=utf-8", "utf-8", func(s string) int { return len(s) }},
		{"echo,enc=utf-32", "utf-32", func(s string) int { return len([]rune(s)) }},
		{"echo,offset=utf-8", "utf-8", func(s string) int { return len(s) }},
		{"echo,garbage", "utf-16", func(s string) int { return len(utf16.Encode([]rune(s))) }},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			m, dir, logPath := fakeManager(t, tt.mode, nil)
			ctx := context.Background()
			path := fakeFile(t, dir, "first\n"+line+"\n")
			c, err := m.ClientFor(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.PositionEncoding(); got != tt.want {
				t.Errorf("encoding = %s, want %s", got, tt.want)
			}
			ln, col := findIn(t, "first\n"+line, "x :=", 1)
			locs, err := c.Definition(ctx, path, ln, col)
			if err != nil {
				t.Fatal(err)
			}
			reqs := framesWith(t, logPath, "textDocument/definition")
			var p positionParams
			json.Unmarshal(reqs[len(reqs)-1]["params"], &p)
			prefix := line[:strings.Index(line, "x :=")]
			if want := tt.units(prefix); int(p.Position.Character) != want || p.Position.Line != 1 {
				t.Errorf("sent %d:%d, want 1:%d", p.Position.Line, p.Position.Character, want)
			}
			want := Location{Path: path, Line: ln, Column: col, EndLine: ln, EndColumn: col + 1}
			if len(locs) != 1 || locs[0] != want {
				t.Errorf("got %+v, want [%+v]", locs, want)
			}
		})
	}
}

func TestConfigurationAnswered(t *testing.T) {
	t.Parallel()
	settings := map[string]any{"fake": map[string]any{"alpha": 42}}
	m, dir, logPath := fakeManager(t, "config", func(c *Config) {
		s := c.Servers["fake"]
		s.Settings = settings
		c.Servers["fake"] = s
	})
	path := fakeFile(t, dir, "x\n")
	if _, err := m.ClientFor(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	var result json.RawMessage
	waitFor(t, "the configuration answer", func() bool {
		for _, f := range frames(t, logPath) {
			if string(f["id"]) == `"cfg"` {
				result = f["result"]
				return true
			}
		}
		return false
	})
	if got, want := string(result), `[42,null,{"fake":{"alpha":42}}]`; got != want {
		t.Errorf("workspace/configuration answered %s, want %s", got, want)
	}
	if n := len(framesWith(t, logPath, "workspace/didChangeConfiguration")); n != 1 {
		t.Errorf("got %d didChangeConfiguration, want 1", n)
	}
}

func TestSyncAndDidWrite(t *testing.T) {
	t.Parallel()
	m, dir, logPath := fakeManager(t, "register", nil)
	ctx := context.Background()
	ws := m.ws.(*testWS)
	path := fakeFile(t, dir, "one\n")
	if err := m.Sync(ctx, path); err != nil {
		t.Fatal(err)
	}
	if err := m.Sync(ctx, path); err != nil { // unchanged: nothing sent
		t.Fatal(err)
	}
	ws.edit(path, "two\n") // the editor's buffer wins over the disk
	if err := m.Sync(ctx, path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "didOpen and didChange", func() bool {
		return len(framesWith(t, logPath, "textDocument/didOpen")) == 1 && len(framesWith(t, logPath, "textDocument/didChange")) == 1
	})
	var ch didChangeParams
	json.Unmarshal(framesWith(t, logPath, "textDocument/didChange")[0]["params"], &ch)
	if ch.TextDocument.Version != 2 || len(ch.ContentChanges) != 1 || ch.ContentChanges[0].Text != "two\n" {
		t.Errorf("didChange = %+v, want version 2 with the editor's text", ch)
	}

	// Watched files: the fake registered **/*.txt.
	c := m.Clients()[0]
	waitFor(t, "the watcher registration", func() bool {
		s := c.current()
		s.regMu.Lock()
		defer s.regMu.Unlock()
		return len(s.watch) == 1
	})
	txt := filepath.Join(dir, "sub", "notes.txt")
	os.MkdirAll(filepath.Dir(txt), 0o755)
	os.WriteFile(txt, []byte("a"), 0o644)
	m.DidWrite(ctx, txt)
	m.DidWrite(ctx, txt)
	os.Remove(txt)
	m.DidWrite(ctx, txt)
	m.DidWrite(ctx, filepath.Join(dir, "other.go")) // not watched
	var types []int
	waitFor(t, "three watched-file events", func() bool {
		types = types[:0]
		for _, f := range framesWith(t, logPath, "workspace/didChangeWatchedFiles") {
			var p didChangeWatchedFilesParams
			json.Unmarshal(f["params"], &p)
			for _, e := range p.Changes {
				types = append(types, e.Type)
			}
		}
		return len(types) >= 3
	})
	if len(types) != 3 || types[0] != fileCreated || types[1] != fileChanged || types[2] != fileDeleted {
		t.Errorf("watched-file events %v, want [1 2 3] (created, changed, deleted)", types)
	}

	// A disk write of an open file the editor does not have: didChange
	// with the new text, then didSave with it (the fake wants includeText).
	disk := filepath.Join(dir, "b.fake")
	os.WriteFile(disk, []byte("v1\n"), 0o644)
	if err := m.Sync(ctx, disk); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(disk, []byte("v2\n"), 0o644)
	m.DidWrite(ctx, disk)
	waitFor(t, "didSave", func() bool { return len(framesWith(t, logPath, "textDocument/didSave")) == 1 })
	var save didSaveParams
	json.Unmarshal(framesWith(t, logPath, "textDocument/didSave")[0]["params"], &save)
	if save.Text == nil || *save.Text != "v2\n" {
		t.Errorf("didSave text = %v, want v2", save.Text)
	}

	// Idle documents the agent opened are closed; editor documents stay.
	m.sweep(time.Now().Add(m.idleClose + time.Second))
	s := c.current()
	if _, open := s.openText(disk); open {
		t.Error("idle agent document still open after the sweep")
	}
	if _, open := s.openText(path); !open {
		t.Error("editor document closed by the idle sweep")
	}
	waitFor(t, "didClose", func() bool { return len(framesWith(t, logPath, "textDocument/didClose")) == 1 })
}

func TestMissingBinaryNamesInstall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := NewManager(Config{}, newTestWS(dir), nil)
	defer m.Shutdown(context.Background())
	m.lookPath = func(string) (string, error) { return "", errors.New("not found") }
	tests := map[string]string{
		"main.go": "go install golang.org/x/tools/gopls@latest",
		"a.py":    "npm i -g pyright",
		"a.ts":    "npm i -g typescript-language-server typescript",
		"a.cpp":   "apt-get install clangd",
		"lib.rs":  "rustup component add rust-analyzer",
	}
	for file, hint := range tests {
		_, err := m.ClientFor(context.Background(), filepath.Join(dir, file))
		if !errors.Is(err, ErrNotInstalled) {
			t.Errorf("%s: %v, want ErrNotInstalled", file, err)
			continue
		}
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("%s: error %q lacks the install hint %q", file, err, hint)
		}
	}
	_, err := m.ClientFor(context.Background(), filepath.Join(dir, "main.go"))
	if !strings.Contains(err.Error(), `"gopls"`) {
		t.Errorf("error %q does not name the program", err)
	}

	// A user-configured program gets the generic advice.
	m2 := NewManager(Config{Servers: map[string]config.ServerConfig{"mine": {Command: []string{"agentls-no-such-server"}, Filetypes: []string{"zz"}}}}, newTestWS(dir), nil)
	_, err = m2.ClientFor(context.Background(), filepath.Join(dir, "a.zz"))
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "agentls-no-such-server") || !strings.Contains(err.Error(), "lsp.mine.command") {
		t.Errorf("user server missing: %v", err)
	}

	_, err = m.ClientFor(context.Background(), filepath.Join(dir, "notes.unknownext"))
	if !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), "gopls (go") {
		t.Errorf("unknown type: %v, want ErrNoServer listing the servers", err)
	}
}

func TestRestartUnknown(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{}, newTestWS(t.TempDir()), nil)
	if err := m.Restart(context.Background(), ""); err != nil {
		t.Errorf("Restart all with none running: %v", err)
	}
	if err := m.Restart(context.Background(), "gopls"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("Restart of a configured, idle server: %v", err)
	}
	if err := m.Restart(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "configured servers") {
		t.Errorf("Restart of an unknown server: %v", err)
	}
}

func TestCrashReopensDocuments(t *testing.T) {
	t.Parallel()
	m, dir, logPath := fakeManager(t, "echo", nil)
	ctx := context.Background()
	a, b := filepath.Join(dir, "a.fake"), filepath.Join(dir, "b.fake")
	os.WriteFile(a, []byte("a\n"), 0o644)
	os.WriteFile(b, []byte("b\n"), 0o644)
	for _, p := range []string{a, b} {
		if err := m.Sync(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the first process to read both didOpens", func() bool { return len(framesWith(t, logPath, "textDocument/didOpen")) == 2 })
	c := m.Clients()[0]
	pid := c.PID()
	if p, err := os.FindProcess(pid); err != nil {
		t.Fatal(err)
	} else if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Definition(ctx, a, 1, 1); err != nil {
		t.Fatalf("Definition after a crash: %v", err)
	}
	if c.PID() == pid || c.PID() == 0 {
		t.Fatalf("server not restarted (pid %d, was %d)", c.PID(), pid)
	}
	// b.fake was reopened in the new process without being used again.
	opened := map[string]int{}
	for _, f := range framesWith(t, logPath, "textDocument/didOpen") {
		var p didOpenParams
		json.Unmarshal(f["params"], &p)
		opened[filepath.Base(p.TextDocument.URI)]++
	}
	if opened["a.fake"] != 2 || opened["b.fake"] != 2 {
		t.Errorf("didOpen counts %v, want both documents opened in both processes", opened)
	}
}

func TestServerDyingAtStart(t *testing.T) {
	t.Parallel()
	m, dir, _ := fakeManager(t, "die", nil)
	ctx := context.Background()
	path := fakeFile(t, dir, "a\n")
	_, err := m.ClientFor(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "exited while starting") || !strings.Contains(err.Error(), "bad config in fake.toml") {
		t.Fatalf("first start: %v, want the exit and its stderr", err)
	}
	for i := 1; i <= maxRestarts; i++ {
		if _, err = m.ClientFor(ctx, path); errors.Is(err, ErrCrashLoop) {
			t.Fatalf("attempt %d already refused: %v", i, err)
		}
	}
	_, err = m.ClientFor(ctx, path)
	if !errors.Is(err, ErrCrashLoop) || !strings.Contains(err.Error(), "bad config in fake.toml") {
		t.Fatalf("after %d restarts: %v, want ErrCrashLoop with the last stderr", maxRestarts, err)
	}
}
