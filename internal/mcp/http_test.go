package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// httpServer serves the test server over streamable HTTP, refusing
// requests without the bearer token.
func httpServer(t *testing.T, token string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	srv := newTestServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var refused atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			refused.Add(1)
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &refused
}

func TestHTTPServer(t *testing.T) {
	ts, refused := httpServer(t, "s3cret")
	f := newFixture(t, config.MCPServers{
		"web": {Type: "http", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}, From: "test config"},
	}, false)
	f.env["WEB_TOKEN"] = "s3cret"
	ctx := context.Background()
	got := f.tools(t)
	if res := run(t, ctx, mustTool(t, got, "mcp_web_env"), `{"name":"HOME"}`); res.IsError || !strings.HasPrefix(res.Content, "HOME=") {
		t.Errorf("env over HTTP = %+v", res)
	}
	if refused.Load() != 0 {
		t.Errorf("%d requests went without the token", refused.Load())
	}
	// tools/list_changed arrives over the standalone SSE stream.
	run(t, ctx, mustTool(t, got, "mcp_web_grow"), `{}`)
	var late tools.Tool
	eventually(t, "the late tool is offered over HTTP", func() bool {
		late = f.tools(t)["mcp_web_late"]
		return late != nil
	})
	// Cancellation reaches an HTTP server too.
	mark := filepath.Join(t.TempDir(), "cancelled")
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	if _, err := mustTool(t, got, "mcp_web_wait").Run(cctx, tools.Call{Input: []byte(`{"mark":"` + mark + `"}`)}); err == nil {
		t.Error("the cancelled call returned no error")
	}
	eventually(t, "the HTTP server saw notifications/cancelled", func() bool {
		b, _ := os.ReadFile(mark)
		return string(b) == "cancelled"
	})
	if res := run(t, ctx, late, `{}`); res.Content != "late tool ran" {
		t.Errorf("after the cancelled call: %+v", res)
	}
}

func TestHTTPServerRefusesAWrongToken(t *testing.T) {
	ts, refused := httpServer(t, "right")
	f := newFixture(t, config.MCPServers{
		"web": {URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer wrong"}, From: "test config"},
	}, false)
	if got := f.tools(t); len(got) != 0 || refused.Load() == 0 {
		t.Errorf("tools %d, refused %d: want none, and the server refusing", len(got), refused.Load())
	}
	if !f.noticed("server web failed to start", "check mcp.web in test config") {
		t.Errorf("notices = %q", f.notes)
	}
}

func TestToolTimeout(t *testing.T) {
	ts, _ := httpServer(t, "t")
	f := newFixture(t, config.MCPServers{
		"web": {URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer t"}, ToolTimeout: "300ms", From: "test config"},
	}, false)
	mark := filepath.Join(t.TempDir(), "cancelled")
	res := run(t, context.Background(), mustTool(t, f.tools(t), "mcp_web_wait"), `{"mark":"`+mark+`"}`)
	if !res.IsError || !strings.Contains(res.Content, "did not answer within 300ms (tool_timeout of mcp.web in test config") {
		t.Errorf("wait = %+v, want the tool_timeout error", res)
	}
	// The call is cancelled on the server too.
	eventually(t, "the server saw the timed-out call cancelled", func() bool {
		b, _ := os.ReadFile(mark)
		return string(b) == "cancelled"
	})
}
