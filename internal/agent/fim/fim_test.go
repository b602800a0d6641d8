package fim_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/agent/fim/fimtest"
	"github.com/agentls/agentls/internal/agent/openai"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/agent/remote"
)

const (
	prefix = "func Add(a, b int) int {\n\t"
	suffix = "\n}\n"
)

func TestFill(t *testing.T) {
	tests := []struct {
		name     string
		api      string
		template string
		key      string
		reply    fimtest.Reply
		want     string
		check    func(t *testing.T, r fimtest.Request)
	}{
		{name: "completions, streamed", api: fim.APICompletions, key: "sk-1",
			reply: fimtest.Reply{Parts: []string{"return", " a", " + b"}}, want: "return a + b",
			check: func(t *testing.T, r fimtest.Request) {
				if r.API != "completions" || r.Prompt != prefix || r.Suffix == nil || *r.Suffix != suffix || !r.Stream || r.Model != "coder" || r.MaxTokens != 40 {
					t.Errorf("request = %+v", r)
				}
				if r.Authorization != "Bearer sk-1" {
					t.Errorf("Authorization = %q", r.Authorization)
				}
			}},
		{name: "completions, a server that ignores stream", api: fim.APICompletions,
			reply: fimtest.Reply{Parts: []string{"return a + b"}, Whole: true}, want: "return a + b"},
		{name: "completions with the model's own tokens", api: fim.APICompletions, template: "<PRE>{prefix}<SUF>{suffix}<MID>",
			reply: fimtest.Reply{Parts: []string{"return a + b"}}, want: "return a + b",
			check: func(t *testing.T, r fimtest.Request) {
				if r.Prompt != "<PRE>"+prefix+"<SUF>"+suffix+"<MID>" || r.Suffix != nil {
					t.Errorf("prompt %q, suffix %v: want the template filled and no suffix field", r.Prompt, r.Suffix)
				}
			}},
		{name: "llama.cpp infill", api: fim.APIInfill,
			reply: fimtest.Reply{Parts: []string{"return ", "a + b"}}, want: "return a + b",
			check: func(t *testing.T, r fimtest.Request) {
				if r.API != "infill" || r.InputPrefix != prefix || r.InputSuffix != suffix || r.NPredict != 40 || !r.Stream {
					t.Errorf("request = %+v", r)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return tt.reply })
			defer srv.Close()
			f, err := fim.New(fim.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "coder", APIKey: tt.key}, API: tt.api, Template: tt.template})
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Fill(context.Background(), fim.Request{Prefix: prefix, Suffix: suffix, MaxTokens: 40})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Fill = %q, want %q", got, tt.want)
			}
			if reqs := srv.Requests(); len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			} else if tt.check != nil {
				tt.check(t, reqs[0])
			}
		})
	}
}

// Errors say what to fix, in the words of the agent's providers, and a
// completion is never retried.
func TestFillErrors(t *testing.T) {
	tests := []struct {
		name  string
		api   string
		reply fimtest.Reply
		want  []string
	}{
		{"bad key", fim.APICompletions, fimtest.Reply{Status: http.StatusUnauthorized, ErrorBody: fimtest.OpenAIError("Incorrect API key provided", "invalid_request_error")},
			[]string{"authentication failed (401)", "CODER_KEY", "Incorrect API key"}},
		{"unknown model", fim.APICompletions, fimtest.Reply{Status: http.StatusNotFound, ErrorBody: fimtest.OpenAIError(`model "coder" not found, try pulling it first`, "api_error")},
			[]string{`model "coder" not found`, "base URL", "try pulling it first"}},
		{"a server that takes no suffix", fim.APICompletions, fimtest.Reply{Status: http.StatusBadRequest, ErrorBody: fimtest.OpenAIError("Unsupported param: suffix", "invalid_request_error")},
			[]string{"rejected (400)", "Unsupported param: suffix"}},
		{"llama.cpp without a fill-in-the-middle model", fim.APIInfill, fimtest.Reply{Status: http.StatusNotImplemented, ErrorBody: fimtest.LlamaError(501, "Infill is not supported by this model", "not_supported_error")},
			[]string{"server error (501)", "Infill is not supported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return tt.reply })
			defer srv.Close()
			f, err := fim.New(fim.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "coder", APIKey: "k", KeyEnv: "CODER_KEY"}, API: tt.api})
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Fill(context.Background(), fim.Request{Prefix: prefix, Suffix: suffix})
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to say %q", err, w)
				}
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1 (a completion is never retried)", n)
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		srv := fimtest.New(nil)
		url := srv.URL
		srv.Close()
		f, _ := fim.New(fim.Config{Endpoint: remote.Endpoint{BaseURL: url, Model: "coder"}, API: fim.APICompletions})
		_, err := f.Fill(context.Background(), fim.Request{Prefix: prefix})
		if err == nil || !strings.Contains(err.Error(), "cannot reach "+url) {
			t.Errorf("err = %v, want it to name the base URL", err)
		}
	})
}

