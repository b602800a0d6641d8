package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/permission"
)

// fakeTool is a tool with a configurable spec, for registry checks.
type fakeTool struct{ spec Spec }

func (f fakeTool) Spec() Spec { return f.spec }
func (f fakeTool) Describe(context.Context, Call) (permission.Request, error) {
	return permission.Request{}, nil
}
func (f fakeTool) Run(context.Context, Call) (Result, error) { return Result{}, nil }

func TestNewRegistryRefusesBadSpecs(t *testing.T) {
	valid := Spec{Name: "x", Description: "d", Schema: json.RawMessage(`{"type":"object"}`), Capability: "fs.read", Action: permission.ActionRead}
	with := func(f func(*Spec)) Spec { s := valid; f(&s); return s }
	tests := []struct {
		name    string
		specs   []Spec
		wantErr string // "" means accepted
	}{
		{"valid", []Spec{valid}, ""},
		{"empty capability", []Spec{with(func(s *Spec) { s.Capability = "" })}, "capability"},
		{"one-segment capability", []Spec{with(func(s *Spec) { s.Capability = "fs" })}, "capability"},
		{"upper-case capability", []Spec{with(func(s *Spec) { s.Capability = "FS.Read" })}, "capability"},
		{"capability with space", []Spec{with(func(s *Spec) { s.Capability = "fs. read" })}, "capability"},
		{"empty name", []Spec{with(func(s *Spec) { s.Name = "" })}, "empty name"},
		{"no action", []Spec{with(func(s *Spec) { s.Action = "" })}, "no action"},
		{"no description", []Spec{with(func(s *Spec) { s.Description = "" })}, "no description"},
		{"bad schema", []Spec{with(func(s *Spec) { s.Schema = json.RawMessage(`{`) })}, "schema"},
		{"schema of a wrong shape", []Spec{with(func(s *Spec) { s.Schema = json.RawMessage(`{"type":7}`) })}, "not a JSON schema"},
		{"schema that does not resolve", []Spec{with(func(s *Spec) { s.Schema = json.RawMessage(`{"$ref":"#/$defs/none"}`) })}, "does not resolve"},
		{"twice", []Spec{valid, valid}, "registered twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ts []Tool
			for _, s := range tc.specs {
				ts = append(ts, fakeTool{s})
			}
			r, err := NewRegistry(ts...)
			if tc.wantErr == "" {
				if err != nil || r == nil {
					t.Fatalf("NewRegistry = %v, %v; want accepted", r, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("NewRegistry error = %v, want one mentioning %q", err, tc.wantErr)
			}
			if r != nil {
				t.Errorf("NewRegistry returned a registry despite the error")
			}
		})
	}
}

func TestReadOnlyToolsRegister(t *testing.T) {
	ws, _ := newTestWS(t, nil)
	r, err := NewRegistry(ReadOnlyTools(ws)...)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]permission.Capability{"glob": "fs.glob", "grep": "fs.grep", "ls": "fs.list", "view": "fs.read"}
	specs := r.Specs()
	if len(specs) != len(want) {
		t.Fatalf("got %d specs, want %d", len(specs), len(want))
	}
	for _, s := range specs {
		if want[s.Name] != s.Capability {
			t.Errorf("%s: capability %q, want %q", s.Name, s.Capability, want[s.Name])
		}
		if s.Action != permission.ActionRead || !s.ReadOnly {
			t.Errorf("%s: action %q read-only %v, want read and true", s.Name, s.Action, s.ReadOnly)
		}
		if len(s.Description) < 200 {
			t.Errorf("%s: description is only %d bytes: the .md file did not embed?", s.Name, len(s.Description))
		}
	}
}

func TestTruncateKeepsUTF8(t *testing.T) {
	got := truncate("ééé", 3) // é is 2 bytes: a byte cut would split the second
	if got != "é…" {
		t.Errorf("truncate = %q, want %q", got, "é…")
	}
}
