package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/permission"
	"github.com/agentls/agentls/internal/tools"
)

// The resource tools, offered while some running server has resources.
const (
	listResourcesName = "list_mcp_resources"
	readResourceName  = "read_mcp_resource"
	// maxListed bounds the resources (and templates) listed per server.
	maxListed = 200
)

// resourceTools are list_mcp_resources and read_mcp_resource for a set of
// servers, named in their schemas.
type resourceTools struct {
	m       *Manager
	servers []string // sorted
}

// resourceTools returns the resource tools for the servers, the same ones
// while the set does not change (the registry checks a tool once).
func (m *Manager) resourceTools(servers []string) []tools.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(servers) == 0 {
		m.res = nil
		return nil
	}
	if m.res == nil || !slices.Equal(m.res.servers, servers) {
		m.res = &resourceTools{m: m, servers: servers}
	}
	return []tools.Tool{listResources{m.res}, readResource{m.res}}
}

// serverSchema is the schema of a "server" property naming one of them.
func (r *resourceTools) serverSchema(what string) map[string]any {
	return map[string]any{"type": "string", "enum": r.servers, "description": what}
}

// server finds a named server with resources.
func (r *resourceTools) server(name string) (*server, error) {
	if !slices.Contains(r.servers, name) {
		return nil, fmt.Errorf("no MCP server %q with resources; the servers with resources are %s", name, strings.Join(r.servers, ", "))
	}
	s := r.m.server(name)
	if s == nil {
		return nil, fmt.Errorf("MCP server %q is no longer configured", name)
	}
	return s, nil
}

// resourceInput is what both tools take.
type resourceInput struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

func decodeResourceInput(call tools.Call, spec tools.Spec) (resourceInput, error) {
	var in resourceInput
	if err := tools.ValidateInput(spec.Schema, call.Input); err != nil {
		return in, fmt.Errorf("%s: input: %w; fix the arguments and call again", spec.Name, err)
	}
	err := tools.DecodeInput(call, spec.Name, &in)
	return in, err
}

// listResources is list_mcp_resources.
type listResources struct{ r *resourceTools }

// Spec implements tools.Tool.
func (t listResources) Spec() tools.Spec {
	schema, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties":           map[string]any{"server": t.r.serverSchema("the MCP server whose resources to list; leave it out to list every server's")},
	})
	return tools.Spec{
		Name: listResourcesName,
		Description: "Lists the resources (files, documents, records) that MCP servers offer, with their URIs, " +
			"and the URI templates they accept. Read one with read_mcp_resource.",
		Schema: schema, Capability: listAllCapability(), Action: permission.ActionRead, ReadOnly: true,
	}
}

// Describe implements tools.Tool.
func (t listResources) Describe(_ context.Context, call tools.Call) (permission.Request, error) {
	in, err := decodeResourceInput(call, t.Spec())
	if err != nil {
		return permission.Request{}, err
	}
	c, scope := listAllCapability(), "every MCP server"
	if in.Server != "" {
		if _, err := t.r.server(in.Server); err != nil {
			return permission.Request{}, err
		}
		c, scope = listCapability(in.Server), "the MCP server "+in.Server
	}
	return permission.Request{Tool: listResourcesName, Capability: c, Action: permission.ActionRead, ReadOnly: true, WholeTool: true,
		Summary: "agentls wants to list the resources of " + scope}, nil
}

// Run implements tools.Tool.
func (t listResources) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	in, err := decodeResourceInput(call, t.Spec())
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	names := t.r.servers
	if in.Server != "" {
		names = []string{in.Server}
	}
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "MCP server %s:\n", name)
		if err := t.list(ctx, &b, name); err != nil {
			if ctx.Err() != nil {
				return tools.Result{}, err
			}
			fmt.Fprintf(&b, "  (cannot list: %v)\n", err)
		}
	}
	return t.r.m.result("", []sdk.Content{&sdk.TextContent{Text: strings.TrimRight(b.String(), "\n")}}, nil, false), nil
}

// list writes one server's resources and templates.
func (t listResources) list(ctx context.Context, b *strings.Builder, name string) error {
	s, err := t.r.server(name)
	if err != nil {
		return err
	}
	sess, err := s.session(ctx)
	if err != nil {
		return err
	}
	n := 0
	for res, err := range sess.Resources(ctx, nil) {
		if err != nil {
			return err
		}
		if n++; n > maxListed {
			fmt.Fprintf(b, "  … more than %d resources; the rest are not listed\n", maxListed)
			break
		}
		fmt.Fprintf(b, "  - %s <%s>", res.Name, res.URI)
		if res.MIMEType != "" {
			b.WriteString(" " + res.MIMEType)
		}
		if res.Description != "" {
			b.WriteString(": " + res.Description)
		}
		b.WriteString("\n")
	}
	if n == 0 {
		b.WriteString("  (no resources listed)\n")
	}
	n = 0
	for tpl, err := range sess.ResourceTemplates(ctx, nil) {
		if err != nil {
			break // templates are optional; a server may not answer for them
		}
		if n++; n > maxListed {
			break
		}
		if n == 1 {
			b.WriteString("  URI templates (fill them in for read_mcp_resource):\n")
		}
		fmt.Fprintf(b, "  - %s <%s>", tpl.Name, tpl.URITemplate)
		if tpl.Description != "" {
			b.WriteString(": " + tpl.Description)
		}
		b.WriteString("\n")
	}
	return nil
}

// readResource is read_mcp_resource.
type readResource struct{ r *resourceTools }

// Spec implements tools.Tool.
func (t readResource) Spec() tools.Spec {
	schema, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"server", "uri"},
		"properties": map[string]any{
			"server": t.r.serverSchema("the MCP server that has the resource"),
			"uri":    map[string]any{"type": "string", "description": "the resource's URI, as list_mcp_resources or a resource link gave it"},
		},
	})
	return tools.Spec{
		Name:        readResourceName,
		Description: "Reads one resource of an MCP server by its URI (from list_mcp_resources, a URI template, or a resource link in a tool's result).",
		Schema:      schema, Capability: "mcp.read_resource", Action: permission.ActionRead, ReadOnly: true,
	}
}

// Describe implements tools.Tool.
func (t readResource) Describe(_ context.Context, call tools.Call) (permission.Request, error) {
	in, err := decodeResourceInput(call, t.Spec())
	if err != nil {
		return permission.Request{}, err
	}
	if _, err := t.r.server(in.Server); err != nil {
		return permission.Request{}, err
	}
	return permission.Request{Tool: readResourceName, Capability: readCapability(in.Server), Action: permission.ActionRead, ReadOnly: true,
		WholeTool: true, Summary: fmt.Sprintf("agentls wants to read %s from the MCP server %s", in.URI, in.Server)}, nil
}

// Run implements tools.Tool.
func (t readResource) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	in, err := decodeResourceInput(call, t.Spec())
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	s, err := t.r.server(in.Server)
	if err != nil {
		return tools.Errorf("%s: %v", readResourceName, err), nil
	}
	sess, err := s.session(ctx)
	if err == nil {
		var res *sdk.ReadResourceResult
		if res, err = sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: in.URI}); err == nil {
			content := make([]sdk.Content, 0, len(res.Contents))
			for _, c := range res.Contents {
				content = append(content, &sdk.EmbeddedResource{Resource: c})
			}
			return t.r.m.result(in.Server, content, nil, false), nil
		}
	}
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	return tools.Errorf("%s %s from %s: %v", readResourceName, in.URI, in.Server, err), nil
}
