package acp

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

type reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeReply(t *testing.T, line string) reply {
	t.Helper()
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("agent wrote a line that is not JSON: %q", line)
	}
	return r
}

func send(t *testing.T, w io.Writer, line string) {
	t.Helper()
	if _, err := io.WriteString(w, line+"\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
}

const initLine = `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`

// TestBadInputIsAnswered: every kind of bad line gets a JSON-RPC error
// with the request's id where it has one, and the connection reads on.
func TestBadInputIsAnswered(t *testing.T) {
	in, out := serve(t, testApp(t, script(t, `{"turns":[{"text":"hi"}]}`)))
	got := lines(out)
	cases := []struct {
		line, id string
		code     int
		says     string
	}{
		{`this is not json`, "null", codeParseError, "not JSON"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, "null", codeParseError, "not JSON"},
		{`[{"jsonrpc":"2.0","id":2,"method":"initialize"}]`, "null", codeInvalidRequest, "batch"},
		{`42`, "null", codeInvalidRequest, "not a JSON-RPC message"},
		{`{"id":3,"method":"initialize","params":{}}`, "3", codeInvalidRequest, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"1.0","id":"x","method":"initialize","params":{}}`, `"x"`, codeInvalidRequest, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, "null", codeInvalidRequest, "string or a number"},
		{`{"jsonrpc":"2.0","id":4,"method":""}`, "4", codeInvalidRequest, "method name is empty"},
		{`{"jsonrpc":"2.0"}`, "null", codeInvalidRequest, "neither a method"},
		{`{"jsonrpc":"2.0","id":5}`, "5", codeInvalidRequest, "a result or an error"},
		{`{"jsonrpc":"2.0","id":6,"method":"session/new","params":"cwd"}`, "6", codeInvalidParams, "params must be an object"},
		{`{"jsonrpc":"2.0","id":7,"method":"no/such/method","params":{}}`, "7", -32601, ""},
		{`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"one"}}`, "8", codeInvalidParams, ""},
		{`{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`, "9", codeInvalidRequest, "before initialize"},
	}
	for _, c := range cases {
		send(t, in, c.line)
		r := decodeReply(t, next(t, got, `"error"`))
		if string(r.ID) != c.id || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.says) {
			t.Errorf("%s\n  answered id %s, %d %q; want id %s, %d, saying %q", c.line, r.ID, r.Error.Code, r.Error.Message, c.id, c.code, c.says)
		}
	}
	// A notification with bad params is dropped without a reply; blank lines are skipped.
	send(t, in, `{"jsonrpc":"2.0","method":"session/cancel","params":7}`)
	send(t, in, "   ")
	send(t, in, fmt.Sprintf(initLine, 10))
	r := decodeReply(t, next(t, got, `"id":10`))
	if r.Error != nil || !strings.Contains(string(r.Result), `"protocolVersion":1`) {
		t.Fatalf("initialize after bad input: %+v %s", r.Error, r.Result)
	}
}

// TestOverlongLineIsSkipped: a line over maxLine is answered and dropped
// (the SDK's reader would stop the connection); the next one is served.
func TestOverlongLineIsSkipped(t *testing.T) {
	in, out := serve(t, testApp(t, script(t, `{"turns":[{"text":"hi"}]}`)))
	got := lines(out)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("a", maxLine) + `"}}`
	go io.WriteString(in, big+"\n"+fmt.Sprintf(initLine, 2)+"\n")
	r := decodeReply(t, next(t, got, `"error"`))
	if string(r.ID) != "null" || r.Error.Code != codeInvalidRequest || !strings.Contains(r.Error.Message, "more than 8 MiB") {
		t.Fatalf("overlong line answered %s %+v", r.ID, r.Error)
	}
	r = decodeReply(t, next(t, got, `"id":2`))
	if r.Error != nil {
		t.Fatalf("the request after the long line failed: %+v", r.Error)
	}
}

// TestCommandsFollowTheNewSessionReply: available_commands_update for a
// new session is written after session/new's reply, so the client knows
// the session id when it arrives.
func TestCommandsFollowTheNewSessionReply(t *testing.T) {
	in, out := serve(t, testApp(t, script(t, `{"turns":[{"text":"hi"}]}`)))
	got := lines(out)
	send(t, in, fmt.Sprintf(initLine, 1))
	next(t, got, `"id":1`)
	root := workspace(t, nil)
	send(t, in, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
	first := decodeReply(t, next(t, got, `"`))
	if string(first.ID) != "2" || first.Error != nil {
		t.Fatalf("first line after session/new is %+v, want its reply", first)
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(first.Result, &res)
	cmds := next(t, got, "available_commands_update")
	if !strings.Contains(cmds, res.SessionID) || !strings.Contains(cmds, `"name":"compact"`) {
		t.Fatalf("commands update %s is not for session %s", cmds, res.SessionID)
	}
}

func TestIdKeySpellings(t *testing.T) {
	if idKey(json.RawMessage(` 7 `)) != idKey(json.RawMessage(`7`)) || idKey(json.RawMessage(`"a"`)) == idKey(json.RawMessage(`"b"`)) {
		t.Fatal("idKey does not match ids by value")
	}
}
