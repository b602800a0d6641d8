package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// mapOverlay is an in-test editor: open documents by absolute path.
type mapOverlay map[string]Document

func (m mapOverlay) Document(path string) (Document, bool) {
	d, ok := m[path]
	return d, ok
}

// newTestWS returns a workspace over a fresh temp root (resolved, so
// symlinked temp dirs on some systems do not confuse Inside).
func newTestWS(t *testing.T, ov Overlay) (*Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace([]string{root}, ov)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, root
}

// writeFiles creates files (and their folders) below root.
func writeFiles(t *testing.T, root string, files map[string]string) {
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

// callTool runs tool with input (marshalled to JSON) and fails the test on
// an infrastructure error.
func callTool(t *testing.T, tool Tool, input any) Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), Call{ID: "c1", Input: raw})
	if err != nil {
		t.Fatalf("%s.Run: unexpected Go error: %v", tool.Spec().Name, err)
	}
	return res
}

func describeTool(t *testing.T, tool Tool, input any) (permission.Request, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Describe(context.Background(), Call{ID: "c1", Input: raw})
}

// checkResult asserts the error flag and that every want string appears
// and every notWant string does not.
func checkResult(t *testing.T, res Result, wantErr bool, want, notWant []string) {
	t.Helper()
	if res.IsError != wantErr {
		t.Errorf("IsError = %v, want %v; content:\n%s", res.IsError, wantErr, res.Content)
	}
	for _, w := range want {
		if !strings.Contains(res.Content, w) {
			t.Errorf("content lacks %q; content:\n%s", w, res.Content)
		}
	}
	for _, w := range notWant {
		if strings.Contains(res.Content, w) {
			t.Errorf("content has %q, want it absent; content:\n%s", w, res.Content)
		}
	}
}

// outsideDir returns a folder outside the test root holding secret.txt.
func outsideDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"secret.txt": "top secret\n"})
	return dir
}
