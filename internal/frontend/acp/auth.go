package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent/model"
)

// authMethods are the providers' API keys as ACP authentication methods
// of type env_var: a client that starts agentls passes the key in the
// variable agentls reads (the ACP registry lists only agents that declare
// methods). Local servers (ollama, llamacpp, vllm) need none.
func authMethods() []sdk.AuthMethod {
	var out []sdk.AuthMethod
	for _, p := range model.KeyedProviders() {
		desc := fmt.Sprintf("agentls reads the key from %s when a model of %s is chosen (%s:…)", p.KeyEnv, p.Title, p.Name)
		label := p.Title + " API key"
		out = append(out, sdk.AuthMethod{EnvVar: &sdk.AuthMethodEnvVarInline{
			Type: "env_var", Id: p.Name, Name: p.Title, Description: &desc,
			Vars: []sdk.AuthEnvVar{{Name: p.KeyEnv, Label: &label}},
		}})
	}
	return out
}

// Authenticate implements ACP's authenticate: a method is a provider's
// key, which the client passes in the environment when it starts
// agentls; it succeeds when the variable is set, and otherwise says which
// one to set.
func (s *Server) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	for _, kp := range model.KeyedProviders() {
		if kp.Name != string(p.MethodId) {
			continue
		}
		if s.o.App.Getenv(kp.KeyEnv) == "" {
			return sdk.AuthenticateResponse{}, reqErr(codeInvalidParams,
				"authenticate: %s is not set in agentls's environment: pass your %s API key in it when the client starts agentls", kp.KeyEnv, kp.Title)
		}
		return sdk.AuthenticateResponse{}, nil
	}
	var ids []string
	for _, kp := range model.KeyedProviders() {
		ids = append(ids, kp.Name)
	}
	return sdk.AuthenticateResponse{}, reqErr(codeInvalidParams,
		"authenticate: %q is not one of agentls's methods (initialize's authMethods: %s)", p.MethodId, strings.Join(ids, ", "))
}
