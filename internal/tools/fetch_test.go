package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/internal/tools/shell"
)

// page is a documentation page as sites serve it: navigation, a script,
// a style sheet, headings, a code block, a table of links.
const page = `<!DOCTYPE html>
<html><head><title>os — Miscellaneous operating system interfaces</title>
<style>body { color: red }</style>
<script>window.track = function() { document.cookie = "x" };</script>
</head><body>
<h1>os — Miscellaneous interfaces</h1>
<p>This module provides a <strong>portable</strong> way of using
<a href="/3/library/functions.html#open">open()</a>.</p>
<h2>Process Parameters</h2>
<pre><code>import os
print(os.getcwd())</code></pre>
<ul><li>getenv</li><li>putenv</li></ul>
<noscript>enable javascript</noscript>
<script>alert("tracking")</script>
</body></html>`

// loopbackFetchTool is the fetch tool for tests whose servers listen on
// loopback: it may connect anywhere (fetch_connect_test.go tests the
// refusal).
func loopbackFetchTool(outputDir string) *FetchTool {
	return newFetchTool(outputDir, fetchNet{allow: func(netip.AddrPort) bool { return true }})
}

func fetchRun(t *testing.T, tool *FetchTool, in string) Result {
	t.Helper()
	res, err := tool.Run(context.Background(), Call{Input: json.RawMessage(in)})
	if err != nil {
		t.Fatalf("Run(%s): %v", in, err)
	}
	return res
}

func TestFetchMarkdown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	tool := loopbackFetchTool(t.TempDir())

	res := fetchRun(t, tool, `{"url":"`+srv.URL+`/3/library/os.html"}`)
	if res.IsError {
		t.Fatalf("fetch: %s", res.Content)
	}
	for _, want := range []string{"# os — Miscellaneous interfaces", "## Process Parameters", "**portable**",
		"[open()](" + srv.URL + "/3/library/functions.html#open)", "```", "print(os.getcwd())", "- getenv", "200 OK", "text/html"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("markdown lacks %q:\n%s", want, res.Content)
		}
	}
	for _, bad := range []string{"alert", "window.track", "color: red", "<p>", "enable javascript"} {
		if strings.Contains(res.Content, bad) {
			t.Errorf("markdown keeps %q:\n%s", bad, res.Content)
		}
	}

	text := fetchRun(t, tool, `{"url":"`+srv.URL+`/","format":"text"}`)
	if !strings.Contains(text.Content, "This module provides a portable way of using open().") || strings.Contains(text.Content, "alert") ||
		strings.Contains(text.Content, "#") && strings.Contains(text.Content, "# os") {
		t.Errorf("text format:\n%s", text.Content)
	}
	raw := fetchRun(t, tool, `{"url":"`+srv.URL+`/","format":"raw"}`)
	if !strings.Contains(raw.Content, `<script>alert("tracking")</script>`) {
		t.Errorf("raw format lost the body:\n%s", raw.Content)
	}
}

// TestFetchBounded: a 4 MiB page is read up to max_bytes (1 MB by
// default), the model sees a bounded excerpt, and the read text is saved.
func TestFetchBounded(t *testing.T) {
	line := strings.Repeat("All work and no play makes Jack a dull boy. ", 2) + "\n"
	big := []byte(strings.Repeat(line, (4<<20)/len(line)+1)[:4<<20])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(big)
	}))
	defer srv.Close()
	dir := t.TempDir()
	tool := loopbackFetchTool(dir)
	for _, tt := range []struct {
		in   string
		read int
	}{
		{`{"url":"` + srv.URL + `"}`, 1 << 20},
		{`{"url":"` + srv.URL + `","max_bytes":4096}`, 4096},
		{`{"url":"` + srv.URL + `","max_bytes":999999999}`, 5 << 20},
	} {
		res := fetchRun(t, tool, tt.in)
		if res.IsError {
			t.Fatalf("%s: %s", tt.in, res.Content)
		}
		if n := len([]rune(res.Content)); n > shell.MaxOutputChars+2000 {
			t.Errorf("%s: %d characters shown, want at most about %d", tt.in, n, shell.MaxOutputChars)
		}
		if tt.read < 4<<20 && !strings.Contains(res.Content, fmt.Sprintf("cut at %d bytes", tt.read)) {
			t.Errorf("%s: does not say it was cut at %d:\n%.300s", tt.in, tt.read, res.Content)
		}
		if tt.read > shell.MaxOutputChars {
			i := strings.Index(res.Content, "saved in ")
			if i < 0 {
				t.Fatalf("%s: the full text is not saved:\n%s", tt.in, res.Content[len(res.Content)-300:])
			}
			path := strings.Fields(res.Content[i+len("saved in "):])[0]
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			body := data[bytes.Index(data, []byte("\n\n"))+2:]
			if want := min(tt.read, len(big)); len(body) != want {
				t.Errorf("%s: saved %d bytes of body, want about %d", tt.in, len(body), want)
			}
		}
	}
}

