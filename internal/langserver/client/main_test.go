package client

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeEnv selects the fake server mode when the test binary is re-run as
// a language server.
const fakeEnv = "AGENTLS_FAKE_LSP"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(fakeEnv); ok {
		os.Exit(runFakeServer(mode, os.Getenv("AGENTLS_FAKE_LOG")))
	}
	// Real servers installed with `go install` live in GOPATH/bin.
	if home, err := os.UserHomeDir(); err == nil {
		os.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+filepath.Join(home, "go", "bin"))
	}
	os.Exit(m.Run())
}

// runFakeServer is a tiny language server on stdin/stdout, driven by a
// comma-separated mode:
//
//	enc=X      answer positionEncoding X
//	offset=X   answer clangd's top-level offsetEncoding X instead
//	silent     never answer requests other than initialize and shutdown
//	noinit     never answer initialize (a server still starting)
//	echo       definition answers the requested position, one character wide
//	garbage    print non-LSP text to stdout before answering initialize
//	config     ask workspace/configuration after initialized
//	register   register a didChangeWatchedFiles watcher for **/*.txt
//	die        print a fatal error to stderr and exit when asked to initialize
//	crash      exit without answering a definition request (with =once,
//	           only the first process does; later ones answer)
//	indexing=MS  after initialized, report work-done progress "indexing"
//	           for MS milliseconds; references asked before it ends find
//	           only the asked position (the index is incomplete), after it
//	           also a second place
//	flood      before answering initialize, print 32 MiB to stdout without
//	           a newline, 8 MiB of lines to stdout and to stderr, and 5,000
//	           logMessage notifications
//
// Every message received is appended, raw, to the log file (one per line).
func runFakeServer(mode, logPath string) int {
	flags := map[string]string{}
	for _, f := range strings.Split(mode, ",") {
		k, v, _ := strings.Cut(f, "=")
		flags[k] = v
	}
	var logf io.Writer = io.Discard
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return 2
		}
		defer f.Close()
		logf = f
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	var outMu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(b), b)
		out.Flush()
	}
	var indexed atomic.Bool
	indexed.Store(true)
	reply := func(id json.RawMessage, result any) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	for {
		n := -1
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return 0
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			return 0
		}
		fmt.Fprintf(logf, "%s\n", body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		switch msg.Method {
		case "initialize":
			if _, ok := flags["noinit"]; ok {
				continue // never answers: a server still starting
			}
			if _, ok := flags["flood"]; ok {
				flood(out)
			}
			if _, ok := flags["die"]; ok {
				fmt.Fprintln(os.Stderr, "fatal: bad config in fake.toml")
				return 3
			}
			if _, ok := flags["garbage"]; ok {
				fmt.Fprint(out, "debug: starting up\n")
				out.Flush()
			}
			caps := map[string]any{
				"textDocumentSync":   map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": true}},
				"definitionProvider": true,
				"referencesProvider": true,
			}
			result := map[string]any{"capabilities": caps}
			if e := flags["enc"]; e != "" {
				caps["positionEncoding"] = e
			}
			if e := flags["offset"]; e != "" {
				result["offsetEncoding"] = e
			}
			reply(msg.ID, result)
		case "initialized":
			if v, ok := flags["indexing"]; ok {
				ms, _ := strconv.Atoi(v)
				indexed.Store(false)
				progress := func(value map[string]any) {
					send(map[string]any{"jsonrpc": "2.0", "method": "$/progress", "params": map[string]any{"token": "idx", "value": value}})
				}
				progress(map[string]any{"kind": "begin", "title": "indexing"})
				go func() {
					time.Sleep(time.Duration(ms) * time.Millisecond)
					indexed.Store(true)
					progress(map[string]any{"kind": "end"})
				}()
			}
			if _, ok := flags["config"]; ok {
				send(map[string]any{"jsonrpc": "2.0", "id": "cfg", "method": "workspace/configuration",
					"params": map[string]any{"items": []map[string]any{{"section": "fake.alpha"}, {"section": "missing"}, {}}}})
			}
			if _, ok := flags["register"]; ok {
				send(map[string]any{"jsonrpc": "2.0", "id": "reg", "method": "client/registerCapability",
					"params": map[string]any{"registrations": []map[string]any{{
						"id": "w1", "method": "workspace/didChangeWatchedFiles",
						"registerOptions": map[string]any{"watchers": []map[string]any{{"globPattern": "**/*.txt"}}},
					}}}})
			}
		case "shutdown":
			reply(msg.ID, nil)
		case "exit":
			return 0
		case "textDocument/definition":
			if _, ok := flags["silent"]; ok {
				continue
			}
			if v, ok := flags["crash"]; ok {
				// With =once, a marker beside the log says it happened.
				f, err := os.OpenFile(logPath+".crashed", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
				if err == nil {
					f.Close()
				}
				if err == nil || v != "once" {
					fmt.Fprintln(os.Stderr, "panic: runtime error: index out of range [3] with length 3")
					return 2
				}
			}
			var p positionParams
			_ = json.Unmarshal(msg.Params, &p)
			end := p.Position
			end.Character++
			reply(msg.ID, []location{{URI: p.TextDocument.URI, Range: lspRange{Start: p.Position, End: end}}})
		case "textDocument/references":
			var p positionParams
			_ = json.Unmarshal(msg.Params, &p)
			locs := []location{{URI: p.TextDocument.URI, Range: lspRange{Start: p.Position, End: p.Position}}}
			if indexed.Load() {
				other := p.Position
				other.Line++
				locs = append(locs, location{URI: p.TextDocument.URI, Range: lspRange{Start: other, End: other}})
			}
			reply(msg.ID, locs)
		default:
			if len(msg.ID) > 0 && msg.Method != "" {
				if _, ok := flags["silent"]; ok {
					continue
				}
				reply(msg.ID, nil)
			}
		}
	}
}

// flood prints what a server in trouble might: megabytes of stdout without
// a newline, lines of debug output on stdout and stderr, and thousands of
// log notifications.
func flood(out *bufio.Writer) {
	line := strings.Repeat("x", 1<<10)
	for range 32 << 10 {
		out.WriteString(line)
	}
	out.WriteString("\n")
	for range 8 << 10 {
		out.WriteString("debug: " + line + "\n")
		fmt.Fprintln(os.Stderr, "trace: "+line)
	}
	for i := range 5000 {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "window/logMessage", "params": map[string]any{"type": 4, "message": fmt.Sprintf("log %d", i)}})
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	out.Flush()
}
