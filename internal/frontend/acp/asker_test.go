package acp

import (
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
		{OptionId: optAllow, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowSession, Name: `Allow "go test" this session`, Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optAllowAlways, Name: `Always allow "go test" in this workspace`, Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
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
