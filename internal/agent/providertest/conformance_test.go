package providertest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/agent/anthropic/anthropictest"
	"github.com/agentls/agentls/internal/agent/model"
	"github.com/agentls/agentls/internal/agent/openai/openaitest"
	"github.com/agentls/agentls/internal/agent/providertest"
	"github.com/agentls/agentls/internal/config"
)

func TestOpenAI(t *testing.T)    { providertest.Run(t, openaiWire{}) }
func TestAnthropic(t *testing.T) { providertest.Run(t, anthropicWire{}) }

// newProvider builds spec the way agentls does, reaching baseURL with
// the key in keyEnv.
func newProvider(t *testing.T, spec, baseURL, keyEnv, key string) agent.Provider {
	t.Helper()
	name, _, _ := strings.Cut(spec, ":")
	p, err := model.New(spec, model.Options{
		Providers: map[string]config.Provider{name: {BaseURL: baseURL}},
		Getenv:    func(k string) string { return map[string]string{keyEnv: key}[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func retryAfter(r providertest.Reply) http.Header {
	if r.RetryAfter == "" {
		return nil
	}
	return http.Header{"Retry-After": {r.RetryAfter}}
}

func input(raw []byte) map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(raw, &m)
	return m
}

// ---- OpenAI chat completions ----

type openaiWire struct{}

type openaiServer struct{ *openaitest.Server }

func (openaiWire) KeyEnv() string    { return "OPENAI_API_KEY" }
func (openaiWire) FlagsErrors() bool { return false } // chat completions have no such flag

func (openaiWire) Start(answer func(providertest.Request) providertest.Reply, window int) providertest.Server {
	srv := openaitest.New(func(r openaitest.Request) openaitest.Reply {
		rep := answer(openaiRequest(r))
		if rep.Status != 0 {
			body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": rep.Message, "type": "error", "code": nil}})
			return openaitest.Reply{Status: rep.Status, ErrorBody: string(body), Header: retryAfter(rep)}
		}
		out := openaitest.Reply{Parts: rep.Parts, BeforePart: rep.BeforePart}
		for _, c := range rep.Calls {
			out.ToolCalls = append(out.ToolCalls, openaitest.Call(c.ID, c.Name, c.Input))
		}
		return out
	})
	srv.Window = window
	return openaiServer{srv}
}

func (openaiWire) Provider(t *testing.T, srv providertest.Server) agent.Provider {
	return newProvider(t, "openai:test-model", srv.(openaiServer).URL, "OPENAI_API_KEY", "sk-test")
}

func (s openaiServer) Requests() []providertest.Request {
	var out []providertest.Request
	for _, r := range s.Server.Requests() {
		out = append(out, openaiRequest(r))
	}
	return out
}

func openaiRequest(r openaitest.Request) providertest.Request {
	out := providertest.Request{Tokens: r.Tokens}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, t.Function.Name)
	}
	for _, m := range r.Messages {
		switch m.Role {
		case "system":
			out.System += m.Content
		case "tool":
			out.Messages = append(out.Messages, providertest.Message{Role: "tool", CallID: m.ToolCallID, Text: m.Content})
		default:
			msg := providertest.Message{Role: m.Role, Text: m.Content}
			for _, c := range m.ToolCalls {
				msg.Calls = append(msg.Calls, providertest.Call{ID: c.ID, Name: c.Function.Name, Input: input([]byte(c.Function.Arguments))})
			}
			out.Messages = append(out.Messages, msg)
		}
	}
	return out
}

// ---- Anthropic Messages API ----

type anthropicWire struct{}

type anthropicServer struct{ *anthropictest.Server }

const anthropicKey = "sk-ant-test"

func (anthropicWire) KeyEnv() string    { return "ANTHROPIC_API_KEY" }
func (anthropicWire) FlagsErrors() bool { return true }

// errorTypes are the API's error types by status.
var errorTypes = map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
	404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}

func (anthropicWire) Start(answer func(providertest.Request) providertest.Reply, window int) providertest.Server {
	srv := anthropictest.New(func(r anthropictest.Request) anthropictest.Reply {
		rep := answer(anthropicRequest(r))
		if rep.Status != 0 {
			return anthropictest.Reply{Status: rep.Status, ErrorType: errorTypes[rep.Status], Message: rep.Message, Header: retryAfter(rep)}
		}
		out := anthropictest.Reply{Parts: rep.Parts, BeforePart: rep.BeforePart}
		for _, c := range rep.Calls {
			out.ToolCalls = append(out.ToolCalls, anthropictest.ToolCall{ID: c.ID, Name: c.Name, Input: c.Input})
		}
		return out
	})
	srv.Window, srv.Key = window, anthropicKey
	return anthropicServer{srv}
}

func (anthropicWire) Provider(t *testing.T, srv providertest.Server) agent.Provider {
	return newProvider(t, "anthropic:claude-sonnet-4-5", srv.(anthropicServer).URL, "ANTHROPIC_API_KEY", anthropicKey)
}

func (s anthropicServer) Requests() []providertest.Request {
	var out []providertest.Request
	for _, r := range s.Server.Requests() {
		out = append(out, anthropicRequest(r))
	}
	return out
}

// anthropicRequest flattens the Messages API's blocks: each user text
// block and each tool_result is a message of its own, an assistant
// message keeps its text and tool_use blocks together.
func anthropicRequest(r anthropictest.Request) providertest.Request {
	out := providertest.Request{Tokens: r.Tokens}
	for _, b := range r.System {
		out.System += b.Text
	}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, t.Name)
	}
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			msg := providertest.Message{Role: "assistant"}
			for _, b := range m.Content {
				switch b.Type {
				case "text":
					msg.Text += b.Text
				case "tool_use":
					msg.Calls = append(msg.Calls, providertest.Call{ID: b.ID, Name: b.Name, Input: input(b.Input)})
				}
			}
			out.Messages = append(out.Messages, msg)
			continue
		}
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				out.Messages = append(out.Messages, providertest.Message{Role: "user", Text: b.Text})
			case "tool_result":
				out.Messages = append(out.Messages, providertest.Message{Role: "tool", CallID: b.ToolUseID, Text: b.ResultText(), IsError: b.IsError})
			}
		}
	}
	return out
}
