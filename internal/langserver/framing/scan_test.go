package framing

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestScan: Scan reads the kind, id, method, params and result of the
// messages it takes, as views of the body, and leaves every other body to
// the full decode; what it reads, the full decode reads alike.
func TestScan(t *testing.T) {
	huge := `"` + strings.Repeat("é x\\\"y ", 200_000) + `"`
	deep := strings.Repeat(`[{"id":1,"a":`, 400) + `null` + strings.Repeat(`}]`, 400)
	tooDeep := strings.Repeat(`[`, 1500) + strings.Repeat(`]`, 1500)
	for _, c := range []struct {
		name, body string
		kind       Kind // 0: not taken
		id         jsonrpc2.ID
		method     string
		params     string // the exact bytes; "" absent
		result     string
	}{
		{name: "call, number id", body: `{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"position":{"line":3}}}`,
			kind: RawCall, id: jsonrpc2.NewNumberID(1), method: "textDocument/hover", params: `{"position":{"line":3}}`},
		{name: "call, string id", body: `{"jsonrpc":"2.0","id":"req-7","method":"shutdown"}`,
			kind: RawCall, id: jsonrpc2.NewStringID("req-7"), method: "shutdown"},
		{name: "call, negative and extreme ids", body: `{"id":-2147483648,"method":"m","params":[]}`,
			kind: RawCall, id: jsonrpc2.NewNumberID(-2147483648), method: "m", params: `[]`},
		{name: "call, largest id", body: `{"id":2147483647,"method":"m"}`,
			kind: RawCall, id: jsonrpc2.NewNumberID(2147483647), method: "m"},
		{name: "call, id 0", body: `{"id":0,"method":"m"}`, kind: RawCall, id: jsonrpc2.NewNumberID(0), method: "m"},
		{name: "members in any order", body: `{"params":{"a":1},"method":"m","id":3,"jsonrpc":"2.0"}`,
			kind: RawCall, id: jsonrpc2.NewNumberID(3), method: "m", params: `{"a":1}`},
		{name: "whitespace everywhere", body: " \r\n{ \"jsonrpc\" : \"2.0\" ,\n\t\"id\" :\t7 , \"method\":\"m\" , \"params\" : [ 1 , { \"k\" : true } ] } \r\n",
			kind: RawCall, id: jsonrpc2.NewNumberID(7), method: "m", params: "[ 1 , { \"k\" : true } ]"},
		{name: "nested id and method keys", body: `{"jsonrpc":"2.0","method":"n","params":{"id":5,"nested":{"id":"x","method":"y","result":1,"error":{}}}}`,
			kind: RawNotification, method: "n", params: `{"id":5,"nested":{"id":"x","method":"y","result":1,"error":{}}}`},
		{name: "escapes inside params", body: `{"jsonrpc":"2.0","method":"n","params":{"a\"b":"c\\d\u00e9\n","\u0069d":[1.5e-3,-0,0.25E+2]}}`,
			kind: RawNotification, method: "n", params: `{"a\"b":"c\\d\u00e9\n","\u0069d":[1.5e-3,-0,0.25E+2]}`},
		{name: "HTML characters untouched", body: `{"jsonrpc":"2.0","id":4,"result":{"value":"a <b> & c"}}`,
			kind: RawResponse, id: jsonrpc2.NewNumberID(4), result: `{"value":"a <b> & c"}`},
		{name: "notification without params", body: `{"jsonrpc":"2.0","method":"exit"}`, kind: RawNotification, method: "exit"},
		{name: "response", body: `{"jsonrpc":"2.0","id":9,"result":{"contents":{"kind":"markdown","value":"é😀"}}}`,
			kind: RawResponse, id: jsonrpc2.NewNumberID(9), result: `{"contents":{"kind":"markdown","value":"é😀"}}`},
		{name: "response, null result", body: `{"jsonrpc":"2.0","id":"s","result":null}`,
			kind: RawResponse, id: jsonrpc2.NewStringID("s"), result: `null`},
		{name: "response with params", body: `{"jsonrpc":"2.0","id":9,"params":{},"result":[]}`,
			kind: RawResponse, id: jsonrpc2.NewNumberID(9), result: `[]`},
		{name: "unknown members", body: `{"jsonrpc":"2.0","x":1,"x":{"id":2},"id":9,"method":"m","extra":"\u0041"}`,
			kind: RawCall, id: jsonrpc2.NewNumberID(9), method: "m"},
		{name: "huge params", body: `{"jsonrpc":"2.0","id":1,"method":"m","params":{"text":` + huge + `,"deep":` + deep + `}}`,
			kind: RawCall, id: jsonrpc2.NewNumberID(1), method: "m", params: `{"text":` + huge + `,"deep":` + deep + `}`},

		{name: "error answer", body: `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`},
		{name: "error beside a result", body: `{"jsonrpc":"2.0","id":2,"result":1,"error":null}`},
		{name: "escaped member name", body: `{"jsonrpc":"2.0","\u0069d":1,"method":"m"}`},
		{name: "escaped unknown key", body: `{"jsonrpc":"2.0","id":1,"method":"m","x\"y":2}`},
		{name: "member name in capitals", body: `{"jsonrpc":"2.0","ID":1,"method":"m"}`},
		{name: "method in other case", body: `{"jsonrpc":"2.0","id":1,"Method":"m"}`},
		{name: "non-ASCII key folding to a member", body: `{"jſonrpc":"1.0","id":1,"method":"m"}`},
		{name: "repeated id", body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`},
		{name: "repeated method", body: `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`},
		{name: "other version", body: `{"jsonrpc":"1.0","id":1,"method":"m"}`},
		{name: "null version", body: `{"jsonrpc":null,"id":1,"method":"m"}`},
		{name: "null params", body: `{"jsonrpc":"2.0","method":"m","params":null}`},
		{name: "float id", body: `{"id":1.0,"method":"m"}`},
		{name: "exponent id", body: `{"id":1e3,"method":"m"}`},
		{name: "minus zero id", body: `{"id":-0,"method":"m"}`},
		{name: "id beyond int32", body: `{"id":2147483648,"method":"m"}`},
		{name: "empty string id", body: `{"id":"","method":"m"}`},
		{name: "escaped string id", body: `{"id":"a\"b","method":"m"}`},
		{name: "non-ASCII string id", body: `{"id":"é","method":"m"}`},
		{name: "null id", body: `{"id":null,"method":"m"}`},
		{name: "bool id", body: `{"id":true,"method":"m"}`},
		{name: "method not a string", body: `{"id":1,"method":42}`},
		{name: "empty method", body: `{"id":1,"method":""}`},
		{name: "escaped method", body: `{"id":1,"method":"a\/b"}`},
		{name: "method and result", body: `{"id":1,"method":"m","result":1}`},
		{name: "neither id nor method", body: `{"jsonrpc":"2.0","result":1}`},
		{name: "id alone", body: `{"jsonrpc":"2.0","id":1}`},
		{name: "empty object", body: `{}`},
		{name: "trailing bytes", body: `{"id":1,"method":"m"} x`},
		{name: "two objects", body: `{"id":1,"method":"m"}{}`},
		{name: "trailing comma", body: `{"id":1,"method":"m",}`},
		{name: "bad params", body: `{"id":1,"method":"m","params":[1,}`},
		{name: "bad literal", body: `{"id":1,"method":"m","params":{"a":tru}}`},
		{name: "bad number", body: `{"id":1,"method":"m","params":[01]}`},
		{name: "bad escape", body: `{"id":1,"method":"m","params":["\x"]}`},
		{name: "short unicode escape", body: `{"id":1,"method":"m","params":["\u12"]}`},
		{name: "control character", body: "{\"id\":1,\"method\":\"m\",\"params\":[\"a\tb\"]}"},
		{name: "invalid UTF-8", body: "{\"id\":1,\"method\":\"m\",\"params\":[\"\xff\"]}"},
		{name: "unclosed", body: `{"id":1,"method":"m","params":{"a":[1]`},
		{name: "mismatched brackets", body: `{"id":1,"method":"m","params":{"a":[1}]}`},
		{name: "too deep", body: `{"id":1,"method":"m","params":` + tooDeep + `}`},
		{name: "an array", body: `[{"id":1,"method":"m"}]`},
		{name: "a string", body: `"m"`},
		{name: "nothing", body: ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ok := Scan([]byte(c.body))
			if c.kind == 0 {
				if ok {
					t.Fatalf("Scan took it: %+v", r)
				}
				return
			}
			if !ok {
				t.Fatal("Scan left it to the full decode")
			}
			if r.Kind != c.kind || r.ID != c.id || r.Method != c.method || string(r.Params) != c.params || string(r.Result) != c.result {
				t.Fatalf("Scan read kind %d id %v method %q params %.80q result %.80q", r.Kind, r.ID, r.Method, r.Params, r.Result)
			}
			if c.params == "" && r.Params != nil || c.kind == RawResponse && r.Result == nil {
				t.Fatalf("params %v, result %v", r.Params, r.Result)
			}
			checkScan(t, []byte(c.body), r)
		})
	}
}

// checkScan checks what Scan read in body against the full decode, and
// its messages passed on under other ids against the messages the full
// decode's path writes: the same once decoded, with the params and result
// byte for byte.
func checkScan(t *testing.T, body []byte, r Raw) {
	t.Helper()
	msg, err := decodeMessage(body)
	if err != nil {
		t.Fatalf("Scan took %.200q, which the full decode refuses: %v", body, err)
	}
	if got, want := describe(rawMessage(t, r)), describe(msg); got != want {
		t.Fatalf("Scan read %.200q as\n%.300s\nthe full decode as\n%.300s", body, got, want)
	}
	for _, id := range []jsonrpc2.ID{jsonrpc2.NewNumberID(1 << 30), jsonrpc2.NewStringID("agentls-copy-3")} {
		passed, err := AppendBody(nil, r, id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeMessage(passed)
		if err != nil {
			t.Fatalf("passed on as %.200q, which does not decode: %v", passed, err)
		}
		if want := describe(reencoded(t, msg, id)); describe(got) != want {
			t.Fatalf("passed on under %v as\n%.300s\nthe full decode's path writes\n%.300s", id, describe(got), want)
		}
		if !bytes.Contains(passed, r.Params) || !bytes.Contains(passed, r.Result) {
			t.Fatalf("passed on as %.200q: the params or result changed", passed)
		}
	}
}

// rawMessage is r as a jsonrpc2.Message.
func rawMessage(t *testing.T, r Raw) jsonrpc2.Message {
	t.Helper()
	var m jsonrpc2.Message
	var err error
	switch r.Kind {
	case RawCall:
		m, err = jsonrpc2.NewCall(r.ID, r.Method, rawOrNil(r.Params))
	case RawNotification:
		m, err = jsonrpc2.NewNotification(r.Method, rawOrNil(r.Params))
	case RawResponse:
		m, err = jsonrpc2.NewResponse(r.ID, rawOrNil(r.Result), nil)
	default:
		t.Fatalf("kind %d", r.Kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func rawOrNil(v []byte) any {
	if v == nil {
		return nil
	}
	return json.RawMessage(v)
}

// reencoded is msg under id as the full decode's path passes it on
// (re-encoded by Write, or WriteResponse), read back.
func reencoded(t *testing.T, msg jsonrpc2.Message, id jsonrpc2.ID) jsonrpc2.Message {
	t.Helper()
	end := &pipeEnd{in: bytes.NewReader(nil)}
	w := New(end, Options{})
	var err error
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		c, _ := jsonrpc2.NewCall(id, m.Method(), json.RawMessage(m.Params()))
		_, err = w.Write(context.Background(), c)
	case *jsonrpc2.Notification:
		_, err = w.Write(context.Background(), m)
	case *jsonrpc2.Response:
		err = w.WriteResponse(context.Background(), id, m.Result(), m.Err())
	}
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	back, _, _, _ := readAll(end.written(), Options{})
	if len(back) != 1 {
		t.Fatalf("%q reads back as %d messages", end.written(), len(back))
	}
	return back[0]
}

// FuzzScan: whatever Scan takes, the full decode reads alike (kind, id,
// method, params and result), and passed on under another id it is the
// message the full decode's path writes, with its params and result byte
// for byte.
func FuzzScan(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.go"},"position":{"line":3,"character":6}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"m","params":[1,"x",null,true,false,{"id":2}]}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"report","message":"<b>"}}}`,
		`{"jsonrpc":"2.0","id":12,"result":{"contents":{"kind":"markdown","value":"` + "```go\\nfunc Hello(name string) string\\n```" + `"},"range":{"start":{"line":3,"character":5},"end":{"line":3,"character":10}}}}`,
		`{"jsonrpc":"2.0","id":12,"result":null}`,
		` { "id" : -5 , "method" : "m" , "params" : { "a\u0041" : [ 1e5 , -0.5E-2 ] } } `,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"2.0","ID":1,"method":"m"}`,
		`{"id":1,"id":2,"method":"m"}`,
		`{"id":"","method":"m"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, ok := Scan(body)
		if !ok {
			return
		}
		checkScan(t, body, r)
	})
}

// BenchmarkScanPassOn is the fast path's work for one hover answer: Scan
// and the body under the editor's id.
func BenchmarkScanPassOn(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":12,"result":{"contents":{"kind":"markdown","value":"` + strings.Repeat("```go\\nfunc Hello(name string) string\\n```\\n\\nHello greets name.\\n\\n", 8) + `"},"range":{"start":{"line":3,"character":5},"end":{"line":3,"character":10}}}}`)
	b.SetBytes(int64(len(body)))
	var buf []byte
	for b.Loop() {
		r, ok := Scan(body)
		if !ok {
			b.Fatal("not taken")
		}
		buf, _ = AppendBody(buf[:0], r, jsonrpc2.NewNumberID(7))
	}
}

// BenchmarkDecodePassOn is the full decode's work for the same answer.
func BenchmarkDecodePassOn(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":12,"result":{"contents":{"kind":"markdown","value":"` + strings.Repeat("```go\\nfunc Hello(name string) string\\n```\\n\\nHello greets name.\\n\\n", 8) + `"},"range":{"start":{"line":3,"character":5},"end":{"line":3,"character":10}}}}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		msg, err := decodeMessage(body)
		if err != nil {
			b.Fatal(err)
		}
		_ = msg.(*jsonrpc2.Response).Result()
	}
}
