package lsp_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent/fim/fimtest"
	"github.com/agentls/agentls/internal/benchpair"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// benchTokens and benchEvery are the benchmark's model: 16 tokens at
// 500 tokens a second, faster than a local model a person runs for
// completion (so agentls's share is, if anything, overstated).
const (
	benchTokens = 16
	benchEvery  = 2 * time.Millisecond
)

// inlineBench is a fake editor with a document open and the loopback FIM
// server as its completion model.
type inlineBench struct {
	ctx  context.Context
	ed   *fake.Editor
	srv  *fimtest.Server
	path string
	n    int // the document's edits so far: each request sees new text, never the cache
}

func newInlineBench(b *testing.B, answer func(fimtest.Request) fimtest.Reply) *inlineBench {
	srv := fimtest.New(answer)
	b.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	root := b.TempDir()
	opts := fake.Options{Roots: []string{root}, InitOptions: completionSettings(srv, nil)}
	opts.Server.Getenv = func(string) string { return "" }
	opts.Server.DataDir, opts.Server.StateDir = b.TempDir(), b.TempDir()
	ed := fake.Connect(ctx, opts)
	if _, err := ed.Initialize(ctx); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(root, "calc.go")
	if err := ed.Open(ctx, path, addGo); err != nil {
		b.Fatal(err)
	}
	return &inlineBench{ctx: ctx, ed: ed, srv: srv, path: path}
}

// retype changes the line before the function, so the next request's
// prefix is new; it returns the cursor's line and column.
func (ib *inlineBench) retype(b *testing.B) (int, int) {
	ib.n++
	line := fmt.Sprintf("// Add returns the sum of a and b (%d).", ib.n)
	if err := ib.ed.Change(ib.ctx, ib.path, fake.Edit{StartLine: 2, StartChar: 0, EndLine: 3, EndChar: 0, Text: line + "\n"}); err != nil {
		b.Fatal(err)
	}
	return 4, 1
}

// BenchmarkInlineCompletion measures inline completion's latency: from
// the model's first token to the editor holding the completion item
// (through the FIM client, the server and LSP), against the model alone
// — a plain HTTP client reading the same server's stream of the same 16
// tokens to its end — interleaved. It reports the medians (ours-us,
// base-us) and the median per-pair ratio.
func BenchmarkInlineCompletion(b *testing.B) {
	parts := make([]string, benchTokens)
	for i := range parts {
		parts[i] = fmt.Sprintf(" t%d", i)
	}
	want := strings.Join(parts, "")
	var mu sync.Mutex
	var first time.Time
	ib := newInlineBench(b, func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: parts, Every: benchEvery} })
	ib.srv.OnFirstPart = func(fimtest.Request) {
		mu.Lock()
		first = time.Now()
		mu.Unlock()
	}
	firstAt := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
	ours := func() time.Duration {
		line, col := ib.retype(b)
		got, err := ib.ed.InlineCompletion(ib.ctx, ib.path, line, col, fake.InlineInvoked)
		end := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		if len(got.Items) != 1 || got.Items[0].InsertText != want {
			b.Fatalf("items %+v, want %q", got, want)
		}
		return end.Sub(firstAt())
	}
	body := `{"model":"coder","prompt":"func Add(a, b int) int {\n\t","suffix":"\n}\n","max_tokens":128,"stream":true,"temperature":0}`
	base := func() time.Duration {
		resp, err := http.Post(ib.srv.URL+"/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() == "data: [DONE]" {
				return time.Since(firstAt())
			}
		}
		b.Fatalf("the stream ended without [DONE]: %v", sc.Err())
		return 0
	}
	benchpair.Run(b, time.Microsecond, ours, base)
}

// BenchmarkInlineCancel measures what a cancelled inline completion
// costs: the time from the editor cancelling the request
// ($/cancelRequest) to the model server seeing the model's request end
// (its connection closed), against a plain HTTP client cancelling its
// own request to the same server, interleaved. The goal is 5 ms.
func BenchmarkInlineCancel(b *testing.B) {
	hold := make(chan struct{})
	defer close(hold)
	received := make(chan struct{}, 1)
	aborted := make(chan time.Time, 1)
	ib := newInlineBench(b, func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Hold: hold, Parts: []string{"never"}} })
	ib.srv.OnReceive = func(fimtest.Request) { received <- struct{}{} }
	ib.srv.OnAbort = func(_ fimtest.Request, at time.Time) { aborted <- at }
	waitAbort := func(cancelled time.Time) time.Duration {
		select {
		case at := <-aborted:
			return at.Sub(cancelled)
		case <-time.After(10 * time.Second):
			b.Fatal("the model's request never ended")
			return 0
		}
	}
	ours := func() time.Duration {
		line, col := ib.retype(b)
		ctx, cancel := context.WithCancel(ib.ctx)
		done := make(chan error, 1)
		go func() {
			_, err := ib.ed.InlineCompletion(ctx, ib.path, line, col, fake.InlineInvoked)
			done <- err
		}()
		<-received
		t0 := time.Now()
		cancel() // the fake editor sends $/cancelRequest at once
		d := waitAbort(t0)
		<-done
		return d
	}
	base := func() time.Duration {
		ctx, cancel := context.WithCancel(ib.ctx)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ib.srv.URL+"/completions",
			strings.NewReader(`{"model":"coder","prompt":"a","suffix":"b","stream":true}`))
		done := make(chan struct{})
		go func() {
			defer close(done)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		<-received
		t0 := time.Now()
		cancel()
		d := waitAbort(t0)
		<-done
		return d
	}
	benchpair.Run(b, time.Microsecond, ours, base)
}
