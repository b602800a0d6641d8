package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// maxShownArgs bounds the arguments a question shows.
const maxShownArgs = 400

// serverTool is one tool of an MCP server as a tools.Tool. What the gate
// is told comes from the server's annotations, per the MCP spec's
// defaults: read-only only when readOnlyHint says so; open world unless
// openWorldHint is false; destructive (when not read-only) unless
// destructiveHint is false. The annotations are the server's word, and the
// server is one the person configured.
type serverTool struct {
	srv                              *server
	remote                           string // the tool's name on the server
	title                            string
	readOnly, openWorld, destructive bool
	spec                             tools.Spec
}

func newServerTool(s *server, t *sdk.Tool) *serverTool {
	st := &serverTool{srv: s, remote: t.Name, title: t.Title, openWorld: true}
	if a := t.Annotations; a != nil {
		st.readOnly = a.ReadOnlyHint
		st.openWorld = a.OpenWorldHint == nil || *a.OpenWorldHint
		st.destructive = a.DestructiveHint == nil || *a.DestructiveHint
		if st.title == "" {
			st.title = a.Title
		}
	} else {
		st.destructive = true
	}
	if st.readOnly {
		st.destructive = false
	}
	if st.title == "" {
		st.title = t.Name
	}
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = st.title
	}
	action := permission.ActionWrite
	if st.readOnly {
		action = permission.ActionRead
	}
	st.spec = tools.Spec{
		Name:        toolName(s.name, t.Name),
		Description: desc + "\n\n(Tool " + t.Name + " of the MCP server " + s.name + ".)",
		Schema:      inputSchema(t.InputSchema),
		Capability:  capabilityOf(s.name, t.Name),
		Action:      action,
		ReadOnly:    st.readOnly,
	}
	return st
}

// inputSchema is the server's input schema as JSON, an object schema
// even when the server sent none.
func inputSchema(v any) json.RawMessage {
	m, ok := v.(map[string]any)
	if !ok || m == nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	if _, typed := m["type"]; !typed {
		m["type"] = "object"
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return raw
}

// Spec implements tools.Tool.
func (t *serverTool) Spec() tools.Spec { return t.spec }

// Describe implements tools.Tool: the input must match the server's
// schema; the call is granted as a whole tool, never "always" when the
// server marks it destructive (or does not say it is not).
func (t *serverTool) Describe(_ context.Context, call tools.Call) (permission.Request, error) {
	if err := tools.ValidateInput(t.spec.Schema, call.Input); err != nil {
		return permission.Request{}, fmt.Errorf("%s: input: %w; fix the arguments and call again", t.spec.Name, err)
	}
	r := permission.Request{
		Tool: t.spec.Name, Capability: t.spec.Capability, Action: t.spec.Action, ReadOnly: t.readOnly,
		OpenWorld: t.openWorld, WholeTool: true,
		Summary: fmt.Sprintf("agentls wants to call %q (%s on the MCP server %s) with %s", t.title, t.remote, t.srv.name, shownArgs(call.Input)),
	}
	if t.destructive {
		r.NoAlways = "the server does not mark " + t.remote + " as non-destructive"
		r.Summary += "\nThe server says this tool may change or delete things."
	}
	return r, nil
}

// shownArgs is the call's input as compact JSON, cut for a question.
func shownArgs(in json.RawMessage) string {
	var v any
	if len(in) == 0 || json.Unmarshal(in, &v) != nil || v == nil {
		return "no arguments"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if r := []rune(s); len(r) > maxShownArgs {
		s = string(r[:maxShownArgs]) + "…"
	}
	return s
}

// Run implements tools.Tool.
func (t *serverTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	args := call.Input
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	res, err := t.srv.call(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, err
		}
		return tools.Errorf("%s: %v", t.spec.Name, err), nil
	}
	return t.srv.m.result(t.srv.name, res.Content, res.StructuredContent, res.IsError), nil
}
