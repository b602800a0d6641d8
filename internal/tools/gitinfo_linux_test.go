package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/sandbox"
)

// TestGitStatusConfined: in an untrusted folder git status runs when the
// sandbox confines it, and a repository configuration naming a program
// is still refused there.
func TestGitStatusConfined(t *testing.T) {
	cases := []struct {
		name    string
		config  string
		lines   []string
		errText string
	}{
		{name: "an untrusted folder", lines: []string{" M a.txt"}},
		{name: "a clean filter", config: "[filter \"x\"]\n\tclean = ./evil.sh\n", errText: "filter.x.clean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, ws, root := newShellTools(t)
			confined(t, env, ws, sandbox.NewMachine(), nil, false)
			writeFiles(t, root, map[string]string{"evil.sh": "#!/bin/sh\ntouch \"$(dirname \"$0\")/pwned\"\n"})
			if err := os.Chmod(filepath.Join(root, "evil.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			gitRepo(t, root, map[string]string{"a.txt": "first", ".gitattributes": "* filter=x\n"})
			if c.config != "" {
				f, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(c.config); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			writeFiles(t, root, map[string]string{"a.txt": "changed"})
			lines, total, err := env.GitStatus(context.Background(), root, 5)
			if c.errText != "" {
				if err == nil || !strings.Contains(err.Error(), c.errText) {
					t.Errorf("GitStatus = %q %d %v, want an error with %q", lines, total, err, c.errText)
				}
			} else if err != nil || total != len(c.lines) || !slices.Equal(lines, c.lines) {
				t.Errorf("GitStatus = %q %d %v, want %q", lines, total, err, c.lines)
			}
			if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
				t.Error("a program the repository names ran")
			}
		})
	}
}
