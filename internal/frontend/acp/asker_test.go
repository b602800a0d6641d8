package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/permission"
)

// TestPermissionOptions: the gate's choices become ACP options in order,
// a grant's scope in its name, and each option maps back to its answer.
func TestPermissionOptions(t *testing.T) {
	q := permission.Question{Choices: []permission.Choice{
		{Answer: permission.AnswerAllow, Title: "Allow"},
		{Answer: permission.AnswerAllowSession, Title: `Allow "go test" this session`, Scope: `"go test"`},
		{Answer: permission.AnswerAllowAlways, Title: "Always allow", Scope: `"go test"`},
		{Answer: permission.AnswerDeny, Title: "Deny"},
	}}
	got := options(q)
	want := []sdk.PermissionOption{
		{OptionId: optAllow, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowSession, Name: `Allow "go test" this session`, Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optAllowAlways, Name: `Always allow "go test"`, Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optReject, Name: "Deny", Kind: sdk.PermissionOptionKindRejectOnce},
	}
	if len(got) != len(want) {
		t.Fatalf("options %+v", got)
	}
	for i := range want {
		if got[i].OptionId != want[i].OptionId || got[i].Name != want[i].Name || got[i].Kind != want[i].Kind {
			t.Errorf("option %d = %+v, want %+v", i, got[i], want[i])
		}
		if a := answerOf(string(got[i].OptionId)); a != q.Choices[i].Answer {
			t.Errorf("option %s answers %q, want %q", got[i].OptionId, a, q.Choices[i].Answer)
		}
	}
	// Not grantable: allow once or reject, nothing else.
	plain := options(permission.Question{Choices: []permission.Choice{{Answer: permission.AnswerAllow}, {Answer: permission.AnswerDeny}}})
	if len(plain) != 2 || plain[0].Kind != sdk.PermissionOptionKindAllowOnce || plain[1].Kind != sdk.PermissionOptionKindRejectOnce {
		t.Errorf("ungrantable options %+v", plain)
	}
	if answerOf("allow_everything") != "" {
		t.Error("an option that was not offered maps to an answer")
	}
}

// TestRequestTitle: a permission request's title says what the call does
// in a few words, paths relative to the workspace.
func TestRequestTitle(t *testing.T) {
	rel := func(p string) string { return strings.TrimPrefix(p, "/ws/") }
	for _, c := range []struct {
		r    permission.Request
		kind sdk.ToolKind
		want string
	}{
		{permission.Request{Tool: "bash", Command: "go test ./...", Paths: []string{"/ws/internal"}}, sdk.ToolKindExecute, "Run `go test ./...`"},
		{permission.Request{Tool: "bash", Command: "echo a\necho b"}, sdk.ToolKindExecute, "Run `echo a`"},
		{permission.Request{Tool: "bash", Command: strings.Repeat("x", 200)}, sdk.ToolKindExecute, "Run `" + strings.Repeat("x", 80) + "…`"},
		{permission.Request{Tool: "edit", Paths: []string{"/ws/greet.py"}}, sdk.ToolKindEdit, "Edit greet.py"},
		{permission.Request{Tool: "lsp_rename", Paths: []string{"/ws/a.go", "/ws/b.go", "/ws/c.go"}}, sdk.ToolKindEdit, "Edit a.go and 2 more"},
		{permission.Request{Tool: "view", Paths: []string{"/etc/hosts"}}, sdk.ToolKindRead, "Read /etc/hosts"},
		{permission.Request{Tool: "rm", Paths: []string{"/ws/old"}}, sdk.ToolKindDelete, "Delete old"},
		{permission.Request{Tool: "move", Paths: []string{"/ws/a", "/ws/b"}}, sdk.ToolKindMove, "Move a and 1 more"},
		{permission.Request{Tool: "grep"}, sdk.ToolKindSearch, "Search"},
		{permission.Request{Tool: "bash", Destinations: []string{"proxy.golang.org:443"}}, sdk.ToolKindFetch, "Connect to proxy.golang.org:443"},
		{permission.Request{Tool: "mcp_github_create_issue"}, sdk.ToolKindOther, "Use mcp_github_create_issue"},
		{permission.Request{Tool: "mcp_fs_write", Paths: []string{"/ws/x"}}, sdk.ToolKindOther, "Use mcp_fs_write on x"},
	} {
		if got := requestTitle(c.r, c.kind, rel); got != c.want {
			t.Errorf("requestTitle(%+v, %s) = %q, want %q", c.r, c.kind, got, c.want)
		}
	}
}
