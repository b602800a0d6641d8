package acp

import (
	"context"
	"os"
	"testing"

	"github.com/agentls/agentls/internal/tools"
)

// TestMain lets the test binary stand for agentls in a client's terminal:
// the sessions' agentls program is os.Executable (app.Options.Executable
// unset), so a terminal the fake client runs starts this binary as
// `exec -- COMMAND`, which does what `agentls exec` does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "exec" {
		os.Exit(tools.ExecMain(context.Background(), os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
