package tools

import (
	"path/filepath"
	"testing"
)

func TestGlobalExcludesPath(t *testing.T) {
	home, config := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", config)
	if got, want := globalExcludesPath(), filepath.Join(config, "git", "ignore"); got != want {
		t.Errorf("no setting: %q, want the default %q", got, want)
	}
	writeFiles(t, config, map[string]string{"git/config": "[core]\n  ExcludesFile = \"/from/xdg\"  \n"})
	if got := globalExcludesPath(); got != "/from/xdg" {
		t.Errorf("set in $XDG_CONFIG_HOME/git/config: %q, want /from/xdg", got)
	}
	writeFiles(t, home, map[string]string{".gitconfig": "[user]\n\temail = a@b\n[core]\n\texcludesfile = ~/excludes\n"})
	if got, want := globalExcludesPath(), filepath.Join(home, "excludes"); got != want {
		t.Errorf("set in ~/.gitconfig: %q, want %q (it comes first)", got, want)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	writeFiles(t, home, map[string]string{".gitconfig": "[user]\n\temail = a@b\n"})
	if got, want := globalExcludesPath(), filepath.Join(home, ".config", "git", "ignore"); got != want {
		t.Errorf("no $XDG_CONFIG_HOME: %q, want %q", got, want)
	}
}
