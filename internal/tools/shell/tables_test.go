package shell

import "testing"

// TestTablesBuild: every option table parses (a malformed or duplicated
// spelling panics) and every grant spec has a table for its forms.
func TestTablesBuild(t *testing.T) {
	if n := len(readOnlyPrograms()); n < 60 {
		t.Errorf("read-only programs: %d, want at least 60", n)
	}
	if n := len(gitSubcommands()); n < 25 {
		t.Errorf("git subcommands: %d, want at least 25", n)
	}
	for name, g := range grantSpecs() {
		if _, ok := g.opts(""); !ok && g.subs == 0 {
			t.Errorf("grant spec %s without subcommands has no table", name)
		}
	}
	_ = gitGrantTables()
	_ = goReadOnly()
}
