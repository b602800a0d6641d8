package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Location is a range in a file: 1-based lines, 1-based columns counted
// in Unicode code points, end exclusive.
type Location struct {
	Path      string
	Line      int
	Column    int
	EndLine   int
	EndColumn int
}

// Call is one edge of the call graph around a function.
type Call struct {
	// Symbol is the caller (incoming calls) or the callee (outgoing).
	Symbol Symbol
	// Sites are where the calls are: in Symbol's file for incoming
	// calls, in the queried function's file for outgoing ones.
	Sites []Location
}

// at converts a tool position in a synced document to the server's.
func (s *session) at(d docState, line, col int) (positionParams, error) {
	p, err := d.text.toServer(s.enc, line, col)
	if err != nil {
		return positionParams{}, fmt.Errorf("%s: %w", d.path, err)
	}
	return positionParams{TextDocument: docID{URI: d.uri}, Position: p}, nil
}

// need fails with ErrUnsupported when the server lacks a capability.
func (s *session) need(capability json.RawMessage, what string) error {
	if provided(capability) {
		return nil
	}
	return kindErrorf(ErrUnsupported, "%s does not support %s", s.name, what)
}

// Definition returns where the symbol at (line, col) of path is defined.
func (c *Client) Definition(ctx context.Context, path string, line, col int) ([]Location, error) {
	var out []Location
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		if err := s.need(s.caps.DefinitionProvider, "go-to-definition"); err != nil {
			return err
		}
		pp, err := s.at(d, line, col)
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := s.request(ctx, c.m.timeout, "textDocument/definition", pp, &raw); err != nil {
			return err
		}
		locs, err := decodeLocations(raw)
		if err != nil {
			return fmt.Errorf("%s: textDocument/definition: %w", c.name, err)
		}
		out = convertLocations(s.converter(d), locs)
		return nil
	})
	return out, err
}

// References returns the uses of the symbol at (line, col) of path, with
// its declaration when includeDecl is set, sorted by file and position.
func (c *Client) References(ctx context.Context, path string, line, col int, includeDecl bool) ([]Location, error) {
	var out []Location
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		if err := s.need(s.caps.ReferencesProvider, "find-references"); err != nil {
			return err
		}
		pp, err := s.at(d, line, col)
		if err != nil {
			return err
		}
		s.awaitIndex(ctx, "references")
		params := referenceParams{TextDocument: pp.TextDocument, Position: pp.Position}
		params.Context.IncludeDeclaration = includeDecl
		var locs []location
		if err := s.request(ctx, c.m.timeout, "textDocument/references", params, &locs); err != nil {
			return err
		}
		out = convertLocations(s.converter(d), locs)
		return nil
	})
	return out, err
}

// IncomingCalls returns the functions that call the one at (line, col).
func (c *Client) IncomingCalls(ctx context.Context, path string, line, col int) ([]Call, error) {
	return c.calls(ctx, path, line, col, "callHierarchy/incomingCalls")
}

// OutgoingCalls returns the functions that the one at (line, col) calls.
func (c *Client) OutgoingCalls(ctx context.Context, path string, line, col int) ([]Call, error) {
	return c.calls(ctx, path, line, col, "callHierarchy/outgoingCalls")
}

// calls prepares the call hierarchy at the position and asks for one
// direction of every item it yields.
func (c *Client) calls(ctx context.Context, path string, line, col int, method string) ([]Call, error) {
	var out []Call
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		if err := s.need(s.caps.CallHierarchyProvider, "call hierarchy"); err != nil {
			return err
		}
		pp, err := s.at(d, line, col)
		if err != nil {
			return err
		}
		s.awaitIndex(ctx, "call hierarchy")
		var items []callHierarchyItem
		if err := s.request(ctx, c.m.timeout, "textDocument/prepareCallHierarchy", pp, &items); err != nil {
			return err
		}
		cv := s.converter(d)
		out = nil
		for _, it := range items {
			var calls []callHierarchyCall
			if err := s.request(ctx, c.m.timeout, method, map[string]any{"item": it}, &calls); err != nil {
				return err
			}
			for _, call := range calls {
				peer, sitesURI := call.From, call.From
				if peer == nil {
					peer, sitesURI = call.To, &it
				}
				if peer == nil {
					continue
				}
				one := Call{Symbol: Symbol{
					Name:           peer.Name,
					Kind:           kindName(peer.Kind),
					Detail:         peer.Detail,
					Range:          cv.loc(peer.URI, peer.Range),
					SelectionRange: cv.loc(peer.URI, peer.SelectionRange),
				}}
				for _, r := range call.FromRanges {
					one.Sites = append(one.Sites, cv.loc(sitesURI.URI, r))
				}
				out = append(out, one)
			}
		}
		slices.SortStableFunc(out, func(a, b Call) int { return cmpLoc(a.Symbol.SelectionRange, b.Symbol.SelectionRange) })
		return nil
	})
	return out, err
}

// decodeLocations reads a definition-style result: null, a Location, or
// an array of Locations or LocationLinks (whose target selection range,
// the name, is the position given).
func decodeLocations(raw json.RawMessage) ([]location, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var items []locationOrLink
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("unexpected result: %w", err)
		}
	} else {
		var one locationOrLink
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("unexpected result: %w", err)
		}
		items = []locationOrLink{one}
	}
	out := make([]location, 0, len(items))
	for _, it := range items {
		switch {
		case it.TargetURI != "" && it.TargetSelectionRange != nil:
			out = append(out, location{URI: it.TargetURI, Range: *it.TargetSelectionRange})
		case it.TargetURI != "" && it.TargetRange != nil:
			out = append(out, location{URI: it.TargetURI, Range: *it.TargetRange})
		case it.URI != "" && it.Range != nil:
			out = append(out, location{URI: it.URI, Range: *it.Range})
		}
	}
	return out, nil
}

// convertLocations converts, sorts and de-duplicates locations.
func convertLocations(cv *converter, locs []location) []Location {
	out := make([]Location, 0, len(locs))
	for _, l := range locs {
		out = append(out, cv.loc(l.URI, l.Range))
	}
	slices.SortFunc(out, cmpLoc)
	dedup := out[:0]
	for _, l := range out {
		if len(dedup) > 0 && l == dedup[len(dedup)-1] {
			continue
		}
		dedup = append(dedup, l)
	}
	return dedup
}

// cmpLoc orders locations by file, then start position.
func cmpLoc(a, b Location) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return a.Column - b.Column
}
