package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

// The Manager is built on first use from the configuration read then,
// replaced when the configuration changes, and refused after Shutdown.
func TestServersLifecycle(t *testing.T) {
	t.Parallel()
	off := false
	calls := 0
	s := NewServers(newTestWS(t.TempDir()), func() Config { calls++; return Config{AutoLSP: &off} }, nil)
	if s.Configure(Config{AutoLSP: &off}) {
		t.Error("Configure before any server reported a restart")
	}
	m1, err := s.Manager()
	if err != nil || calls != 0 {
		t.Fatalf("Manager: %v; config source read %d times, want 0 (Configure gave one)", err, calls)
	}
	if m2, _ := s.Manager(); m2 != m1 {
		t.Error("a second Manager call built another Manager")
	}
	if s.Configure(Config{AutoLSP: &off}) {
		t.Error("the same configuration restarted the servers")
	}
	if !s.Configure(Config{AutoLSP: &off, Servers: map[string]config.ServerConfig{"x": {Command: []string{"x"}, Filetypes: []string{"x"}}}}) {
		t.Error("a new configuration did not restart the servers")
	}
	m3, err := s.Manager()
	if err != nil || m3 == m1 {
		t.Errorf("after reconfiguring: %v, same Manager %v", err, m3 == m1)
	}
	s.Shutdown(context.Background())
	if _, err := s.Manager(); !errors.Is(err, ErrShutDown) || !strings.Contains(err.Error(), "shut down") {
		t.Errorf("Manager after Shutdown: %v", err)
	}
	if s.Configure(Config{}) {
		t.Error("Configure after Shutdown reported a restart")
	}

	lazy := 0
	s = NewServers(newTestWS(t.TempDir()), func() Config { lazy++; return Config{AutoLSP: &off} }, nil)
	defer s.Shutdown(context.Background())
	if lazy != 0 {
		t.Error("NewServers read the configuration")
	}
	_, _ = s.Manager()
	_, _ = s.Manager()
	if lazy != 1 {
		t.Errorf("configuration read %d times, want once", lazy)
	}
}

// gopls is asked for pull diagnostics unless its init_options are set or
// it is not offered.
func TestWithPullDiagnostics(t *testing.T) {
	t.Parallel()
	off := false
	pull := func(c Config) any { return c.Servers["gopls"].InitOptions }
	if got := pull(withPullDiagnostics(Config{})); fmt.Sprint(got) != "map[pullDiagnostics:true]" {
		t.Errorf("built-in gopls: init options %v", got)
	}
	own := Config{Servers: map[string]config.ServerConfig{"gopls": {InitOptions: map[string]any{}}}}
	if got := pull(withPullDiagnostics(own)); fmt.Sprint(got) != "map[]" {
		t.Errorf("the user's init options were replaced: %v", got)
	}
	if got := withPullDiagnostics(Config{AutoLSP: &off}); got.Servers != nil {
		t.Errorf("auto_lsp off, no gopls entry: servers %v", got.Servers)
	}
	cmd := Config{Servers: map[string]config.ServerConfig{"gopls": {Command: []string{"/opt/gopls"}}}}
	got := withPullDiagnostics(cmd)
	if pull(got) == nil || got.Servers["gopls"].Command[0] != "/opt/gopls" || cmd.Servers["gopls"].InitOptions != nil {
		t.Errorf("a gopls entry without init options: %+v (the caller's map changed: %v)", got.Servers, cmd.Servers["gopls"].InitOptions != nil)
	}
}

// What a server is given is remembered per file, and edits are checked
// against it.
func TestEditedText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := newTestWS(dir)
	s := NewServers(ws, nil, nil)
	defer s.Shutdown(context.Background())
	path := filepath.Join(dir, "a.go")
	if err := os.WriteFile(path, []byte("Foo(Foo)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Served(path); ok {
		t.Fatal("served text before any read")
	}
	if text, _, err := s.ws.ReadFile(path); err != nil || text != "Foo(Foo)\n" {
		t.Fatalf("read through the servers' workspace: %q %v", text, err)
	}
	if got, ok := s.Served(path); !ok || got != "Foo(Foo)\n" {
		t.Fatalf("Served = %q %v", got, ok)
	}
	rename := func(versioned bool, edits ...TextEdit) WorkspaceEdit {
		we := WorkspaceEdit{Changes: map[string][]TextEdit{path: edits}}
		if versioned {
			we.Versions = map[string]int32{path: 1}
		}
		return we
	}
	first := TextEdit{Line: 1, Column: 1, EndLine: 1, EndColumn: 4, NewText: "Bar"}
	second := TextEdit{Line: 1, Column: 5, EndLine: 1, EndColumn: 8, NewText: "Bar"}
	paren := TextEdit{Line: 1, Column: 4, EndLine: 1, EndColumn: 5, NewText: "["}
	for _, c := range []struct {
		name      string
		we        WorkspaceEdit
		current   string
		want      string
		wantStale bool
	}{
		{"versioned, on the served text", rename(true, first, second), "Foo(Foo)\n", "Bar(Bar)\n", false},
		{"versioned, the file changed since", rename(true, first), "Foo(Foo) \n", "", true},
		{"unversioned, every range holds the old name", rename(false, first), "Foo(Foo) \n", "Bar(Foo) \n", false},
		{"unversioned, on the served text", rename(false, paren), "Foo(Foo)\n", "Foo[Foo)\n", false},
		{"unversioned, neither", rename(false, paren), "Foo(Foo) \n", "", true},
	} {
		got, err := s.EditedText(c.we, path, c.current, "Foo")
		if c.wantStale != errors.Is(err, ErrStale) || !c.wantStale && (err != nil || got != c.want) {
			t.Errorf("%s: %q %v", c.name, got, err)
		}
	}
	if _, err := s.EditedText(rename(true, first, TextEdit{Line: 1, Column: 2, EndLine: 1, EndColumn: 3}), path, "Foo(Foo)\n", "Foo"); err == nil || errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping edits: %v", err)
	}
}

// Discover walks each set of roots once, at most 5,000 entries a folder,
// and syncs the first file of each type (a type no server handles is no
// error).
func TestDiscover(t *testing.T) {
	t.Parallel()
	off := false
	ws := newTestWS(t.TempDir())
	s := NewServers(ws, func() Config { return Config{AutoLSP: &off} }, nil)
	defer s.Shutdown(context.Background())
	walks, visited := 0, 0
	walk := func(_ context.Context, root string, visit func(string, bool) bool) {
		walks++
		for i := 0; ; i++ {
			dir := i%10 == 0
			if !visit(fmt.Sprintf("%s/f%d.t%d", root, i, i%3), dir) {
				return
			}
			visited++
			if i > 20000 {
				t.Error("the walk was not stopped")
				return
			}
		}
	}
	clients, err := s.Discover(context.Background(), walk)
	if err != nil || len(clients) != 0 {
		t.Fatalf("Discover: %v %v", clients, err)
	}
	if walks != 1 || visited != discoverEntries {
		t.Errorf("%d walks, %d entries visited; want 1 and %d", walks, visited, discoverEntries)
	}
	_, _ = s.Discover(context.Background(), walk)
	if walks != 1 {
		t.Errorf("the same roots were walked again (%d walks)", walks)
	}
	ws.roots = append(ws.roots, t.TempDir())
	_, _ = s.Discover(context.Background(), walk)
	if walks != 3 {
		t.Errorf("new roots: %d walks in all, want 3 (both folders)", walks)
	}
}
