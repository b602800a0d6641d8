package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent/fim"
	"github.com/agentls/agentls/internal/agent/fim/fimtest"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/config"
)

// NewFiller picks the API by provider unless told, and reaches the
// server the providers section names, with its key.
func TestNewFiller(t *testing.T) {
	fill := fimtest.New(func(fimtest.Request) fimtest.Reply { return fimtest.Reply{Parts: []string{"ok"}} })
	defer fill.Close()
	chat := openaitest.New(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Parts: []string{"ok"}} })
	defer chat.Close()
	env := map[string]string{"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a", "MY_KEY": "sk-m"}
	tests := []struct {
		name      string
		c         config.Completion
		providers map[string]config.Provider
		wantAPI   string // the fimtest API asked, or "chat"
		wantAuth  string
		err       string
	}{
		{name: "llamacpp asks /infill", c: config.Completion{Model: "llamacpp:default"},
			providers: map[string]config.Provider{"llamacpp": {BaseURL: fill.URL}}, wantAPI: "infill"},
		{name: "llamacpp with a template asks /v1/completions", c: config.Completion{Model: "llamacpp:default", Template: "{prefix}<fim>{suffix}"},
			providers: map[string]config.Provider{"llamacpp": {BaseURL: fill.URL}}, wantAPI: "completions"},
		{name: "ollama asks /v1/completions", c: config.Completion{Model: "ollama:qwen2.5-coder:1.5b"},
			providers: map[string]config.Provider{"ollama": {BaseURL: fill.URL}}, wantAPI: "completions"},
		{name: "a server of one's own, with its key", c: config.Completion{Model: "mine:coder"},
			providers: map[string]config.Provider{"mine": {BaseURL: fill.URL, APIKeyEnv: "MY_KEY"}}, wantAPI: "completions", wantAuth: "Bearer sk-m"},
		{name: "openai is a chat model by default", c: config.Completion{Model: "openai:gpt-4.1-mini"},
			providers: map[string]config.Provider{"openai": {BaseURL: chat.URL}}, wantAPI: "chat"},
		{name: "the api named wins", c: config.Completion{Model: "openai:gpt-3.5-turbo-instruct", API: "completions"},
			providers: map[string]config.Provider{"openai": {BaseURL: fill.URL}}, wantAPI: "completions", wantAuth: "Bearer sk-o"},
		{name: "anthropic has no completions endpoint", c: config.Completion{Model: "anthropic:claude-haiku-4-5", API: "completions"},
			err: "no fill-in-the-middle endpoint"},
		{name: "a replay script cannot complete", c: config.Completion{Model: "replay:s.json"}, err: "replay script"},
		{name: "unknown provider", c: config.Completion{Model: "nope:m"}, err: "completion.model: unknown provider"},
		{name: "missing key", c: config.Completion{Model: "mine:coder"},
			providers: map[string]config.Provider{"mine": {BaseURL: fill.URL, APIKeyEnv: "UNSET_KEY"}}, err: "UNSET_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, beforeChat := len(fill.Requests()), len(chat.Requests())
			f, err := model.NewFiller(tt.c, model.Options{Providers: tt.providers, Getenv: func(k string) string { return env[k] }})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := f.Fill(context.Background(), fim.Request{Prefix: "a", Suffix: "b"}); err != nil || got != "ok" {
				t.Fatalf("Fill = %q, %v", got, err)
			}
			if f.Name() != tt.c.Model {
				t.Errorf("Name = %q, want %q", f.Name(), tt.c.Model)
			}
			if tt.wantAPI == "chat" {
				if len(chat.Requests()) != beforeChat+1 {
					t.Errorf("the chat model was not asked")
				}
				return
			}
			reqs := fill.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("%d requests, want 1 more", len(reqs)-before)
			}
			if r := reqs[len(reqs)-1]; r.API != tt.wantAPI || r.Authorization != tt.wantAuth {
				t.Errorf("asked %s with Authorization %q, want %s with %q", r.API, r.Authorization, tt.wantAPI, tt.wantAuth)
			}
		})
	}
}
