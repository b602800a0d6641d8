package permission

import (
	"strings"
	"testing"
)

func TestParseRuleKey(t *testing.T) {
	valid := []string{
		"fs.edit", "mcp.github.create_issue", "mcp.github.*", "mcp.*", "*",
		"shell.exec:go test", "shell.exec:git push origin", "shell.*:make",
		"fs.write:docs/**", "fs.write:./docs/*.md", "fs.write:/abs/path/**", "fs.*:**/*.go",
	}
	for _, k := range valid {
		if _, err := ParseRuleKey(k); err != nil {
			t.Errorf("ParseRuleKey(%q): %v", k, err)
		}
	}
	invalid := []struct{ key, part string }{
		{"", "non-empty"},
		{" fs.edit", "no spaces"},
		{"fs", "not a capability"},
		{"FS.edit", "not a capability"},
		{"fs.", "not a capability"},
		{"mcp.git*", "whole last segment"},
		{"mcp.*.x", "whole last segment"},
		{"*.edit", "whole last segment"},
		{".*", "not a capability prefix"},
		{"*:docs/**", "cannot take a scope"},
		{"shell.exec:", "scope is empty"},
		{"shell.exec:   ", "scope is empty"},
		{"fs.write:", "scope is empty"},
		{"fs.write:../x/**", "cannot start with"},
		{"fs.write:docs/[", "not a valid glob"},
	}
	for _, tt := range invalid {
		_, err := ParseRuleKey(tt.key)
		if err == nil || !strings.Contains(err.Error(), tt.part) || !strings.Contains(err.Error(), "e.g.") && !strings.Contains(err.Error(), "use") && !strings.Contains(err.Error(), "glob") {
			t.Errorf("ParseRuleKey(%q) error = %v, want one containing %q and a hint", tt.key, err, tt.part)
		}
	}
}

