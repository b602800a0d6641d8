package app

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// TestTitle: a session is named after what the person typed, never after
// the file and selection agentls adds to the model's copy of the prompt
// (VS Code's history listed sessions as "The user is in src/cart.ts.").
func TestTitle(t *testing.T) {
	long := strings.Repeat("word ", 30)
	tests := []struct {
		name, msg, want string
	}{
		{"plain", "fix the  failing\ntest", "fix the failing test"},
		{"with a file", agent.UserMessage("why is total wrong?", &agent.Context{File: "src/cart.ts"}), "why is total wrong?"},
		{"with a selection", agent.UserMessage("explain", &agent.Context{File: "a.go", StartLine: 3, EndLine: 4, Selected: "x := 1\ny := 2"}), "explain"},
		{"long", long, string([]rune(strings.TrimSpace(long))[:80]) + "…"},
	}
	for _, tt := range tests {
		if got := title(tt.msg); got != tt.want {
			t.Errorf("%s: title = %q, want %q", tt.name, got, tt.want)
		}
	}
}
