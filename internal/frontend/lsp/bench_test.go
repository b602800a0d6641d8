package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/openai"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/agent/remote"
	"github.com/agentls/agentls/internal/app"
	"github.com/agentls/agentls/internal/benchpair"
	"github.com/agentls/agentls/internal/frontend/lsp"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// BenchmarkFirstToken measures streaming latency: from the moment the
// model server writes an answer's first words to the moment the editor
// has them as a text_delta (through the provider, the turn, the event
// coalescer and LSP), against the baseline of a plain HTTP client
// reading the same server's stream to the same words, interleaved. It
// reports the medians (ours-us, base-us) and the median per-pair ratio.
func BenchmarkFirstToken(b *testing.B) {
	var mu sync.Mutex
	var sent time.Time
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Parts: []string{"Hello", " world"}, BeforePart: func(i int) {
			if i == 0 {
				mu.Lock()
				sent = time.Now()
				mu.Unlock()
			}
		}}
	})
	defer srv.Close()
	sentAt := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return sent
	}
	prov, err := openai.New(openai.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "m"}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ed := fake.Connect(ctx, fake.Options{Roots: []string{b.TempDir()}, Server: app.Options{
		NewProvider: func(string, string) (agent.Provider, error) { return prov, nil }, ModelFlag: prov.Name(),
		Getenv: func(string) string { return "" }, DataDir: b.TempDir(), StateDir: b.TempDir(),
	}})
	if _, err := ed.Initialize(ctx); err != nil {
		b.Fatal(err)
	}
	ours := func() time.Duration {
		res, err := ed.Ask(ctx, lsp.AskArgs{Prompt: "hi"})
		if err != nil {
			b.Fatal(err)
		}
		var got time.Time
		if err := ed.WaitFor(ctx, "the first text_delta", func(e *fake.Editor) bool {
			for _, ev := range e.Events() {
				if ev.TurnID == res.TurnID && ev.Type == agent.EventTextDelta {
					got = time.Now()
					return true
				}
			}
			return false
		}); err != nil {
			b.Fatal(err)
		}
		d := got.Sub(sentAt())
		if _, err := ed.WaitTurnEnd(ctx, res.TurnID); err != nil {
			b.Fatal(err)
		}
		return d
	}
	base := func() time.Duration {
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
		resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatalf("the stream ended before its first words: %v", err)
			}
			if strings.Contains(line, `"content":"Hello"`) {
				d := time.Since(sentAt())
				_, _ = io.Copy(io.Discard, r)
				return d
			}
		}
	}
	benchpair.Run(b, time.Microsecond, ours, base)
}

// BenchmarkWrapHover measures the throughput of requests agentls passes
// through to a wrapped server in bursts: 50 hovers sent at once to
// `agentls serve --wrap gopls` and all answered, against the same 50 sent
// straight to a gopls of its own on a copy of the workspace, interleaved.
// It reports the medians (ours-ms, base-ms) and the median per-pair ratio.
func BenchmarkWrapHover(b *testing.B) { benchWrapHovers(b, 50, 1) }

// BenchmarkWrapThroughput measures sustained throughput: 50 clients each
// sending 10 hovers one after another (500 a sample, 50 always in flight),
// as BenchmarkWrapHover compares them. Unlike a burst, nothing arrives
// together to be passed on in one write.
func BenchmarkWrapThroughput(b *testing.B) { benchWrapHovers(b, 50, 10) }

// benchWrapHovers has clients each send each hovers, one after another,
// through `agentls serve --wrap gopls` and straight to gopls.
func benchWrapHovers(b *testing.B, clients, each int) {
	requireGoplsB(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prepare := func(e *rawEditor) func() time.Duration {
		e.initialize(ctx, nil)
		e.open(ctx, "use.go")
		e.open(ctx, "hello.go")
		e.diagnosticsAt(ctx, "use.go", 1, false)
		params := docPos(e.uri("hello.go"), 3, 6)
		e.call(ctx, "textDocument/hover", params) // warm
		return func() time.Duration {
			start := time.Now()
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					for range each {
						var res json.RawMessage
						if _, err := e.conn.Call(ctx, "textDocument/hover", params, &res); err != nil || len(res) < 10 {
							b.Errorf("hover: %v %s", err, res)
						}
					}
				})
			}
			wg.Wait()
			return time.Since(start)
		}
	}
	base := prepare(startDirect(b, writeWorkspace(b, wrapFiles)))
	ours := prepare(startWrappedProcess(b, writeWorkspace(b, wrapFiles)))
	benchpair.Run(b, time.Millisecond, ours, base)
}

// requireGoplsB fails (never skips) without gopls.
func requireGoplsB(b *testing.B) {
	b.Helper()
	if _, err := exec.LookPath("gopls"); err == nil {
		return
	}
	if home, err := os.UserHomeDir(); err == nil {
		if bin := filepath.Join(home, "go", "bin"); exec.Command(filepath.Join(bin, "gopls"), "version").Run() == nil {
			b.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+bin)
			return
		}
	}
	b.Fatal("gopls is not on PATH: install it with `go install golang.org/x/tools/gopls@v0.23.0`")
}
