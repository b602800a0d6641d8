package wrap

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/langserver/framing"
	"github.com/agentls/agentls/internal/proc"
)

// TestRequestsAfterTheServerEnded: the editor's request read while the
// server was alive but passed on after its connection ended (passRaw,
// passCall), and the frontend's own Request, are answered at once with
// the server gone, never left waiting.
func TestRequestsAfterTheServerEnded(t *testing.T) {
	p, err := proc.Start([]string{"sh", "-c", "exit 0"}, t.TempDir(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs, ours := net.Pipe()
	ed := NewEditor(framing.New(ours, framing.Options{}), func(string, json.RawMessage) Route { return ToServer })
	m := Start(Options{Name: "fake", Proc: p, Editor: ed})
	ed.Use(m)
	<-m.Done()

	in := framing.New(theirs, framing.Options{})
	bodies := make(chan []byte, 4)
	go func() {
		for {
			b, _, err := in.ReadBody(context.Background())
			if err != nil {
				return
			}
			bodies <- b
		}
	}()
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(8), "textDocument/definition", json.RawMessage(`{}`))
	m.passRaw(framing.Raw{Kind: framing.RawCall, ID: jsonrpc2.NewNumberID(7), Method: "textDocument/hover", Params: []byte(`{}`)})
	m.passCall(call, false)
	for _, id := range []string{`"id":7`, `"id":8`} {
		select {
		case b := <-bodies:
			if !strings.Contains(string(b), id) || !strings.Contains(string(b), "fake is gone") {
				t.Errorf("answer %s, want %s with the server gone", b, id)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the request with %s was never answered", id)
		}
	}
	m.mu.Lock()
	n := len(m.pending)
	m.mu.Unlock()
	if n != 0 {
		t.Errorf("%d requests left pending", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := m.Request(ctx, "shutdown", nil); err == nil || !strings.Contains(err.Error(), "fake is gone") {
		t.Errorf("Request after the end = %v, want the server gone", err)
	}
}
