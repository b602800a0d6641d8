package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as an MCP server agentls can start over stdio
// (testServerEnv set: TestMain serves instead of testing), and the same
// server is served over streamable HTTP in-process. Its tools let a test
// see what the server saw: its working folder and environment, a call's
// cancellation, a crash, a tool added later.

const testServerEnv = "AGENTLS_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(testServerEnv) != "" {
		if err := newTestServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type noInput struct{}

type envInput struct {
	Name string `json:"name"`
}

type waitInput struct {
	// Mark is a file the server writes "cancelled" to when the call is
	// cancelled.
	Mark string `json:"mark"`
}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func yes() *bool { t := true; return &t }
func no() *bool  { f := false; return &f }

// newTestServer builds the server. Tools: whereami (read-only), env
// (read-only), wait (blocks until cancelled), die (exits at once), grow
// (adds the tool late), fail (an isError result), big (long text).
func newTestServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "agentls-test", Version: "1"}, nil)
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: no()}
	sdk.AddTool(s, &sdk.Tool{Name: "whereami", Description: "Says the server's working folder.", Annotations: ro},
		func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
			wd, err := os.Getwd()
			return textResult("cwd=" + wd), nil, err
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Says an environment variable of the server.", Annotations: ro},
		func(_ context.Context, _ *sdk.CallToolRequest, in envInput) (*sdk.CallToolResult, any, error) {
			return textResult(in.Name + "=" + os.Getenv(in.Name)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "wait", Description: "Waits until the call is cancelled.", Annotations: ro},
		func(ctx context.Context, _ *sdk.CallToolRequest, in waitInput) (*sdk.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
				if in.Mark != "" {
					_ = os.WriteFile(in.Mark, []byte("cancelled"), 0o644)
				}
				return nil, nil, ctx.Err()
			case <-time.After(time.Minute):
				return textResult("not cancelled"), nil, nil
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "die", Description: "Exits the server process at once."},
		func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "test server: dying as asked")
			os.Exit(7)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool late.", Annotations: &sdk.ToolAnnotations{DestructiveHint: no(), OpenWorldHint: no()}},
		func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "late", Description: "A tool added after the start.", Annotations: ro},
				func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
					return textResult("late tool ran"), nil, nil
				})
			return textResult("added late"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fails.", Annotations: ro},
		func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the thing is broken"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Returns a long text.", Annotations: ro},
		func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
			return textResult(strings.Repeat("0123456789 line of a long result\n", 5000)), nil, nil
		})
	return s
}

// selfCommand is the command that starts the test binary as the server.
func selfCommand(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "-test.run=^$"}
}

// needProgram fails the test, with how to install it, when a program the
// test starts is missing. scripts/test installs them.
func needProgram(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not on PATH; install it with `%s` (scripts/test does)", name, install)
	}
	return p
}

// The npm servers the tests start, at the versions scripts/test installs.
const (
	installEverything = "npm install -g @modelcontextprotocol/server-everything@2026.8.31"
	installFilesystem = "npm install -g @modelcontextprotocol/server-filesystem@2026.8.31"
)
