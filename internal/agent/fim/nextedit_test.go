package fim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/agent/fim/fimtest"
	"github.com/agentls/agentls/internal/agent/openai"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/agent/remote"
)

func TestParseEdit(t *testing.T) {
	tests := []struct {
		name, ans string
		want      fim.Suggestion
	}{
		{"a whole block", "<<<<<<< SEARCH\n\treturn a + b\n=======\n\treturn x + b\n>>>>>>> REPLACE\n",
			fim.Suggestion{Search: "\treturn a + b", Replace: "\treturn x + b"}},
		{"continued after the primer, the end marker stopped", "<<<<<<< SEARCH\n\treturn a + b\n=======\n\treturn x + b\n",
			fim.Suggestion{Search: "\treturn a + b", Replace: "\treturn x + b"}},
		{"words before the block", "Next:\n<<<<<<< SEARCH\nf(a)\n=======\nf(x)\n>>>>>>> REPLACE",
			fim.Suggestion{Search: "f(a)", Replace: "f(x)"}},
		{"a deletion", "<<<<<<< SEARCH\nunused()\n=======\n>>>>>>> REPLACE", fim.Suggestion{Search: "unused()", Replace: ""}},
		{"none", "NONE", fim.Suggestion{}},
		{"an empty search", "<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE", fim.Suggestion{}},
		{"no change", "<<<<<<< SEARCH\nf(a)\n=======\nf(a)\n>>>>>>> REPLACE", fim.Suggestion{}},
		{"CRLF", "<<<<<<< SEARCH\r\nf(a)\r\n=======\r\nf(x)\r\n>>>>>>> REPLACE", fim.Suggestion{Search: "f(a)", Replace: "f(x)"}},
	}
	for _, tt := range tests {
		if got := fim.ParseEdit(tt.ans); got != tt.want {
			t.Errorf("%s: ParseEdit = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

var renameEdit = fim.EditRequest{Path: "calc.go",
	Edits: []fim.Edit{{Line: 2, Old: "func Add(a, b int) int {", New: "func Add(x, b int) int {"}},
	Text:  "package calc\n\nfunc Add(x, b int) int {\n\treturn a + b\n}\n"}

// A completions model gets one plain prompt with the edits as a diff and
// the file, already opening the block, and is stopped at its end.
func TestNextEditCompletions(t *testing.T) {
	for _, api := range []string{fim.APICompletions, fim.APIInfill} {
		srv := fimtest.New(func(fimtest.Request) fimtest.Reply {
			return fimtest.Reply{Parts: []string{"\treturn a + b\n", "=======\n", "\treturn x + b\n"}}
		})
		f, err := fim.New(fim.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "coder"}, API: api})
		if err != nil {
			t.Fatal(err)
		}
		got, err := fim.NextEdit(context.Background(), f, renameEdit)
		if err != nil {
			t.Fatal(err)
		}
		if want := (fim.Suggestion{Search: "\treturn a + b", Replace: "\treturn x + b"}); got != want {
			t.Errorf("%s: NextEdit = %+v, want %+v", api, got, want)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 || reqs[0].API != "completions" || reqs[0].Suffix != nil {
			t.Fatalf("%s: requests %+v, want one plain /v1/completions prompt", api, reqs)
		}
		for _, want := range []string{"File: calc.go", "@@ line 3 @@\n-func Add(a, b int) int {\n+func Add(x, b int) int {\n", "\treturn a + b\n}\n", "<<<<<<< SEARCH\n"} {
			if !strings.Contains(reqs[0].Prompt, want) {
				t.Errorf("%s: the prompt lacks %q:\n%s", api, want, reqs[0].Prompt)
			}
		}
		if !strings.HasSuffix(reqs[0].Prompt, "<<<<<<< SEARCH\n") {
			t.Errorf("%s: the prompt does not end by opening the block", api)
		}
		srv.Close()
	}
}

// A chat model gets the instructions as the system prompt; its fenced
// answer is read.
func TestNextEditChat(t *testing.T) {
	srv := openaitest.New(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Parts: []string{"```\n<<<<<<< SEARCH\n\treturn a + b\n=======\n\treturn x + b\n>>>>>>> REPLACE\n```"}}
	})
	defer srv.Close()
	p, err := openai.New(openai.Config{Endpoint: remote.Endpoint{BaseURL: srv.URL, Model: "chat"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := fim.NextEdit(context.Background(), fim.Chat(p), renameEdit)
	if err != nil {
		t.Fatal(err)
	}
	if want := (fim.Suggestion{Search: "\treturn a + b", Replace: "\treturn x + b"}); got != want {
		t.Errorf("NextEdit = %+v, want %+v", got, want)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].Text(), "+func Add(x, b int) int {") {
		t.Errorf("the model was shown %v", reqs)
	}
}