func TestParseKindAndTools(t *testing.T) {
	for _, s := range []string{"allow", "ask", "deny"} {
		if _, err := ParseKind(s); err != nil {
			t.Errorf("ParseKind(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "Allow", "yes", "block"} {
		if _, err := ParseKind(s); err == nil || !strings.Contains(err.Error(), "allow, ask or deny") {
			t.Errorf("ParseKind(%q) error = %v", s, err)
		}
	}
	for _, s := range []string{"view", "edit:write", "mcp_github_create_issue", "job_output:execute", "a.b-c"} {
		if err := ParseAllowedTool(s); err != nil {
			t.Errorf("ParseAllowedTool(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", ":write", "edit:", "edit:delete", "bad tool", "edit:write:x"} {
		if err := ParseAllowedTool(s); err == nil {
			t.Errorf("ParseAllowedTool(%q) = nil, want an error", s)
		}
	}
}

func TestWildcardMatching(t *testing.T) {
	tests := []struct {
		key  string
		c    Capability
		want bool
	}{
		{"mcp.github.*", "mcp.github.create_issue", true},
		{"mcp.github.*", "mcp.github.repos.list", true},
		{"mcp.github.*", "mcp.githubx.y", false},
		{"mcp.github.*", "mcp.github", false},
		{"mcp.*", "mcp.github.create_issue", true},
		{"mcp.*", "mcpx.a", false},
		{"*", "anything.at_all", true},
		{"fs.edit", "fs.edit", true},
		{"fs.edit", "fs.editor", false},
		{"fs.edit", "fs.edit.x", false},
	}
	for _, tt := range tests {
		k, err := ParseRuleKey(tt.key)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.coversCapability(tt.c); got != tt.want {
			t.Errorf("%q covers %q = %v, want %v", tt.key, tt.c, got, tt.want)
		}
	}
}

func TestScopeMatching(t *testing.T) {
	roots := []string{"/ws", "/other"}
	sh := func(cmd, fp string, argvs ...[]string) *Request {
		return &Request{Capability: "shell.exec", Command: cmd, Fingerprint: fp, Argvs: argvs}
	}
	file := func(paths ...string) *Request { return &Request{Capability: "fs.write", Paths: paths} }
	tests := []struct {
		name   string
		key    string
		r      *Request
		strict bool // allow-style
		want   bool
	}{
		{"fingerprint equal", "shell.exec:go test", sh("go test ./...", "go test", []string{"go", "test", "./..."}), true, true},
		{"fingerprint prefix", "shell.exec:go", sh("go test ./...", "go test"), true, true},
		{"command words beyond the fingerprint", "shell.exec:go test ./...", sh("go test ./... -run X", "go test", []string{"go", "test", "./...", "-run", "X"}), true, true},
		{"command words differ", "shell.exec:go test ./pkg", sh("go test ./...", "go test", []string{"go", "test", "./..."}), true, false},
		{"no fingerprint never allows", "shell.exec:go test", sh("go test ./... && rm -rf /", ""), true, false},
		{"other program", "shell.exec:go test", sh("gofmt -l .", "gofmt"), true, false},
		{"word boundary", "shell.exec:go", sh("gofmt -l .", "gofmt"), true, false},
		{"argv0 by basename", "shell.exec:git push", sh("/usr/bin/git push", "git push", []string{"/usr/bin/git", "push"}), true, true},
		{"deny finds words in a chain", "shell.exec:git push", sh("make && git push", "", []string{"make"}, []string{"git", "push"}), false, true},
		{"deny finds words without argvs", "shell.exec:git push", sh("echo hi; git push --force", ""), false, true},
		{"deny finds words behind sudo", "shell.exec:rm", sh("sudo rm -rf x", ""), false, true},
		{"deny misses other words", "shell.exec:git push", sh("git status", "git status"), false, false},
		{"glob relative to a root", "fs.write:docs/**", file("/ws/docs/a.md"), true, true},
		{"glob in another root", "fs.write:docs/**", file("/other/docs/a.md"), true, true},
		{"glob outside", "fs.write:docs/**", file("/ws/src/a.go"), true, false},
		{"glob outside every root", "fs.write:**", file("/etc/passwd"), true, false},
		{"allow needs every path", "fs.write:docs/**", file("/ws/docs/a.md", "/ws/src/b.go"), true, false},
		{"deny needs any path", "fs.write:docs/**", file("/ws/docs/a.md", "/ws/src/b.go"), false, true},
		{"absolute glob", "fs.write:/etc/**", file("/etc/hosts"), false, true},
		{"dot-slash prefix", "fs.write:./docs/*.md", file("/ws/docs/a.md"), true, true},
		{"no paths", "fs.write:docs/**", file(), false, false},
		{"root prefix is not a root", "fs.write:docs/**", file("/wsx/docs/a.md"), true, false},
		{"path scope on a command", "shell.exec:go", &Request{Capability: "shell.exec"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseRuleKey(tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if got := k.matches(newView(tt.r, roots), tt.strict); got != tt.want {
				t.Errorf("%q matches = %v, want %v", tt.key, got, tt.want)
			}
		})
	}
}

// TestRulePrecedence: exact beats wildcard, the longest wildcard wins,
// scoped beats unscoped, a more specific scope wins, ties go to the
// stricter value.
func TestRulePrecedence(t *testing.T) {
	goTest := &Request{Capability: "shell.exec", Command: "go test ./...", Fingerprint: "go test", Argvs: [][]string{{"go", "test", "./..."}}}
	issue := &Request{Capability: "mcp.github.create_issue"}
	doc := &Request{Capability: "fs.write", Paths: []string{"/ws/docs/api/a.md"}}
	tests := []struct {
		name  string
		rules map[string]Kind
		r     *Request
		want  string
	}{
		{"exact beats wildcard", map[string]Kind{"mcp.github.*": "deny", "mcp.github.create_issue": "allow"}, issue, "mcp.github.create_issue"},
		{"longest wildcard wins", map[string]Kind{"mcp.*": "deny", "mcp.github.*": "ask"}, issue, "mcp.github.*"},
		{"star is last", map[string]Kind{"*": "deny", "mcp.*": "allow"}, issue, "mcp.*"},
		{"star alone", map[string]Kind{"*": "ask"}, issue, "*"},
		{"scoped beats unscoped", map[string]Kind{"shell.exec": "deny", "shell.exec:go test": "allow"}, goTest, "shell.exec:go test"},
		{"longer scope wins", map[string]Kind{"shell.exec:go": "deny", "shell.exec:go test": "allow"}, goTest, "shell.exec:go test"},
		{"stricter wins a tie", map[string]Kind{"fs.write:docs/**": "allow", "fs.write:*/api/**": "deny"}, doc, "fs.write:*/api/**"},
		{"more literal glob wins", map[string]Kind{"fs.write:**": "deny", "fs.write:docs/api/**": "allow"}, doc, "fs.write:docs/api/**"},
		{"exact unscoped beats wildcard scoped", map[string]Kind{"fs.write": "ask", "fs.*:docs/**": "allow"}, doc, "fs.write"},
		{"unmatched scope falls back", map[string]Kind{"fs.write:src/**": "allow", "fs.write": "ask"}, doc, "fs.write"},
		{"nothing matches", map[string]Kind{"fs.edit": "allow"}, doc, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := compileRules(tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if rl := table.lookup(newView(tt.r, []string{"/ws"})); rl != nil {
				got = rl.key.raw
			}
			if got != tt.want {
				t.Errorf("winner = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompileRulesErrors(t *testing.T) {
	if _, err := compileRules(map[string]Kind{"fs.edit": "yes"}); err == nil || !strings.Contains(err.Error(), `"fs.edit"`) {
		t.Errorf("bad value error = %v", err)
	}
	if _, err := compileRules(map[string]Kind{"fs..edit": "allow"}); err == nil || !strings.Contains(err.Error(), "fs..edit") {
		t.Errorf("bad key error = %v", err)
	}
	for _, p := range []Policy{
		{Mode: "yolo"},
		{AskAlways: []string{"x"}},
		{AllowedTools: []string{"a b"}},
		{Repetition: -1},
		{AskTimeout: -1},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("Policy %+v validated", p)
		}
	}
}
