package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"unicode"
	"unicode/utf8"
)

// RenameTarget is what a rename at a position would rename.
type RenameTarget struct {
	// Location is the range of the name.
	Location
	// Placeholder is the name as it stands (or the server's suggestion).
	Placeholder string
}

// TextEdit replaces a range with NewText. Line, Column, EndLine and
// EndColumn are 1-based code-point positions (end exclusive); Raw keeps
// the server's own 0-based positions in WorkspaceEdit.Encoding.
type TextEdit struct {
	Line, Column, EndLine, EndColumn int
	NewText                          string
	Raw                              RawRange
}

// RawRange is a range as the server gave it: 0-based lines, columns in
// the server's position encoding.
type RawRange struct {
	StartLine, StartCharacter, EndLine, EndCharacter uint32
}

// FileOp is a file-level operation of a WorkspaceEdit.
type FileOp struct {
	// Kind is "create", "rename" or "delete".
	Kind string
	Path string
	// NewPath is the target of a rename.
	NewPath string
	// Overwrite, IgnoreIfExists, IgnoreIfNotExists and Recursive are the
	// operation's options.
	Overwrite, IgnoreIfExists, IgnoreIfNotExists, Recursive bool
}

// WorkspaceEdit is a server's edit of several files, not applied:
// agentls applies edits itself, through its own pipeline.
type WorkspaceEdit struct {
	// Changes are the text edits per file, sorted by position.
	Changes map[string][]TextEdit
	// Versions are the document versions the server named (when it
	// answered with documentChanges), as Sync numbered them; Rename has
	// checked that they are the versions the server was last sent.
	Versions map[string]int32
	// FileOps are file creations, renames and deletions, in order.
	FileOps []FileOp
	// Encoding is the unit of the Raw columns: "utf-16", "utf-8" or
	// "utf-32".
	Encoding string
}

