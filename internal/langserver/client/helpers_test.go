package client

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/sandbox/sandboxtest"
)

// testWS is a Workspace whose "editor" buffers are set by the test; other
// files come from disk.
type testWS struct {
	roots    []string
	mu       sync.Mutex
	bufs     map[string]string
	versions map[string]int32
}

func newTestWS(roots ...string) *testWS {
	return &testWS{roots: roots, bufs: map[string]string{}, versions: map[string]int32{}}
}

func (w *testWS) Roots() []string { return w.roots }

func (w *testWS) ReadFile(path string) (string, bool, error) {
	w.mu.Lock()
	text, ok := w.bufs[path]
	w.mu.Unlock()
	if ok {
		return text, true, nil
	}
	data, err := os.ReadFile(path)
	return string(data), false, err
}

func (w *testWS) Stamp(path string) (Stamp, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.bufs[path]; ok {
		return Stamp{InEditor: true, Version: w.versions[path]}, nil
	}
	return DiskStamp(path)
}

// edit sets the editor's buffer for path (not written to disk).
func (w *testWS) edit(path, text string) {
	w.mu.Lock()
	w.bufs[path] = text
	w.versions[path]++
	w.mu.Unlock()
}

// copyFixture copies testdata/name into a temporary folder.
func copyFixture(t testing.TB, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// requireGopls fails (not skips) when gopls is missing.
func requireGopls(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatalf("gopls is not on PATH (nor in ~/go/bin): install it with `go install golang.org/x/tools/gopls@latest`")
	}
}

// goplsManager returns a Manager with the built-in gopls over dir.
func goplsManager(t testing.TB, ws Workspace, initOptions any) *Manager {
	t.Helper()
	requireGopls(t)
	cfg := Config{RequestTimeout: 30 * time.Second, Sandbox: sandboxtest.New(t, ws.Roots()...)}
	if initOptions != nil {
		cfg.Servers = map[string]config.ServerConfig{"gopls": {InitOptions: initOptions}}
	}
	m := NewManager(cfg, ws, nil)
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m
}

// fakeFile writes a.fake, a document the fake server takes, into dir.
func fakeFile(t testing.TB, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "a.fake")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeManager returns a Manager whose only server, "fake", is this test
// binary in the given mode, serving *.fake files in a fresh folder.
func fakeManager(t testing.TB, mode string, edit func(*Config)) (m *Manager, dir, logPath string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	logPath = filepath.Join(t.TempDir(), "frames.log")
	f := false
	cfg := Config{
		AutoLSP: &f,
		Servers: map[string]config.ServerConfig{"fake": {
			Command:   []string{exe},
			Filetypes: []string{"fake"},
			// The test binary lies outside the test's workspace folder.
			RunUntrusted: true,
			// The race runtime otherwise sleeps 1 s at exit.
			Env: map[string]string{fakeEnv: mode, "AGENTLS_FAKE_LOG": logPath, "GORACE": "atexit_sleep_ms=0"},
		}},
	}
	if edit != nil {
		edit(&cfg)
	}
	m = NewManager(cfg, newTestWS(dir), nil)
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m, dir, logPath
}

// frames reads the messages the fake server received.
func frames(t testing.TB, logPath string) []map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(logPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad frame %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// framesWith returns the received messages with the given method.
func framesWith(t testing.TB, logPath, method string) []map[string]json.RawMessage {
	t.Helper()
	var out []map[string]json.RawMessage
	for _, f := range frames(t, logPath) {
		var m string
		_ = json.Unmarshal(f["method"], &m)
		if m == method {
			out = append(out, f)
		}
	}
	return out
}

// waitFor polls cond for up to 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// find returns the 1-based line and code-point column of the n-th (from
// 1) occurrence of needle in the file at path.
func find(t testing.TB, path, needle string, n int) (int, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return findIn(t, string(data), needle, n)
}

func findIn(t testing.TB, text, needle string, n int) (int, int) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		rest, off := line, 0
		for {
			j := strings.Index(rest, needle)
			if j < 0 {
				break
			}
			n--
			if n == 0 {
				return i + 1, utf8.RuneCountInString(line[:off+j]) + 1
			}
			off += j + len(needle)
			rest = line[off:]
		}
	}
	t.Fatalf("%q not found", needle)
	return 0, 0
}
