package lsp_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/sandbox"
)

// TestSandboxCommand: agentls.sandbox tells the editor what the kernel
// enforces for this workspace's programs, the workspace among the
// writable folders.
func TestSandboxCommand(t *testing.T) {
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.txt": "x\n"}, script(t, `{"turns":[{"text":"hi"}]}`), nil)
	raw, err := ed.ExecuteCommand(ctx, lsp.CommandSandbox, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st sandbox.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if !st.Confined || st.Mechanism != "landlock" || st.Network == sandbox.NetNone || !slices.Contains(st.Write, root) || len(st.Gaps) == 0 {
		t.Errorf("agentls.sandbox = %s", raw)
	}
}
