package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Hover returns what the server shows on hover at (line, col) of path —
// for most servers the symbol's signature in a fenced code block, then
// its documentation — as Markdown; "" when it shows nothing there.
func (c *Client) Hover(ctx context.Context, path string, line, col int) (string, error) {
	var out string
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		if err := s.need(s.caps.HoverProvider, "hover"); err != nil {
			return err
		}
		pp, err := s.at(d, line, col)
		if err != nil {
			return err
		}
		var raw struct {
			Contents json.RawMessage `json:"contents"`
		}
		if err := s.request(ctx, c.m.timeout, "textDocument/hover", pp, &raw); err != nil {
			return err
		}
		if out, err = hoverText(raw.Contents); err != nil {
			return fmt.Errorf("%s: textDocument/hover: %w", c.name, err)
		}
		return nil
	})
	return out, err
}

// hoverText renders a hover's contents — MarkupContent, a MarkedString
// (a string, or a language and a value) or a list of MarkedStrings — as
// Markdown.
func hoverText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	type marked struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	one := func(r json.RawMessage) (string, error) {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s, nil
		}
		var m marked
		if err := json.Unmarshal(r, &m); err != nil {
			return "", fmt.Errorf("unexpected contents: %w", err)
		}
		if m.Kind == "" && m.Language != "" {
			return "```" + m.Language + "\n" + m.Value + "\n```", nil
		}
		return m.Value, nil
	}
	if raw[0] != '[' {
		return one(raw)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf("unexpected contents: %w", err)
	}
	parts := make([]string, 0, len(list))
	for _, r := range list {
		p, err := one(r)
		if err != nil {
			return "", err
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "\n\n"), nil
}
