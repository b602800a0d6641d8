package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/config/trust"
)

// The user config file's trusted_workspaces is the only place trust
// lives; `agentls trust` and the editor's "Trust this folder" both change
// it through UpdateTrust, which rewrites that one key and keeps the rest
// of the file as it was written.

// Trusted reports whether c's trusted_workspaces trusts folder, under the
// one rule of package trust.
func (c Config) Trusted(folder string) bool {
	return trust.Trusted(folder, c.TrustedWorkspaces)
}

// WriteFunc stores a file atomically (tools.WriteFileAtomic).
type WriteFunc func(path string, data []byte, perm fs.FileMode) error

// UpdateTrust changes trusted_workspaces in the user config file at path
// and returns the new list: update gets the current list and returns the
// new one (an empty list removes the key). The other keys keep their text
// and their order. A missing file is created; a file that does not parse
// is left untouched and is an error saying what to fix, so trusting a
// folder never clobbers a config being edited.
func UpdateTrust(path string, update func([]string) []string, write WriteFunc) ([]string, error) {
	data, err := os.ReadFile(path)
	perm := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte("{}")
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	cur, err := Parse(path, data)
	if err != nil {
		return nil, fmt.Errorf("%w; fix the file first, then trust the folder again", err)
	}
	next := update(slices.Clone(cur.TrustedWorkspaces))
	for _, e := range next {
		if err := trust.Validate(e); err != nil {
			return nil, err
		}
	}
	out, err := setKey(data, "trusted_workspaces", next)
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", path, err)
	}
	if _, err := Parse(path, out); err != nil {
		return nil, fmt.Errorf("update %s: the result would not parse (%w); the file was left as it was", path, err)
	}
	if err := write(path, out, perm); err != nil {
		return nil, fmt.Errorf("save the trusted folders in %s: %w", path, err)
	}
	return next, nil
}

// setKey returns the JSON object data with key set to value (removed when
// value is an empty list), every other member kept verbatim and in order.
func setKey(data []byte, key string, value []string) ([]byte, error) {
	type member struct {
		key string
		raw json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the config file is not a JSON object")
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		members = append(members, member{k, raw})
	}
	var encoded json.RawMessage
	if len(value) > 0 {
		b, err := json.MarshalIndent(value, "  ", "  ")
		if err != nil {
			return nil, err
		}
		encoded = b
	}
	set := false
	kept := members[:0]
	for _, m := range members {
		if m.key != key {
			kept = append(kept, m)
			continue
		}
		if encoded != nil && !set {
			kept = append(kept, member{key, encoded})
			set = true
		}
	}
	if encoded != nil && !set {
		kept = append(kept, member{key, encoded})
	}
	var b strings.Builder
	b.WriteString("{")
	for i, m := range kept {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(m.key)
		fmt.Fprintf(&b, "\n  %s: %s", k, bytes.TrimSpace(m.raw))
	}
	if len(kept) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return []byte(b.String()), nil
}
