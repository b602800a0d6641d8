package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/tools/shell"
)

// result turns what a server returned into what the model reads: text as
// it is, structured content as JSON (unless a text block already carries
// it), resource links with how to read them, embedded resources' text,
// and a line for each image or audio clip (the model gets text only).
// The whole is bounded like shell output, the full text saved aside. An
// isError result is a tool error.
func (m *Manager) result(server string, content []sdk.Content, structured any, isError bool) tools.Result {
	var parts []string
	for _, c := range content {
		parts = append(parts, m.contentText(server, c))
	}
	if structured != nil {
		if js, err := json.Marshal(structured); err == nil && !carries(parts, js) {
			parts = append(parts, "Structured content:\n"+string(js))
		}
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		text = "(the tool returned no content)"
	}
	shown, saved, err := shell.Truncate(text, m.opts.OutputDir)
	if saved != "" {
		shown += "\n\nThe full result is saved in " + saved + "."
	} else if err != nil {
		shown += "\n\n(The full result could not be saved: " + err.Error() + ")"
	}
	return tools.Result{Content: shown, IsError: isError}
}

// contentText is one content block as text.
func (m *Manager) contentText(server string, c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %s; not shown: agentls gives the model text only]", orUnknown(c.MIMEType), sizeOf(len(c.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %s; not played: agentls gives the model text only]", orUnknown(c.MIMEType), sizeOf(len(c.Data)))
	case *sdk.ResourceLink:
		s := "[resource link] " + c.Name
		if c.Title != "" && c.Title != c.Name {
			s += " (" + c.Title + ")"
		}
		s += " <" + c.URI + ">"
		if c.MIMEType != "" {
			s += " " + c.MIMEType
		}
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + fmt.Sprintf("\n  read it with read_mcp_resource {\"server\": %q, \"uri\": %q}", server, c.URI)
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[resource: empty]"
		}
		return resourceText(c.Resource)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("[content of type %T]", c)
	}
	return string(b)
}

// resourceText is one resource's contents as text: its text, or a line
// for binary data.
func resourceText(r *sdk.ResourceContents) string {
	head := "[resource <" + r.URI + ">"
	if r.MIMEType != "" {
		head += " " + r.MIMEType
	}
	if r.Text != "" || len(r.Blob) == 0 {
		return head + "]\n" + r.Text
	}
	return head + fmt.Sprintf(", %s of binary data; not shown]", sizeOf(len(r.Blob)))
}

// carries reports whether one of the text parts is the JSON js (servers
// often send structured content as text too).
func carries(parts []string, js []byte) bool {
	var want any
	if json.Unmarshal(js, &want) != nil {
		return false
	}
	norm, _ := json.Marshal(want) // map keys sorted, spacing gone
	for _, p := range parts {
		var got any
		if json.Unmarshal([]byte(p), &got) == nil {
			if b, _ := json.Marshal(got); bytes.Equal(b, norm) {
				return true
			}
		}
	}
	return false
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

// sizeOf is n bytes as a person reads it.
func sizeOf(n int) string {
	if n < 10*1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KiB", n/1024)
}