func TestFetchRefusesBinary(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 1, 2, 0xff}, 100)...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
		case "/blob":
			w.Header().Set("Content-Type", "application/octet-stream")
		case "/untyped":
			w.Header()["Content-Type"] = nil
		case "/zip":
			w.Header().Set("Content-Type", "application/zip")
			w.Write([]byte("PK\x03\x04 not really text"))
			return
		}
		w.Write(png)
	}))
	defer srv.Close()
	tool := loopbackFetchTool(t.TempDir())
	for _, p := range []string{"/logo.png", "/blob", "/untyped", "/zip"} {
		res := fetchRun(t, tool, `{"url":"`+srv.URL+p+`","format":"raw"}`)
		if !res.IsError || !strings.Contains(res.Content, "binary") || !strings.Contains(res.Content, "text only") {
			t.Errorf("%s: %+v, want a clear binary refusal", p, res)
		}
		if strings.Contains(res.Content, "PNG") || strings.Contains(res.Content, "PK") {
			t.Errorf("%s: the body leaked into the result: %q", p, res.Content)
		}
	}
}

// TestFetchRedirects: same-host redirects are followed; one to another
// host is not (the gate approved this host), nor one off http(s), nor an
// endless chain.
func TestFetchRedirects(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		fmt.Fprint(w, "the other host")
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case "/new":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "the new page")
		case "/away":
			http.Redirect(w, r, otherURL+"/landing", http.StatusFound)
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/missing":
			http.Error(w, "no such page", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	tool := loopbackFetchTool(t.TempDir())

	if res := fetchRun(t, tool, `{"url":"`+srv.URL+`/old"}`); res.IsError || !strings.Contains(res.Content, "the new page") || !strings.Contains(res.Content, srv.URL+"/new") {
		t.Errorf("same-host redirect: %+v", res)
	}
	res := fetchRun(t, tool, `{"url":"`+srv.URL+`/away"}`)
	if !res.IsError || !strings.Contains(res.Content, "new destination") || !strings.Contains(res.Content, otherURL+"/landing") {
		t.Errorf("cross-host redirect: %+v", res)
	}
	if otherHits.Load() != 0 {
		t.Errorf("the other host was contacted %d times", otherHits.Load())
	}
	for path, want := range map[string]string{"/file": "not http or https", "/loop": "redirects", "/missing": "404"} {
		if res := fetchRun(t, tool, `{"url":"`+srv.URL+path+`"}`); !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %+v, want an error naming %q", path, res, want)
		}
	}
}

func TestFetchOnlyHTTP(t *testing.T) {
	tool := NewFetchTool(t.TempDir())
	for _, u := range []string{"file:///etc/passwd", "ftp://ftp.example.com/x", "gopher://x", "/etc/passwd", "https://", "javascript:alert(1)"} {
		in := json.RawMessage(`{"url":"` + u + `"}`)
		if _, err := tool.Describe(context.Background(), Call{Input: in}); err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
			t.Errorf("Describe(%s) = %v", u, err)
		}
		if res := fetchRun(t, tool, string(in)); !res.IsError {
			t.Errorf("Run(%s) = %+v", u, res)
		}
	}
	req, err := tool.Describe(context.Background(), Call{Input: json.RawMessage(`{"url":"https://docs.python.org/3/"}`)})
	if err != nil || req.Capability != "net.fetch" || req.ReadOnly || len(req.Destinations) != 1 || req.Destinations[0] != "https://docs.python.org/3/" {
		t.Errorf("Describe = %+v, %v: want net.fetch naming the URL, not read-only (it is asked)", req, err)
	}
}

func TestFetchCancelled(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := loopbackFetchTool("").Run(ctx, Call{Input: json.RawMessage(`{"url":"` + srv.URL + `"}`)})
	if err == nil {
		t.Fatal("a cancelled fetch returned no error")
	}
}