// PrepareRename checks that the symbol at (line, col) can be renamed and
// returns its range and current name. A server without prepareRename
// support gets the identifier under the position.
func (c *Client) PrepareRename(ctx context.Context, path string, line, col int) (RenameTarget, error) {
	var out RenameTarget
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		if err := s.need(s.caps.RenameProvider, "rename"); err != nil {
			return err
		}
		pp, err := s.at(d, line, col)
		if err != nil {
			return err
		}
		var prep struct {
			PrepareProvider bool `json:"prepareProvider"`
		}
		_ = json.Unmarshal(s.caps.RenameProvider, &prep)
		if !prep.PrepareProvider {
			out, err = wordAt(d, line, col)
			return err
		}
		var raw json.RawMessage
		if err := s.request(ctx, c.m.timeout, "textDocument/prepareRename", pp, &raw); err != nil {
			return err
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			return fmt.Errorf("%s: nothing to rename at %s:%d:%d", c.name, d.path, line, col)
		}
		var res struct {
			lspRange
			Range           *lspRange `json:"range"`
			Placeholder     string    `json:"placeholder"`
			DefaultBehavior bool      `json:"defaultBehavior"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return fmt.Errorf("%s: textDocument/prepareRename: unexpected result: %w", c.name, err)
		}
		if res.DefaultBehavior {
			out, err = wordAt(d, line, col)
			return err
		}
		r := res.lspRange
		if res.Range != nil {
			r = *res.Range
		}
		out.Location = s.converter(d).loc(d.uri, r)
		out.Placeholder = res.Placeholder
		if out.Placeholder == "" {
			out.Placeholder = slice(d.text, s.enc, r)
		}
		return nil
	})
	return out, err
}

// Rename asks the server for the edits that rename the symbol at (line,
// col) to newName. Nothing is applied.
func (c *Client) Rename(ctx context.Context, path string, line, col int, newName string) (WorkspaceEdit, error) {
	var out WorkspaceEdit
	err := c.do(ctx, filepath.Clean(path), func(ctx context.Context, s *session, d docState) error {
		if err := s.need(s.caps.RenameProvider, "rename"); err != nil {
			return err
		}
		pp, err := s.at(d, line, col)
		if err != nil {
			return err
		}
		s.awaitIndex(ctx, "rename")
		var we *workspaceEdit
		params := renameParams{TextDocument: pp.TextDocument, Position: pp.Position, NewName: newName}
		if err := s.request(ctx, c.m.timeout, "textDocument/rename", params, &we); err != nil {
			return err
		}
		if we == nil {
			return fmt.Errorf("%s: nothing to rename at %s:%d:%d", c.name, d.path, line, col)
		}
		out = convertEdit(s.converter(d), s.enc, we)
		for p, v := range out.Versions {
			if cur := s.docVersion(p); cur != 0 && cur != v {
				return fmt.Errorf("%s computed the rename on version %d of %s, but it has been sent version %d since; run the rename again", c.name, v, p, cur)
			}
		}
		return nil
	})
	return out, err
}

// convertEdit converts a WorkspaceEdit's positions and flattens its two
// shapes (changes, documentChanges).
func convertEdit(cv *converter, enc encoding, we *workspaceEdit) WorkspaceEdit {
	out := WorkspaceEdit{Changes: map[string][]TextEdit{}, Versions: map[string]int32{}, Encoding: enc.String()}
	add := func(uri string, edits []textEdit) {
		path := uriPath(uri)
		for _, e := range edits {
			te := TextEdit{NewText: e.NewText, Raw: RawRange{
				StartLine: e.Range.Start.Line, StartCharacter: e.Range.Start.Character,
				EndLine: e.Range.End.Line, EndCharacter: e.Range.End.Character,
			}}
			te.Line, te.Column = cv.pos(path, e.Range.Start)
			te.EndLine, te.EndColumn = cv.pos(path, e.Range.End)
			out.Changes[path] = append(out.Changes[path], te)
		}
	}
	for uri, edits := range we.Changes {
		add(uri, edits)
	}
	for _, dc := range we.DocumentChanges {
		op := FileOp{Kind: dc.Kind}
		if dc.Options != nil {
			op.Overwrite, op.IgnoreIfExists = dc.Options.Overwrite, dc.Options.IgnoreIfExists
			op.IgnoreIfNotExists, op.Recursive = dc.Options.IgnoreIfNotExists, dc.Options.Recursive
		}
		switch dc.Kind {
		case "create", "delete":
			op.Path = uriPath(dc.URI)
			out.FileOps = append(out.FileOps, op)
		case "rename":
			op.Path, op.NewPath = uriPath(dc.OldURI), uriPath(dc.NewURI)
			out.FileOps = append(out.FileOps, op)
		default:
			if dc.TextDocument == nil {
				continue
			}
			if dc.TextDocument.Version != nil {
				out.Versions[uriPath(dc.TextDocument.URI)] = *dc.TextDocument.Version
			}
			add(dc.TextDocument.URI, dc.Edits)
		}
	}
	for _, edits := range out.Changes {
		sort.SliceStable(edits, func(i, j int) bool {
			if edits[i].Line != edits[j].Line {
				return edits[i].Line < edits[j].Line
			}
			return edits[i].Column < edits[j].Column
		})
	}
	return out
}

// wordAt is the identifier under a position, for servers that cannot
// prepare a rename.
func wordAt(d docState, line, col int) (RenameTarget, error) {
	if line < 1 || line > d.text.lineCount() {
		return RenameTarget{}, fmt.Errorf("%s: line %d is past the end of the file", d.path, line)
	}
	runes := []rune(d.text.line(line - 1))
	i := col - 1
	isWord := func(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	if i < 0 || i > len(runes) || (i == len(runes) || !isWord(runes[i])) && (i == 0 || !isWord(runes[i-1])) {
		return RenameTarget{}, fmt.Errorf("%s:%d:%d: no identifier there to rename", d.path, line, col)
	}
	start, end := i, i
	for start > 0 && isWord(runes[start-1]) {
		start--
	}
	for end < len(runes) && isWord(runes[end]) {
		end++
	}
	return RenameTarget{
		Location:    Location{Path: d.path, Line: line, Column: start + 1, EndLine: line, EndColumn: end + 1},
		Placeholder: string(runes[start:end]),
	}, nil
}

// slice is the text of a single-line range, for a placeholder.
func slice(t *text, enc encoding, r lspRange) string {
	if r.Start.Line != r.End.Line || int(r.Start.Line) >= t.lineCount() {
		return ""
	}
	_, c0 := t.fromServer(enc, r.Start)
	_, c1 := t.fromServer(enc, r.End)
	l := t.line(int(r.Start.Line))
	b0, b1 := byteOf(l, c0-1), byteOf(l, c1-1)
	if b0 > b1 {
		return ""
	}
	return l[b0:b1]
}

// byteOf is the byte offset of code point n in s (clamped).
func byteOf(s string, n int) int {
	b := 0
	for ; n > 0 && b < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[b:])
		b += size
	}
	return b
}
