package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExcluded: what inline completion never sends — secrets by name
// wherever they are, what the ignore files or .agentlsignore hide (a file
// or a folder above it, negations honoured), and anything outside the
// workspace — while ordinary files, tracked or not, are sent.
func TestExcluded(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	writeFiles(t, filepath.Join(home, ".config"), map[string]string{"git/ignore": "*.globalsecret\n"})
	ws, root := newTestWS(t, nil)
	writeFiles(t, root, map[string]string{
		".gitignore":            "build/\n*.log\n!keep.log\n",
		"main.go":               "package main\n",
		".env":                  "KEY=1\n",
		"svc/.env.production":   "KEY=2\n",
		".env.example":          "KEY=\n",
		"certs/server.pem":      "---\n",
		"build/out.go":          "package out\n",
		"debug.log":             "x\n",
		"keep.log":              "x\n",
		"x.globalsecret":        "x\n",
		".agentlsignore":        "private/\nnotes.md\n",
		"private/plan.go":       "package plan\n",
		"docs/notes.md":         "x\n",
		"docs/readme.md":        "x\n",
		"sub/.agentlsignore":    "*.txt\n!open.txt\n",
		"sub/a.txt":             "x\n",
		"sub/open.txt":          "x\n",
		"sub/deeper/b.txt":      "x\n",
		"vendor/ok/lib.go":      "package ok\n",
		"config/credentials":    "x\n",
		"cmd/tool/.npmrc":       "x\n",
		"cmd/tool/main_test.go": "package main\n",
	})
	outside := filepath.Join(t.TempDir(), "elsewhere.go")
	if err := os.WriteFile(outside, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
		why  string
	}{
		{"main.go", false, ""},
		{".env", true, "secret"},
		{"svc/.env.production", true, "secret"},
		{".env.example", false, ""},
		{"certs/server.pem", true, "secret"},
		{"config/credentials", true, "secret"},
		{"cmd/tool/.npmrc", true, "secret"},
		{"cmd/tool/main_test.go", false, ""},
		{"build/out.go", true, "hide build"},
		{"debug.log", true, "hide debug.log"},
		{"keep.log", false, ""},
		{"x.globalsecret", true, "hide"},
		{"private/plan.go", true, ".agentlsignore excludes private"},
		{"docs/notes.md", true, ".agentlsignore excludes docs/notes.md"},
		{"docs/readme.md", false, ""},
		{"sub/a.txt", true, ".agentlsignore"},
		{"sub/open.txt", false, ""},
		{"sub/deeper/b.txt", true, ".agentlsignore"},
		{"vendor/ok/lib.go", false, ""},
		{"new/not/yet/there.go", false, ""},
		{outside, true, "outside"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p := tt.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, filepath.FromSlash(p))
			}
			why, got := ws.Excluded(p)
			if got != tt.want || !strings.Contains(why, tt.why) {
				t.Errorf("Excluded(%s) = %q, %v; want %v with %q", tt.path, why, got, tt.want, tt.why)
			}
		})
	}
}
