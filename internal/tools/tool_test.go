package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
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

// TestSchemasMatchInputs keeps each hand-written schema in step with the
// struct its tool decodes: same property names, each with a description.
func TestSchemasMatchInputs(t *testing.T) {
	ws, _ := newTestWS(t, nil)
	inputs := map[string]any{"view": viewInput{}, "ls": lsInput{}, "glob": globInput{}, "grep": grepInput{}}
	for _, tool := range ReadOnlyTools(ws) {
		s := tool.Spec()
		t.Run(s.Name, func(t *testing.T) {
			var schema struct {
				Type       string `json:"type"`
				Properties map[string]struct {
					Type        string `json:"type"`
					Description string `json:"description"`
				} `json:"properties"`
				Required []string `json:"required"`
			}
			if err := json.Unmarshal(s.Schema, &schema); err != nil {
				t.Fatal(err)
			}
			if schema.Type != "object" {
				t.Errorf("schema type %q, want object", schema.Type)
			}
			var fields []string
			rt := reflect.TypeOf(inputs[s.Name])
			for i := range rt.NumField() {
				fields = append(fields, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
			}
			var props []string
			for name, p := range schema.Properties {
				props = append(props, name)
				if p.Description == "" || p.Type == "" {
					t.Errorf("property %s lacks a type or description", name)
				}
			}
			slices.Sort(fields)
			slices.Sort(props)
			if !slices.Equal(fields, props) {
				t.Errorf("schema properties %v, input fields %v", props, fields)
			}
			for _, r := range schema.Required {
				if !slices.Contains(fields, r) {
					t.Errorf("required %q is not an input field", r)
				}
			}
		})
	}
}

func TestTruncateKeepsUTF8(t *testing.T) {
	got := truncate("ééé", 3) // é is 2 bytes: a byte cut would split the second
	if got != "é…" {
		t.Errorf("truncate = %q, want %q", got, "é…")
	}
}
