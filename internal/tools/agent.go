package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/permission"
)

//go:embed agent.md
var agentDescription string

type agentInput struct {
	Prompt      string `json:"prompt" jsonschema:"The whole task for the subagent: what to find and what to report back."`
	Description string `json:"description,omitempty" jsonschema:"The task in 3-6 words, for the person."`
}

var agentSchema = schemaFor[agentInput]()

// AgentTool runs a subagent: a fresh conversation on the same model with
// read-only tools, whose every call passes the same gate within this
// session's scope (capability agent.subagent, allowed by default: the
// subagent's own calls are what the gate judges).
type AgentTool struct{}

// NewAgentTool returns the agent tool.
func NewAgentTool() AgentTool { return AgentTool{} }

// Spec describes agent.
func (AgentTool) Spec() Spec {
	return Spec{Name: "agent", Description: agentDescription, Schema: agentSchema().JSON,
		Capability: "agent.subagent", Action: permission.ActionRead, ReadOnly: true}
}

func (AgentTool) parse(call Call) (agentInput, error) {
	var in agentInput
	if err := agentSchema().decode(call, "agent", &in); err != nil {
		return in, err
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return in, errors.New("agent: the prompt is empty; say what the subagent should find")
	}
	return in, nil
}

// Describe validates the input.
func (t AgentTool) Describe(_ context.Context, call Call) (permission.Request, error) {
	in, err := t.parse(call)
	if err != nil {
		return permission.Request{}, err
	}
	what := in.Description
	if what == "" {
		what = truncate(in.Prompt, 80)
	}
	return permission.Request{Tool: "agent", Capability: "agent.subagent", Action: permission.ActionRead, ReadOnly: true,
		Summary: "agentls starts a subagent: " + what}, nil
}

// Run runs the subagent through the calling session.
func (t AgentTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := t.parse(call)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if call.Subagent == nil {
		return Errorf("agent: a subagent cannot start subagents; do the work with your own tools"), nil
	}
	text, err := call.Subagent(ctx, in.Prompt, in.Description)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Errorf("agent: the subagent failed: %v", err), nil
	}
	if strings.TrimSpace(text) == "" {
		text = "(the subagent gave no answer)"
	}
	return Result{Content: fmt.Sprintf("The subagent answered:\n%s", text)}, nil
}
