package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/frontend/lsp"
)

// rawClient speaks the base protocol by hand, so tests can send frames no
// well-behaved client would.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	in   *bufio.Reader
	exit chan int
}

func newRaw(t *testing.T) *rawClient {
	t.Helper()
	c, s := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Close() })
	r := &rawClient{t: t, conn: c, in: bufio.NewReader(c), exit: make(chan int, 1)}
	go func() {
		r.exit <- lsp.Serve(ctx, s, lsp.Options{App: app.New(app.Options{Getenv: func(string) string { return "" }})})
	}()
	return r
}

func (r *rawClient) sendRaw(b string) {
	r.t.Helper()
	_ = r.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(r.conn, b); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func (r *rawClient) send(id any, method string, params any) {
	r.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	r.sendRaw(frame(string(b)))
}

type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// read returns the next message that is a response (skipping the server's
// notifications).
func (r *rawClient) read() rawMsg {
	r.t.Helper()
	_ = r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		n := -1
		for {
			line, err := r.in.ReadString('\n')
			if err != nil {
				r.t.Fatalf("read header: %v", err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r.in, body); err != nil {
			r.t.Fatalf("read body: %v", err)
		}
		var m rawMsg
		if err := json.Unmarshal(body, &m); err != nil {
			r.t.Fatalf("server sent non-JSON %q", body)
		}
		if m.Method == "" {
			return m
		}
	}
}

func (r *rawClient) wantError(code int, substr string) rawMsg {
	r.t.Helper()
	m := r.read()
	if m.Error == nil || m.Error.Code != code || !strings.Contains(m.Error.Message, substr) {
		r.t.Fatalf("got %+v (error %+v), want error %d containing %q", m, m.Error, code, substr)
	}
	return m
}

func (r *rawClient) initialize() {
	r.t.Helper()
	r.send(1, "initialize", map[string]any{"processId": nil, "rootUri": "file:///tmp", "capabilities": map[string]any{}})
	m := r.read()
	if m.Error != nil {
		r.t.Fatalf("initialize: %+v", m.Error)
	}
	r.send(nil, "initialized", map[string]any{})
}

func (r *rawClient) exitCode() int {
	select {
	case c := <-r.exit:
		return c
	case <-time.After(10 * time.Second):
		r.t.Fatal("server did not exit")
		return -1
	}
}

func TestInitializeResult(t *testing.T) {
	r := newRaw(t)
	r.send(1, "initialize", map[string]any{"processId": 1, "capabilities": map[string]any{}})
	m := r.read()
	var res struct {
		Capabilities struct {
			TextDocumentSync struct {
				OpenClose bool `json:"openClose"`
				Change    int  `json:"change"`
			} `json:"textDocumentSync"`
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
			Workspace struct {
				WorkspaceFolders struct {
					Supported bool `json:"supported"`
				} `json:"workspaceFolders"`
			} `json:"workspace"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	c := res.Capabilities
	if !c.TextDocumentSync.OpenClose || c.TextDocumentSync.Change != 2 || !c.Workspace.WorkspaceFolders.Supported ||
		strings.Join(c.ExecuteCommandProvider.Commands, ",") != "agentls.ask,agentls.cancel,agentls.revertTurn,agentls.approve,agentls.sessions,agentls.compact,agentls.sandbox,agentls.model,agentls.setModel,agentls.answer,agentls.history,agentls.checkpoints,agentls.restoreCheckpoint,agentls.inlineAccepted" || res.ServerInfo.Name != "agentls" {
		t.Errorf("initialize result = %s", m.Result)
	}
}

func TestLifecycle(t *testing.T) {
	t.Run("before initialize", func(t *testing.T) {
		r := newRaw(t)
		r.send(1, "workspace/executeCommand", map[string]any{"command": "agentls.ask"})
		r.wantError(-32002, "before initialize")
		r.initialize()
		r.send(2, "initialize", map[string]any{"capabilities": map[string]any{}})
		r.wantError(-32600, "twice")
	})
	t.Run("unknown request and notification", func(t *testing.T) {
		r := newRaw(t)
		r.initialize()
		r.send(nil, "$/unknownNotification", map[string]any{})
		r.send(2, "textDocument/hover", map[string]any{})
		r.wantError(-32601, "textDocument/hover")
	})
	t.Run("shutdown then exit is 0", func(t *testing.T) {
		r := newRaw(t)
		r.initialize()
		r.send(2, "shutdown", nil)
		if m := r.read(); m.Error != nil || string(m.Result) != "null" {
			t.Fatalf("shutdown reply %+v", m)
		}
		r.send(3, "workspace/executeCommand", map[string]any{"command": "agentls.cancel"})
		r.wantError(-32600, "after shutdown")
		r.send(nil, "exit", nil)
		if c := r.exitCode(); c != 0 {
			t.Errorf("exit after shutdown = %d, want 0", c)
		}
	})
	t.Run("exit without shutdown is 1", func(t *testing.T) {
		r := newRaw(t)
		r.initialize()
		r.send(nil, "exit", nil)
		if c := r.exitCode(); c != 1 {
			t.Errorf("exit without shutdown = %d, want 1", c)
		}
	})
	t.Run("closed input without shutdown is 1", func(t *testing.T) {
		r := newRaw(t)
		r.initialize()
		r.conn.Close()
		if c := r.exitCode(); c != 1 {
			t.Errorf("EOF without shutdown = %d, want 1", c)
		}
	})
}

// Bad input gets an error or a logged warning and the server keeps
// serving: after each bad thing, a good request still gets its answer.
func TestBadInputKeepsServing(t *testing.T) {
	huge := strings.Repeat("x", 100<<20)
	cases := []struct {
		name string
		bad  func(r *rawClient)
		// wantErr is the error code answering the bad input, 0 for none.
		wantErr int
	}{
		{"non-JSON body", func(r *rawClient) { r.sendRaw(frame("{this is not json")) }, -32700},
		{"bad Content-Length", func(r *rawClient) { r.sendRaw("Content-Length: abc\r\n\r\n") }, -32700},
		{"missing Content-Length", func(r *rawClient) { r.sendRaw("Content-Type: x\r\n\r\n") }, -32700},
		{"garbage block", func(r *rawClient) { r.sendRaw("hello there\r\n\r\n") }, -32700},
		{"garbage glued to a header", func(r *rawClient) {
			r.sendRaw("}}tail of a frame whose length was wrong" + frame(`{"jsonrpc":"2.0","id":8,"method":"shutdownX"}`))
			// The garbage is answered first, then the glued request itself.
			r.wantError(-32700, "not a message")
		}, -32601},
		{"JSON but not JSON-RPC", func(r *rawClient) { r.sendRaw(frame(`{"jsonrpc":"2.0","id":7,"method":42}`)) }, -32600},
		{"JSON array (batch)", func(r *rawClient) { r.sendRaw(frame(`[1,2]`)) }, -32600},
		{"100 MB message", func(r *rawClient) { r.sendRaw(frame(`{"jsonrpc":"2.0","method":"x","params":"` + huge + `"}`)) }, -32600},
		{"params of the wrong type", func(r *rawClient) {
			r.send(50, "workspace/executeCommand", []int{1, 2})
		}, -32602},
		{"ask argument of the wrong type", func(r *rawClient) {
			r.send(51, "workspace/executeCommand", map[string]any{"command": "agentls.ask", "arguments": []any{42}})
		}, -32602},
		{"unknown command", func(r *rawClient) {
			r.send(52, "workspace/executeCommand", map[string]any{"command": "nope"})
		}, -32602},
		{"didChange for a never-opened document", func(r *rawClient) {
			r.send(nil, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///nope.go", "version": 2}, "contentChanges": []any{map[string]any{"text": "x"}}})
		}, 0},
		{"non-file URI", func(r *rawClient) {
			r.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "untitled:1", "languageId": "go", "version": 1, "text": "x"}})
		}, 0},
		{"version going backwards", func(r *rawClient) {
			r.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///a.go", "languageId": "go", "version": 5, "text": "x"}})
			r.send(nil, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.go", "version": 3}, "contentChanges": []any{map[string]any{"text": "y"}}})
		}, 0},
		{"didOpen params of the wrong type", func(r *rawClient) { r.send(nil, "textDocument/didOpen", "oops") }, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRaw(t)
			r.initialize()
			tc.bad(r)
			if tc.wantErr != 0 {
				m := r.read()
				if m.Error == nil || m.Error.Code != tc.wantErr {
					t.Fatalf("bad input answered %+v, want error code %d", m.Error, tc.wantErr)
				}
			}
			r.send(99, "workspace/executeCommand", map[string]any{"command": "agentls.cancel"})
			m := r.read()
			if string(m.ID) != "99" || m.Error != nil {
				t.Fatalf("server stopped serving: got %+v", m)
			}
		})
	}
}

// A truncated body at the end of input ends the connection cleanly.
func TestTruncatedBodyAtEOF(t *testing.T) {
	r := newRaw(t)
	r.initialize()
	r.sendRaw("Content-Length: 100\r\n\r\n{\"jsonrpc\":")
	r.conn.Close()
	if c := r.exitCode(); c != 1 {
		t.Errorf("exit code %d, want 1", c)
	}
}

func TestCancelRequest(t *testing.T) {
	// $/cancelRequest for an unknown id is harmless; for a finished one too.
	r := newRaw(t)
	r.initialize()
	r.send(nil, "$/cancelRequest", map[string]any{"id": 12345})
	r.send(nil, "$/cancelRequest", map[string]any{"id": "abc"})
	r.send(7, "workspace/executeCommand", map[string]any{"command": "agentls.cancel"})
	if m := r.read(); string(m.ID) != "7" {
		t.Fatalf("got %+v", m)
	}
}
