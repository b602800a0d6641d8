package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent/fim/fimtest"
	"github.com/agentls/agentls/internal/frontend/lsp/fake"
)

// completionSettings are initializationOptions naming srv as the
// completion model.
func completionSettings(srv *fimtest.Server, extra map[string]any) map[string]any {
	c := map[string]any{"model": "fim:coder", "debounce_ms": 0}
	for k, v := range extra {
		c[k] = v
	}
	return map[string]any{"completion": c, "providers": map[string]any{"fim": map[string]any{"base_url": srv.URL}}}
}

// inlineCapability reads inlineCompletionProvider from an initialize reply.
func inlineCapability(t *testing.T, init json.RawMessage) bool {
	t.Helper()
	var r struct {
		Capabilities struct {
			InlineCompletionProvider *bool `json:"inlineCompletionProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &r); err != nil || r.Capabilities.InlineCompletionProvider == nil {
		t.Fatalf("initialize reply %s: no inlineCompletionProvider (%v)", init, err)
	}
	return *r.Capabilities.InlineCompletionProvider
}

const addGo = "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\t\n}\n"

// TestInlineCompletionGoFunction: the model gets the unsaved buffer
// around the cursor as prefix and suffix, the editor gets its answer as
// ghost text at the cursor, and typing what the ghost text shows is
// answered from the cache without asking the model again.
func TestInlineCompletionGoFunction(t *testing.T) {
	ctx := ctxT(t)
	srv := fimtest.New(func(r fimtest.Request) fimtest.Reply {
		if strings.HasSuffix(r.Prompt, "func Add(a, b int) int {\n\t") && r.Suffix != nil && strings.HasPrefix(*r.Suffix, "\n}") {
			return fimtest.Reply{Parts: []string{"return", " a", " + b", "\n"}}
		}
		return fimtest.Reply{Parts: []string{"// ?"}}
	})
	defer srv.Close()
	ed, root := setup(t, map[string]string{"calc.go": "package calc\n"}, nil, func(o *fake.Options) {
		o.InitOptions = completionSettings(srv, nil)
	})
	path := filepath.Join(root, "calc.go")
	if err := ed.Open(ctx, path, addGo); err != nil { // unsaved: the disk has only the package line
		t.Fatal(err)
	}
	got, err := ed.InlineCompletion(ctx, path, 4, 1, fake.InlineAutomatic)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].InsertText != "return a + b" {
		t.Fatalf("items = %+v, want one: return a + b", got)
	}
	if r := got.Items[0].Range; r == nil || r.Start.Line != 4 || r.Start.Character != 1 || r.End != r.Start {
		t.Errorf("range = %+v, want the empty range at 4:1", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Prompt, "// Add returns the sum") {
		t.Fatalf("the model was asked %+v, want once with the unsaved buffer", reqs)
	}
	// The person types "ret": the rest of the same answer, from the cache.
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 4, StartChar: 1, EndLine: 4, EndChar: 1, Text: "ret"}); err != nil {
		t.Fatal(err)
	}
	got, err = ed.InlineCompletion(ctx, path, 4, 4, fake.InlineAutomatic)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].InsertText != "urn a + b" {
		t.Errorf("after typing ret: items = %+v, want urn a + b", got)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want once (typed-through text comes from the cache)", n)
	}
}

// TestInlineCompletionCapability: the capability is declared only when a
// completion model is configured where initialize sees it; without one a
// request (from a client that asks anyway) gets nothing and no model is
// asked; a cloned repository's own file cannot pick where code goes.
func TestInlineCompletionCapability(t *testing.T) {
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"x"}} })
	defer srv.Close()
	settings := completionSettings(srv, nil)
	wsFile, _ := json.Marshal(settings)
	tests := []struct {
		name  string
		init  any
		files map[string]string
		want  bool
	}{
		{"editor settings", settings, nil, true},
		{"none", nil, nil, false},
		{"an untrusted workspace file's", nil, map[string]string{".agentls.json": string(wsFile)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := ctxT(t)
			root := t.TempDir()
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var init json.RawMessage
			ed := setupIn(t, root, func(o *fake.Options) { o.InitOptions = tt.init }, &init)
			if got := inlineCapability(t, init); got != tt.want {
				t.Errorf("inlineCompletionProvider = %v, want %v", got, tt.want)
			}
			path := filepath.Join(root, "a.go")
			if err := ed.Open(ctx, path, "package a\n\nfunc f() {}\n"); err != nil {
				t.Fatal(err)
			}
			before := len(srv.Requests())
			got, err := ed.InlineCompletion(ctx, path, 2, 11, fake.InlineInvoked)
			if err != nil {
				t.Fatal(err)
			}
			asked := len(srv.Requests()) > before
			if asked != tt.want || (len(got.Items) > 0) != tt.want {
				t.Errorf("items %+v, model asked %v; want both only with a completion model", got, asked)
			}
		})
	}
}

// setupIn connects a fake editor to an existing workspace folder and
// keeps the initialize reply.
func setupIn(t *testing.T, root string, mod func(*fake.Options), init *json.RawMessage) *fake.Editor {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts := fake.Options{Roots: []string{root}}
	opts.Server.Getenv = func(string) string { return "" }
	if mod != nil {
		mod(&opts)
	}
	ed := fake.Connect(ctx, opts)
	res, err := ed.Initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	*init = res
	return ed
}

// TestInlineCompletionCancelledWhileTyping: a request the editor cancels
// ($/cancelRequest) ends the model's request at once; a request made
// stale by typing is superseded by the next one for the document — it is
// answered null, never with its late text, and its model request ends —
// and the newer request gets the answer for the new text.
func TestInlineCompletionCancelledWhileTyping(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	aborted := make(chan string, 4)
	srv := fimtest.New(func(r fimtest.Request) fimtest.Reply {
		if strings.HasSuffix(r.Prompt, "\tre") {
			return fimtest.Reply{Parts: []string{"turn a + b"}}
		}
		return fimtest.Reply{Hold: hold, Parts: []string{"STALE"}} // a model still reading the prompt
	})
	srv.OnAbort = func(r fimtest.Request, _ time.Time) { aborted <- r.Prompt }
	defer srv.Close()
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"calc.go": addGo}, nil, func(o *fake.Options) {
		o.InitOptions = completionSettings(srv, nil)
	})
	path := filepath.Join(root, "calc.go")
	if err := ed.Open(ctx, path, addGo); err != nil {
		t.Fatal(err)
	}
	waitRequests := func(n int) {
		t.Helper()
		for len(srv.Requests()) < n {
			if ctx.Err() != nil {
				t.Fatalf("the model got %d requests, want %d", len(srv.Requests()), n)
			}
			time.Sleep(time.Millisecond)
		}
	}

	t.Run("$/cancelRequest", func(t *testing.T) {
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := ed.InlineCompletion(rctx, path, 4, 1, fake.InlineInvoked)
			done <- err
		}()
		waitRequests(1)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("InlineCompletion = %v", err)
		}
		select {
		case <-aborted:
		case <-ctx.Done():
			t.Fatal("the model's request never ended after $/cancelRequest")
		}
	})

	t.Run("a newer request supersedes", func(t *testing.T) {
		old := make(chan fake.Inline, 1)
		go func() {
			got, err := ed.InlineCompletion(ctx, path, 4, 1, fake.InlineAutomatic)
			if err != nil {
				t.Error(err)
			}
			old <- got
		}()
		waitRequests(2)
		if err := ed.Change(ctx, path, fake.Edit{StartLine: 4, StartChar: 1, EndLine: 4, EndChar: 1, Text: "re"}); err != nil {
			t.Fatal(err)
		}
		got, err := ed.InlineCompletion(ctx, path, 4, 3, fake.InlineAutomatic)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Items) != 1 || got.Items[0].InsertText != "turn a + b" {
			t.Errorf("the newer request got %+v, want turn a + b", got)
		}
		if o := <-old; !o.Null {
			t.Errorf("the superseded request got %+v, want null (no late ghost text)", o)
		}
		select {
		case p := <-aborted:
			if strings.HasSuffix(p, "\tre") {
				t.Errorf("the newer request's model call was aborted")
			}
		case <-ctx.Done():
			t.Fatal("the superseded request's model call never ended")
		}
	})
}

// TestInlineCompletionExcludedFiles: nothing of a secret (.env), of a
// file the ignore files hide or of one .agentlsignore names is sent —
// the model is never asked — while an ordinary file is completed.
func TestInlineCompletionExcludedFiles(t *testing.T) {
	const secret = "sk-live-0123456789"
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"x"}} })
	defer srv.Close()
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{
		".gitignore":     "local/\n",
		".agentlsignore": "internal/keys.go\n",
		"main.go":        "package main\n",
	}, nil, func(o *fake.Options) { o.InitOptions = completionSettings(srv, nil) })
	tests := []struct {
		rel  string
		want bool
	}{
		{".env", false},
		{"deploy/.env.production", false},
		{"local/settings.go", false},
		{"internal/keys.go", false},
		{"main.go", true},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			path := filepath.Join(root, filepath.FromSlash(tt.rel))
			text := "API_KEY=" + secret + "\nOTHER="
			if err := ed.Open(ctx, path, text); err != nil {
				t.Fatal(err)
			}
			before := len(srv.Requests())
			got, err := ed.InlineCompletion(ctx, path, 1, 6, fake.InlineInvoked)
			if err != nil {
				t.Fatal(err)
			}
			asked := len(srv.Requests()) > before
			if asked != tt.want || (len(got.Items) > 0) != tt.want {
				t.Errorf("items %+v, model asked %v; want %v", got, asked, tt.want)
			}
		})
	}
	if !slices.ContainsFunc(srv.Requests(), func(r fimtest.Request) bool { return strings.Contains(r.Prompt, secret) }) {
		t.Fatal("main.go was not sent: the test would pass without looking")
	}
	n := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.Prompt, secret) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the secret reached the model %d times, want once (main.go's own text only)", n)
	}
}

// TestInlineCompletionModelError: a model that fails answers the request
// with an error saying what to fix, and the person is told once, not on
// every keystroke.
func TestInlineCompletionModelError(t *testing.T) {
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply {
		return fimtest.Reply{Status: 404, ErrorBody: fimtest.OpenAIError(`model "coder" not found, try pulling it first`, "api_error")}
	})
	defer srv.Close()
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"a.go": "package a\n"}, nil, func(o *fake.Options) { o.InitOptions = completionSettings(srv, nil) })
	path := filepath.Join(root, "a.go")
	if err := ed.Open(ctx, path, "package a\n\nfunc f() {\n\t\n}\n"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, err := ed.InlineCompletion(ctx, path, 3, 1, fake.InlineInvoked)
		if err == nil || !strings.Contains(err.Error(), `model "coder" not found`) {
			t.Fatalf("request %d: err = %v, want the model's 404 explained", i, err)
		}
	}
	if err := ed.WaitFor(ctx, "the error shown", func(e *fake.Editor) bool {
		return slices.ContainsFunc(e.Shows(), func(m fake.Message) bool {
			return strings.Contains(m.Message, "inline completion from fim:coder failed")
		})
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // a second message would have arrived by now
	n := 0
	for _, m := range ed.Shows() {
		if strings.Contains(m.Message, "inline completion") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the error was shown %d times, want once", n)
	}
}

// TestWrapInlineCompletion: with `agentls serve --wrap gopls`, the one
// server declares inline completion beside gopls's capabilities and
// answers it itself: gopls has none.
func TestWrapInlineCompletion(t *testing.T) {
	requireGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"return a + b"}} })
	defer srv.Close()
	files := map[string]string{"go.mod": wrapFiles["go.mod"], "calc.go": addGo}
	e, _ := startWrapped(t, writeWorkspace(t, files), nil)
	res := e.initialize(ctx, map[string]any{"agentls": completionSettings(srv, nil)}) // wrapping, agentls's settings are under "agentls"
	caps := res["capabilities"].(map[string]any)
	if caps["inlineCompletionProvider"] != true || caps["hoverProvider"] == nil {
		t.Fatalf("capabilities: inlineCompletionProvider %v, hoverProvider %v; want agentls's and gopls's", caps["inlineCompletionProvider"], caps["hoverProvider"])
	}
	e.open(ctx, "calc.go")
	got := e.call(ctx, "textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": e.uri("calc.go")}, "position": pos(4, 1), "context": map[string]any{"triggerKind": 1}})
	if !strings.Contains(got, `"insertText":"return a + b"`) {
		t.Errorf("inlineCompletion = %s, want agentls's item", got)
	}
}

// TestInlineCompletionDebounce: two automatic requests inside the
// debounce window make one model call — for the newer text; the older is
// answered null — while an invoked request does not wait.
func TestInlineCompletionDebounce(t *testing.T) {
	const debounce = time.Second
	srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"return a + b"}} })
	defer srv.Close()
	ctx := ctxT(t)
	ed, root := setup(t, map[string]string{"calc.go": addGo}, nil, func(o *fake.Options) {
		o.InitOptions = completionSettings(srv, map[string]any{"debounce_ms": debounce.Milliseconds()})
	})
	path := filepath.Join(root, "calc.go")
	if err := ed.Open(ctx, path, addGo); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	first := make(chan fake.Inline, 1)
	go func() {
		got, err := ed.InlineCompletion(ctx, path, 4, 1, fake.InlineAutomatic)
		if err != nil {
			t.Error(err)
		}
		first <- got
	}()
	time.Sleep(100 * time.Millisecond) // the first request is waiting for typing to stop
	if err := ed.Change(ctx, path, fake.Edit{StartLine: 4, StartChar: 1, EndLine: 4, EndChar: 1, Text: "r"}); err != nil {
		t.Fatal(err)
	}
	got, err := ed.InlineCompletion(ctx, path, 4, 2, fake.InlineAutomatic)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < debounce {
		t.Errorf("the automatic request was answered after %v, before the debounce (%v)", d, debounce)
	}
	if len(got.Items) != 1 || got.Items[0].InsertText != "return a + b" {
		t.Errorf("the newer request got %+v", got)
	}
	if o := <-first; !o.Null {
		t.Errorf("the superseded request got %+v, want null", o)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.HasSuffix(reqs[0].Prompt, "\tr") {
		t.Fatalf("the model was asked %d times (%+v), want once, for the newer text", len(reqs), reqs)
	}

	if err := ed.Change(ctx, path, fake.Edit{StartLine: 4, StartChar: 2, EndLine: 4, EndChar: 2, Text: "e"}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	got, err = ed.InlineCompletion(ctx, path, 4, 3, fake.InlineInvoked)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > debounce/2 || len(got.Items) != 1 {
		t.Errorf("the invoked request got %+v after %v; want it at once, without the %v debounce", got, d, debounce)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the model was asked %d times, want twice", n)
	}
}
