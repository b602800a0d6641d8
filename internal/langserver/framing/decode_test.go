package framing

import (
	"encoding/json"
	"fmt"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestDecodeMessageAsJSONRPC2: decodeMessage, which spares the 32 KiB
// buffer jsonrpc2.DecodeMessage allocates per message, reads every kind
// of message (and refuses every bad one) as jsonrpc2 does.
func TestDecodeMessageAsJSONRPC2(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"position":{"line":3,"character":5}}}`,
		`{"jsonrpc":"2.0","id":"s-1","method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
		`{"jsonrpc":"2.0","id":7,"result":{"contents":{"kind":"markdown","value":"é😀"}}}`,
		`{"jsonrpc":"2.0","id":8,"result":null}`,
		`{"jsonrpc":"2.0","id":9,"error":{"code":-32800,"message":"cancelled","data":{"why":"typing"}}}`,
		`{"id":10,"method":"no version tag"}`,
		`{"jsonrpc":"1.0","id":11,"method":"wrong version"}`,
		`{"jsonrpc":"2.0","result":1}`,
		`{"jsonrpc":"2.0","id":12,"method":"m"} trailing`,
		`{"jsonrpc":"2.0","id":13,"method":"m","params":[1,}`,
		`[1,2]`,
	} {
		t.Run(body, func(t *testing.T) {
			want, werr := jsonrpc2.DecodeMessage([]byte(body))
			got, gerr := decodeMessage([]byte(body))
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("error %v, jsonrpc2's %v", gerr, werr)
			}
			if werr != nil {
				return
			}
			if describe(got) != describe(want) {
				t.Errorf("decoded\n%s\njsonrpc2:\n%s", describe(got), describe(want))
			}
		})
	}
}

// describe is a message's kind, id, method, params or result (compacted)
// and error.
func describe(m jsonrpc2.Message) string {
	compact := func(r json.RawMessage) string {
		var v any
		if len(r) == 0 {
			return "null" // absent: read as null
		}
		if json.Unmarshal(r, &v) != nil {
			return string(r)
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	switch m := m.(type) {
	case *jsonrpc2.Call:
		return fmt.Sprintf("call %q %s %s", m.ID(), m.Method(), compact(m.Params()))
	case *jsonrpc2.Notification:
		return fmt.Sprintf("notification %s %s", m.Method(), compact(m.Params()))
	case *jsonrpc2.Response:
		e, _ := json.Marshal(m.Err())
		return fmt.Sprintf("response %q %s %s", m.ID(), compact(m.Result()), e)
	}
	return fmt.Sprintf("%T", m)
}
