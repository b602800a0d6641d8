package acp

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/app"
)

// TestAuthMethods: initialize offers each keyed provider as an env_var
// method naming its variable; authenticate succeeds when the variable is
// set, says which to set when it is not, and refuses unknown methods.
func TestAuthMethods(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"}
	a := app.New(app.Options{
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		DataDir: t.TempDir(), StateDir: t.TempDir(), ModelFlag: "replay:test",
		Getenv:      func(k string) string { return env[k] },
		NewProvider: func(string, string) (agent.Provider, error) { return script(t, `{"turns":[{"text":"hi"}]}`)(), nil },
	})
	in, out := serve(t, a)
	c := sdk.NewClientSideConnection(newFakeEditor(), in, out)
	c.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	init, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range init.AuthMethods {
		if m.EnvVar == nil || m.EnvVar.Type != "env_var" || len(m.EnvVar.Vars) != 1 {
			t.Fatalf("auth method %+v, want an env_var method with one variable", m)
		}
		got = append(got, m.EnvVar.Id+"="+m.EnvVar.Vars[0].Name)
	}
	if strings.Join(got, " ") != "openai=OPENAI_API_KEY anthropic=ANTHROPIC_API_KEY openrouter=OPENROUTER_API_KEY" {
		t.Errorf("authMethods %q", got)
	}
	if _, err := c.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "anthropic"}); err != nil {
		t.Errorf("authenticate anthropic with its key set: %v", err)
	}
	if _, err := c.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "openai"}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY is not set") {
		t.Errorf("authenticate openai without its key: %v, want the variable named", err)
	}
	if _, err := c.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "github"}); err == nil || codeOf(err) != codeInvalidParams || !strings.Contains(err.Error(), "openai, anthropic, openrouter") {
		t.Errorf("authenticate github: %v, want invalid params naming the methods", err)
	}
}
