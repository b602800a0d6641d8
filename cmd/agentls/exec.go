package main

import (
	"context"
	"io"

	"github.com/agentls/agentls/internal/tools"
)

// cmdExec is `agentls exec -- COMMAND`: the program an editor's terminal
// runs for the bash tool (tools.ExecMain).
func cmdExec(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return tools.ExecMain(ctx, args, stdout, stderr)
}
