package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// FuzzWire feeds arbitrary bytes to the ACP stream reader, as a broken
// client would. It must never panic or hang; every line it passes on to
// the SDK must be one JSON-RPC 2.0 object the SDK can take (a request,
// notification or reply, with a valid id), each request among those it
// waits to see answered; and everything it writes back must be lines of
// JSON-RPC error replies.
func FuzzWire(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n",
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}` + "\n",
		`{"jsonrpc":"2.0","id":"a","result":{"outcome":{"outcome":"selected","optionId":"allow"}}}` + "\r\n",
		"this is not json\n[1,2]\n42\n{\"jsonrpc\":\"2.0\"}\n",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}` + "\n" + `{"jsonrpc":"2.0","id":6,"method":"session/new","params":"cwd"}`,
		`{"jsonrpc":"1.0","id":"x","method":"initialize","params":{}}` + "\n\n\n" + `{"jsonrpc":"2.0","id":5}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"x","params":null}` + "\n" + `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var mu sync.Mutex
		var out bytes.Buffer
		w := newWire(bytes.NewReader(input), writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return out.Write(p)
		}), slog.New(slog.DiscardHandler), nil)
		pr, pw := io.Pipe()
		var passed []string
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(pr)
			sc.Buffer(nil, maxLine+2)
			for sc.Scan() {
				passed = append(passed, sc.Text())
			}
		}()
		w.pump(pw)
		<-done
		requests := 0
		for _, line := range passed {
			var msg struct {
				JSONRPC string           `json:"jsonrpc"`
				ID      *json.RawMessage `json:"id"`
				Method  *string          `json:"method"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" || !strings.HasPrefix(strings.TrimSpace(line), "{") {
				t.Fatalf("passed on to the SDK: %q (%v)", line, err)
			}
			if msg.ID != nil && !validID(*msg.ID) {
				t.Fatalf("passed on with an invalid id: %q", line)
			}
			if msg.Method != nil && *msg.Method == "" {
				t.Fatalf("passed on with an empty method: %q", line)
			}
			if msg.Method != nil && msg.ID != nil {
				requests++
			}
		}
		w.pendMu.Lock()
		pending := len(w.pending)
		w.pendMu.Unlock()
		if pending > requests {
			t.Fatalf("%d requests awaited, but only %d passed on", pending, requests)
		}
		if requests > 0 && pending == 0 {
			t.Fatalf("%d requests passed on, none awaited", requests)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" || r.Error == nil || r.Error.Message == "" || !validID(r.ID) {
				t.Fatalf("wrote back %q, not a JSON-RPC error reply (%v)", line, err)
			}
		}
	})
}

// writerFunc is an io.Writer from a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
