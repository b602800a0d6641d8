package acp

import (
	"os"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// goplsChildren counts the gopls processes this test process started.
func goplsChildren(t *testing.T) int {
	t.Helper()
	self := strconv.Itoa(os.Getpid())
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(stat)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if s[open+1:close] == "gopls" && len(fields) > 1 && fields[1] == self {
			n++
		}
	}
	return n
}

// TestSessionsShareTheirWorkspace: two ACP sessions on one folder share
// its environment — one gopls serves both — and a session on another
// folder gets its own.
func TestSessionsShareTheirWorkspace(t *testing.T) {
	files := map[string]string{"go.mod": "module m\n\ngo 1.26\n", "m.go": "package m\n\nfunc F() int { return 1 }\n"}
	root := workspace(t, files)
	other := workspace(t, files)
	diag := `{"turns":[{"tool_calls":[{"name":"lsp_diagnostics","input":{"file_path":"m.go"}}]},{"text":"checked"}]}`
	a := testApp(t, script(t, diag))
	ed := newFakeEditor()
	c := connect(t, a, ed, sdk.FileSystemCapabilities{})
	s1 := newSession(t, c, root)
	s2 := newSession(t, c, root)
	for _, id := range []sdk.SessionId{s1, s2} {
		if _, err := prompt(c, id, sdk.TextBlock("check m.go")); err != nil {
			t.Fatalf("prompt %s: %v", id, err)
		}
	}
	if n := goplsChildren(t); n != 1 {
		t.Errorf("two sessions on one folder run %d gopls, want 1", n)
	}
	s3 := newSession(t, c, other)
	if _, err := prompt(c, s3, sdk.TextBlock("check m.go")); err != nil {
		t.Fatal(err)
	}
	if n := goplsChildren(t); n != 2 {
		t.Errorf("a session on another folder: %d gopls in all, want 2", n)
	}
}
