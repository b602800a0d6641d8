package wrap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/framing"
	"github.com/agentls/agentls/internal/langserver/wrap"
	"github.com/agentls/agentls/internal/proc"
)

// fakeServerEnv makes the test binary a scripted language server
// (runFakeServer).
const fakeServerEnv = "AGENTLS_TEST_WRAP_FAKE_SERVER"

// requestCancelled is LSP's error code for a cancelled request.
const requestCancelled jsonrpc2.Code = -32800

func TestMain(m *testing.M) {
	if os.Getenv(fakeServerEnv) != "" {
		os.Exit(runFakeServer())
	}
	os.Exit(m.Run())
}

type stdio struct{}

func (stdio) Read(b []byte) (int, error)  { return os.Stdin.Read(b) }
func (stdio) Write(b []byte) (int, error) { return os.Stdout.Write(b) }
func (stdio) Close() error                { return os.Stdin.Close() }

// runFakeServer answers "echo" with the body it got (as a string), "ask"
// by asking its client workspace/configuration and answering with what
// the client answered (under which id), "notify" by publishing its params
// as diagnostics first, and "slow" only once cancelled, with the id it
// knows the request by.
func runFakeServer() int {
	s := framing.New(stdio{}, framing.Options{})
	ctx := context.Background()
	asked := map[jsonrpc2.ID]jsonrpc2.ID{} // its request's id → the "ask" it answers
	slow := map[jsonrpc2.ID]bool{}
	reply := func(id jsonrpc2.ID, v any) { _ = s.WriteResponse(ctx, id, mustJSON(v), nil) }
	for n := 1; ; n++ {
		body, _, err := s.ReadBody(ctx)
		if err != nil {
			return 0
		}
		msg, err := s.Decode(body)
		if err != nil {
			continue
		}
		switch m := msg.(type) {
		case *jsonrpc2.Call:
			switch m.Method() {
			case "initialize":
				reply(m.ID(), map[string]any{"capabilities": map[string]any{}})
			case "echo":
				reply(m.ID(), map[string]any{"body": string(body)})
			case "slow":
				slow[m.ID()] = true
			case "ask":
				id := jsonrpc2.NewStringID(fmt.Sprintf("srv-%d", n))
				asked[id] = m.ID()
				c, _ := jsonrpc2.NewCall(id, "workspace/configuration", m.Params())
				_, _ = s.Write(ctx, c)
			case "notify":
				d, _ := jsonrpc2.NewNotification("textDocument/publishDiagnostics", m.Params())
				_, _ = s.Write(ctx, d)
				reply(m.ID(), nil)
			}
		case *jsonrpc2.Notification:
			if m.Method() != "$/cancelRequest" {
				continue
			}
			var p struct {
				ID jsonrpc2.ID `json:"id"`
			}
			if json.Unmarshal(m.Params(), &p) == nil && slow[p.ID] {
				delete(slow, p.ID)
				_ = s.WriteResponse(ctx, p.ID, nil, &jsonrpc2.Error{Code: requestCancelled, Message: fmt.Sprintf("cancelled %v", p.ID)})
			}
		case *jsonrpc2.Response:
			ask, ok := asked[m.ID()]
			if !ok {
				continue
			}
			delete(asked, m.ID())
			ans := map[string]any{"id": fmt.Sprint(m.ID()), "result": m.Result()}
			if m.Err() != nil {
				ans["error"] = m.Err().Error()
			}
			reply(ask, ans)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// rawPeer is the editor's end: it writes bodies as they are given and
// reads bodies undecoded.
type rawPeer struct {
	t      *testing.T
	conn   net.Conn
	mu     sync.Mutex
	bodies chan []byte
}

func newRawPeer(t *testing.T, conn net.Conn) *rawPeer {
	p := &rawPeer{t: t, conn: conn, bodies: make(chan []byte, 100)}
	in := framing.New(conn, framing.Options{})
	go func() {
		for {
			body, _, err := in.ReadBody(context.Background())
			if err != nil {
				close(p.bodies)
				return
			}
			p.bodies <- body
		}
	}()
	return p
}

func (p *rawPeer) send(body string) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := fmt.Fprintf(p.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		p.t.Fatal(err)
	}
}

// message is a body read back, its members undecoded.
type message struct {
	body    []byte
	members map[string]json.RawMessage
}

func (m message) is(member, want string) bool { return sameJSON(m.members[member], []byte(want)) }

func (p *rawPeer) recv() message {
	p.t.Helper()
	select {
	case body, ok := <-p.bodies:
		if !ok {
			p.t.Fatal("the connection ended")
		}
		var m message
		m.body = body
		if err := json.Unmarshal(body, &m.members); err != nil {
			p.t.Fatalf("%s: %v", body, err)
		}
		return m
	case <-time.After(20 * time.Second):
		p.t.Fatal("nothing came")
	}
	return message{}
}

// seenID says s is a number, as the Mux's ids are.
func seenID(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// startFake wraps the fake server: the editor's end, the Mux and what
// agentls's own connection read.
func startFake(t *testing.T) (*rawPeer, *wrap.Mux) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := proc.Start([]string{exe}, t.TempDir(), append(os.Environ(), fakeServerEnv+"=1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs, ours := net.Pipe()
	ed := wrap.NewEditor(framing.New(ours, framing.Options{}), func(method string, _ json.RawMessage) wrap.Route {
		if strings.HasPrefix(method, "agentls/") {
			return wrap.ToAgentls
		}
		return wrap.ToServer
	})
	m := wrap.Start(wrap.Options{Name: "fake", Proc: p, Editor: ed})
	t.Cleanup(func() { m.Close(time.Second); _ = theirs.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := m.Initialize(ctx, json.RawMessage(`{"capabilities":{}}`)); err != nil {
		t.Fatal(err)
	}
	ed.Use(m)
	conn := jsonrpc2.NewConn(ed)
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "agentls/ping" {
			return reply(ctx, "pong", nil)
		}
		if _, call := req.(*jsonrpc2.Call); call {
			return reply(ctx, nil, jsonrpc2.ErrMethodNotFound)
		}
		return nil
	})
	return newRawPeer(t, theirs), m
}

// TestWrapMuxPassesOn: the editor's requests reach the server under ids of
// the Mux's and their answers come back under the editor's, with number
// and string ids, whether read by Scan (their params byte for byte) or by
// the full decode (an id with an escape); cancellations are mapped; the
// server's requests reach the editor under ids of their own and the
// editor's answers (results and errors) reach the server under its ids;
// notifications reach the editor as they are, with copies for agentls's
// client, which also gets the kept diagnostics when it attaches late and
// the answers to its own requests; agentls's own requests are its.
func TestWrapMuxPassesOn(t *testing.T) {
	ed, m := startFake(t)
	params := `{"x": "<&> \u00e9", "n":[1, 2.5e3, {"id": 3}]}`
	seen := map[string]bool{}
	for _, c := range []struct {
		id     string
		asSent bool // Scan reads it: the params reach the server byte for byte
	}{{`5`, true}, {`"s-1"`, true}, {`-7`, true}, {`"s\u002d2"`, false}} {
		ed.send(`{"jsonrpc":"2.0","id":` + c.id + `,"method":"echo","params":` + params + `}`)
		r := ed.recv()
		if !r.is("id", c.id) {
			t.Fatalf("the answer to %s came as %s", c.id, r.body)
		}
		var res struct{ Body string }
		if err := json.Unmarshal(r.members["result"], &res); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		var got message
		if err := json.Unmarshal([]byte(res.Body), &got.members); err != nil {
			t.Fatalf("the server got %q: %v", res.Body, err)
		}
		sid := string(got.members["id"])
		if _, err := strconv.Atoi(sid); err != nil || seen[sid] {
			t.Errorf("the server got request %s under the id %s (seen before: %v)", c.id, sid, seen[sid])
		}
		seen[sid] = true
		if !got.is("method", `"echo"`) || !got.is("params", params) {
			t.Errorf("the server got %s", res.Body)
		}
		if c.asSent && !strings.Contains(res.Body, `,"params":`+params+`}`) {
			t.Errorf("the params changed on the way: the server got %s", res.Body)
		}
	}

	// Cancellation.
	for _, id := range []string{`9`, `"slow-1"`} {
		ed.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"slow","params":{}}`)
		ed.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`)
		r := ed.recv()
		var e jsonrpc2.Error
		if !r.is("id", id) || json.Unmarshal(r.members["error"], &e) != nil || e.Code != requestCancelled {
			t.Fatalf("the cancelled request %s was answered %s", id, r.body)
		}
		// The server was asked to cancel the request by its own id.
		if sid := strings.TrimPrefix(e.Message, "cancelled "); !seenID(sid) || seen[sid] {
			t.Errorf("the server cancelled %q", e.Message)
		}
	}

	// The server's requests.
	for i, answer := range []string{`"result":[{"a": 1}]`, `"error":{"code":-32601,"message":"no"}`} {
		ed.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ask","params":{"items":[{"section":"gopls"}]}}`, 20+i))
		q := ed.recv()
		var eid int64
		if !q.is("method", `"workspace/configuration"`) || !q.is("params", `{"items":[{"section":"gopls"}]}`) || json.Unmarshal(q.members["id"], &eid) != nil || eid <= 1<<30 {
			t.Fatalf("the server's request reached the editor as %s", q.body)
		}
		ed.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, eid, answer))
		r := ed.recv()
		var res struct {
			ID     string
			Result json.RawMessage
			Error  string
		}
		if !r.is("id", strconv.Itoa(20+i)) || json.Unmarshal(r.members["result"], &res) != nil || !strings.HasPrefix(res.ID, "srv-") {
			t.Fatalf("the editor's answer reached the server as %s", r.body)
		}
		if i == 0 && !sameJSON(res.Result, []byte(`[{"a":1}]`)) || i == 1 && res.Error != "no" {
			t.Errorf("the editor's answer %s reached the server as %s", answer, r.body)
		}
	}

	// agentls's own requests.
	ed.send(`{"jsonrpc":"2.0","id":30,"method":"agentls/ping"}`)
	if r := ed.recv(); !r.is("id", `30`) || !r.is("result", `"pong"`) {
		t.Errorf("agentls/ping was answered %s", r.body)
	}

	// Notifications, and agentls's client.
	a, err := m.Attach()
	if err != nil {
		t.Fatal(err)
	}
	diags := `{"uri":"file:///x.go", "diagnostics":[{"message":"<bad> é"}]}`
	ed.send(`{"jsonrpc":"2.0","id":31,"method":"notify","params":` + diags + `}`)
	n := ed.recv()
	if !n.is("method", `"textDocument/publishDiagnostics"`) || !n.is("params", diags) || n.members["id"] != nil {
		t.Errorf("the server's notification reached the editor as %s", n.body)
	}
	if r := ed.recv(); !r.is("id", `31`) {
		t.Errorf("notify was answered %s", r.body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	agentRead := func(a *wrap.Agent) jsonrpc2.Message {
		t.Helper()
		msg, _, err := a.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	if c, ok := agentRead(a).(*jsonrpc2.Notification); !ok || c.Method() != "textDocument/publishDiagnostics" || !sameJSON(c.Params(), []byte(diags)) {
		t.Errorf("agentls's client got %#v, not a copy of the diagnostics", c)
	}
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewStringID("agent-1"), "echo", json.RawMessage(`{"q":1}`))
	if _, err := a.Write(ctx, call); err != nil {
		t.Fatal(err)
	}
	if r, ok := agentRead(a).(*jsonrpc2.Response); !ok || r.ID() != jsonrpc2.NewStringID("agent-1") || !bytes.Contains(r.Result(), []byte(`\"params\":{\"q\":1}`)) {
		t.Errorf("agentls's client's request was answered %#v", r)
	}
	_ = a.Close()
	late, err := m.Attach()
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := agentRead(late).(*jsonrpc2.Notification); !ok || c.Method() != "textDocument/publishDiagnostics" || !sameJSON(c.Params(), []byte(diags)) {
		t.Errorf("a client attaching late got %#v, not the kept diagnostics", c)
	}
}

// TestWrapMuxBadFrameAfterARequest: a request and, in the same read, a
// frame the reader skips (a header line without a colon) — the request
// still reaches the server and is answered: the writes a relay holds
// while more messages are read already are not held over the skipped
// frame, while the reader waits for more.
func TestWrapMuxBadFrameAfterARequest(t *testing.T) {
	ed, _ := startFake(t)
	for _, bad := range []string{"Content-Length: 2\r\ngarbage\r\n\r\n{}", "Content-Length: 0\r\n\r\n"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`
		ed.mu.Lock()
		_, err := fmt.Fprintf(ed.conn, "Content-Length: %d\r\n\r\n%s%s", len(body), body, bad)
		ed.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if r := ed.recv(); !r.is("id", "1") {
			t.Fatalf("the answer came as %s", r.body)
		}
	}
}