// Ending the context ends the model's request: the server sees its
// client go away, and Fill returns the context's error.
func TestFillCancelled(t *testing.T) {
	for _, api := range []string{fim.APICompletions, fim.APIInfill} {
		t.Run(api, func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			aborted := make(chan time.Time, 1)
			srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Hold: hold, Parts: []string{"late"}} })
			srv.OnAbort = func(_ fimtest.Request, at time.Time) { aborted <- at }
			defer srv.Close()
			f, _ := fim.New(fim.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "coder"}, API: api})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := f.Fill(ctx, fim.Request{Prefix: prefix, Suffix: suffix})
				done <- err
			}()
			for len(srv.Requests()) == 0 {
				time.Sleep(time.Millisecond)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Fill = %v, want context.Canceled", err)
			}
			select {
			case <-aborted:
			case <-time.After(5 * time.Second):
				t.Fatal("the server never saw the request end")
			}
		})
	}
}

// A chat model gets the file with a cursor marker; a fenced answer is
// unwrapped.
func TestChat(t *testing.T) {
	tests := []struct{ answer, want string }{
		{"return a + b", "return a + b"},
		{"```go\nreturn a + b\n```", "return a + b"},
		{"```\nreturn a + b\n```\n", "return a + b"},
		{"", ""},
	}
	for _, tt := range tests {
		srv := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{tt.answer}} })
		p, err := openai.New(openai.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "chat"}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := fim.Chat(p).Fill(context.Background(), fim.Request{Path: "add.go", Prefix: prefix, Suffix: suffix})
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("answer %q: Fill = %q, want %q", tt.answer, got, tt.want)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 || !strings.Contains(reqs[0].Text(), "File: add.go\n\n"+prefix+"<CURSOR>"+suffix) {
			t.Errorf("the model was shown %v", reqs)
		}
		srv.Close()
	}
}

// The language server's context reaches each API where its models read
// it: a comment block in the file's syntax before the prefix for the
// completion APIs (nothing for a language without a known comment), a
// section of its own for a chat model — never inside the suffix.
func TestFillContext(t *testing.T) {
	const sig = "calc.go: func Sum(xs []int) int"
	for _, tt := range []struct {
		api, path, want string
	}{
		{fim.APICompletions, "main.go", "// " + sig + "\n\n" + prefix},
		{fim.APIInfill, "main.go", "// " + sig + "\n\n" + prefix},
		{fim.APICompletions, "main.py", "# " + sig + "\n\n" + prefix},
		{fim.APICompletions, "notes.unknown", prefix},
	} {
		t.Run(tt.api+" "+tt.path, func(t *testing.T) {
			srv := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"x"}} })
			defer srv.Close()
			f, _ := fim.New(fim.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "coder"}, API: tt.api})
			if _, err := f.Fill(context.Background(), fim.Request{Path: tt.path, Prefix: prefix, Suffix: suffix, Context: sig + "\n"}); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			got, gotSuffix := r.Prompt, r.Suffix
			if tt.api == fim.APIInfill {
				got, gotSuffix = r.InputPrefix, &r.InputSuffix
			}
			if !strings.HasSuffix(got, tt.want) || (tt.want == prefix) != (got == prefix) {
				t.Errorf("prefix sent = %q, want it to end %q", got, tt.want)
			}
			if gotSuffix == nil || *gotSuffix != suffix {
				t.Errorf("suffix sent = %v, want the suffix alone", gotSuffix)
			}
		})
	}
	t.Run("chat", func(t *testing.T) {
		srv := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{"x"}} })
		defer srv.Close()
		p, _ := openai.New(openai.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "chat"}})
		if _, err := fim.Chat(p).Fill(context.Background(), fim.Request{Path: "main.go", Prefix: prefix, Suffix: suffix, Context: sig}); err != nil {
			t.Fatal(err)
		}
		if got := srv.Requests()[0].Text(); !strings.Contains(got, sig+"\n\nFile: main.go\n\n"+prefix+"<CURSOR>") {
			t.Errorf("the chat model was shown %q", got)
		}
	})
}
