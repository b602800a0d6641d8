package client

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

// TestCoverage: each source language of the workspace's files gets the
// first configured server whose program is found, else the first that
// handles it, else none; a README's markdown is left out unless the
// user's own entry names it; nothing is started, and the folders are
// walked once.
func TestCoverage(t *testing.T) {
	t.Parallel()
	off := false
	files := []string{"main.go", "go.mod", "app.py", "README.md", "Main.java", "notes.txt", "lib.rs", "x.vue", "LICENSE"}
	cases := []struct {
		name      string
		cfg       Config
		installed []string
		want      []LanguageServer
	}{
		{
			name:      "built-ins, some installed",
			installed: []string{"gopls"},
			want: []LanguageServer{
				{Language: "go", Server: "gopls", Program: "gopls", Installed: true, Works: true},
				{Language: "java"},
				{Language: "python", Server: "pyright", Program: "pyright-langserver"},
				{Language: "rust", Server: "rust-analyzer", Program: "rust-analyzer"},
			},
		},
		{
			name: "the user's own servers first; one found wins over one missing",
			cfg: Config{Servers: map[string]config.ServerConfig{
				"jdtls": {Command: []string{"jdtls"}, Filetypes: []string{"java"}},
				"vls":   {Command: []string{"vls"}, Filetypes: []string{"vue"}, RunUntrusted: true},
				"pylsp": {Command: []string{"pylsp"}, Filetypes: []string{"py"}},
			}},
			installed: []string{"pyright-langserver", "jdtls", "vls"},
			want: []LanguageServer{
				{Language: "go", Server: "gopls", Program: "gopls"},
				{Language: "java", Server: "jdtls", Program: "jdtls", Installed: true, TrustedOnly: true},
				{Language: "python", Server: "pyright", Program: "pyright-langserver", Installed: true, Works: true},
				{Language: "rust", Server: "rust-analyzer", Program: "rust-analyzer"},
				{Language: "vue", Server: "vls", Program: "vls", Installed: true, Works: true},
			},
		},
		{
			name:      "auto_lsp off: no server for anything",
			cfg:       Config{AutoLSP: &off},
			installed: []string{"gopls"},
			want:      []LanguageServer{{Language: "go"}, {Language: "java"}, {Language: "python"}, {Language: "rust"}},
		},
		{
			name: "a server that needs trust works once every folder is trusted",
			cfg: Config{Servers: map[string]config.ServerConfig{
				"jdtls": {Command: []string{"jdtls"}, Filetypes: []string{"java"}},
			}, Trusted: func(string) bool { return true }},
			installed: []string{"jdtls"},
			want: []LanguageServer{
				{Language: "go", Server: "gopls", Program: "gopls"},
				{Language: "java", Server: "jdtls", Program: "jdtls", Installed: true, TrustedOnly: true, Works: true},
				{Language: "python", Server: "pyright", Program: "pyright-langserver"},
				{Language: "rust", Server: "rust-analyzer", Program: "rust-analyzer"},
			},
		},
		{
			name: "a disabled built-in is not offered",
			cfg: Config{Servers: map[string]config.ServerConfig{
				"gopls": {Disabled: true},
			}},
			installed: []string{"gopls", "pyright-langserver"},
			want: []LanguageServer{
				{Language: "go"},
				{Language: "java"},
				{Language: "python", Server: "pyright", Program: "pyright-langserver", Installed: true, Works: true},
				{Language: "rust", Server: "rust-analyzer", Program: "rust-analyzer"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			s := NewServers(newTestWS(root), func() Config { return c.cfg }, nil)
			defer s.Shutdown(context.Background())
			s.lookPath = func(p string) (string, error) {
				for _, in := range c.installed {
					if p == in {
						return "/bin/" + p, nil
					}
				}
				return "", errors.New("not found")
			}
			walks := 0
			walk := func(_ context.Context, r string, visit func(string, bool) bool) {
				walks++
				for _, f := range files {
					if !visit(filepath.Join(r, f), false) {
						return
					}
				}
			}
			got := s.Coverage(context.Background(), walk)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Coverage:\n got %+v\nwant %+v", got, c.want)
			}
			if again := s.Coverage(context.Background(), walk); !reflect.DeepEqual(again, got) || walks != 1 {
				t.Errorf("a second call gave %+v after %d walks; want the same after 1", again, walks)
			}
			s.mu.Lock()
			started := s.m != nil
			s.mu.Unlock()
			if started {
				t.Error("Coverage made a Manager")
			}
		})
	}
}
