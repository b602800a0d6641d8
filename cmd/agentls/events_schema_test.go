package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/tools"
)

// schemaPath is the one description of the events (docs/protocol.md);
// the VS Code extension's and the Neovim plugin's tests read it too.
const schemaPath = "../../docs/events.schema.json"

// schemaNode is the part of JSON Schema the events file uses.
type schemaNode struct {
	Type                 string                 `json:"type"`
	Enum                 []any                  `json:"enum"`
	Ref                  string                 `json:"$ref"`
	Items                *schemaNode            `json:"items"`
	Properties           map[string]*schemaNode `json:"properties"`
	Required             []string               `json:"required"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
	Defs                 map[string]*schemaNode `json:"$defs"`
}

func loadSchema(t *testing.T) *schemaNode {
	t.Helper()
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var s schemaNode
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	return &s
}

// resolve follows a "#/$defs/x" reference.
func (s *schemaNode) resolve(root *schemaNode) *schemaNode {
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
		return root.Defs[name]
	}
	return s
}

// jsonType is the JSON type a schema node allows ("" for any value); an
// enum's is its values'.
func (s *schemaNode) jsonType(root *schemaNode) string {
	s = s.resolve(root)
	if s.Type != "" {
		return s.Type
	}
	if len(s.Enum) > 0 {
		if _, ok := s.Enum[0].(string); ok {
			return "string"
		}
	}
	if s.Properties != nil {
		return "object"
	}
	return ""
}

// goJSONType is the JSON type encoding/json gives a Go type ("" for any).
func goJSONType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(json.RawMessage(nil)) {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return ""
}

// compareStruct checks that the JSON fields of t are exactly the
// properties of node, with the same types, nested objects and array items
// included; where names the place for messages.
func compareStruct(t *testing.T, root, node *schemaNode, typ reflect.Type, where string) {
	t.Helper()
	node = node.resolve(root)
	seen := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		seen[name] = true
		p, ok := node.Properties[name]
		if !ok {
			t.Errorf("%s: field %q (%s.%s) is not in %s", where, name, typ.Name(), f.Name, schemaPath)
			continue
		}
		want, got := p.jsonType(root), goJSONType(f.Type)
		if want != got {
			t.Errorf("%s.%s: Go encodes %q, the schema says %q", where, name, got, want)
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case got == "object" && ft.Kind() == reflect.Struct:
			compareStruct(t, root, p, ft, where+"."+name)
		case got == "array" && p.resolve(root).Items != nil && ft.Elem().Kind() == reflect.Struct:
			compareStruct(t, root, p.resolve(root).Items, ft.Elem(), where+"."+name+"[]")
		}
	}
	for name := range node.Properties {
		if !seen[name] {
			t.Errorf("%s: the schema has %q, which %s does not encode", where, name, typ.Name())
		}
	}
}

// TestEventSchemaMatchesGo: every field agent.Event (and the hunks, usage
// and todos in it) encodes is in docs/events.schema.json with the same
// JSON type, and the schema has no field Go does not encode.
func TestEventSchemaMatchesGo(t *testing.T) {
	root := loadSchema(t)
	compareStruct(t, root, root, reflect.TypeOf(agent.Event{}), "event")
	// The kinds are the tools' kinds.
	var kinds []string
	for _, v := range root.Properties["kind"].Enum {
		kinds = append(kinds, v.(string))
	}
	for _, k := range []tools.Kind{tools.KindRead, tools.KindEdit, tools.KindDelete, tools.KindMove, tools.KindSearch,
		tools.KindExecute, tools.KindFetch, tools.KindThink, tools.KindOther} {
		if !slices.Contains(kinds, string(k)) {
			t.Errorf("tool kind %q is not in the schema's kinds %v", k, kinds)
		}
	}
	var types []string
	for _, v := range root.Properties["type"].Enum {
		types = append(types, v.(string))
	}
	for _, e := range []agent.EventType{agent.EventTurnStart, agent.EventText, agent.EventToolCall, agent.EventToolResult,
		agent.EventPermission, agent.EventTurnEnd, agent.EventError, agent.EventTextDelta, agent.EventThinkingDelta,
		agent.EventThinking, agent.EventUsage, agent.EventCompaction, agent.EventWarning, agent.EventTodos,
		agent.EventHook, agent.EventHookWarning, agent.EventModel} {
		if !slices.Contains(types, string(e)) {
			t.Errorf("event type %q is not in the schema's types %v", e, types)
		}
	}
}

// validate checks a decoded JSON value against a schema node: types,
// enums, required properties and no unknown ones.
func validate(root, s *schemaNode, v any, where string) []string {
	s = s.resolve(root)
	var errs []string
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		return []string{fmt.Sprintf("%s: %v is not one of %v", where, v, s.Enum)}
	}
	switch want := s.jsonType(root); want {
	case "string":
		if _, ok := v.(string); !ok {
			errs = append(errs, fmt.Sprintf("%s: %v is not a string", where, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			errs = append(errs, fmt.Sprintf("%s: %v is not a boolean", where, v))
		}
	case "integer":
		if n, ok := v.(float64); !ok || n != float64(int64(n)) {
			errs = append(errs, fmt.Sprintf("%s: %v is not an integer", where, v))
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return append(errs, fmt.Sprintf("%s: %v is not an array", where, v))
		}
		for i, item := range list {
			errs = append(errs, validate(root, s.Items, item, fmt.Sprintf("%s[%d]", where, i))...)
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return append(errs, fmt.Sprintf("%s: %v is not an object", where, v))
		}
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: %q is required", where, r))
			}
		}
		for k, val := range obj {
			p, ok := s.Properties[k]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: %q is not in the schema", where, k))
				continue
			}
			errs = append(errs, validate(root, p, val, where+"."+k)...)
		}
	}
	return errs
}

// TestRunJSONEventsMatchSchema: the events of a real turn — reads, a
// todo list, a new file and an edit (hunks), a failing call, a command, a
// denied call and the usage — each validate against the schema, and
// every event of a call carries its id.
func TestRunJSONEventsMatchSchema(t *testing.T) {
	root := loadSchema(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "s.json")
	turns := `{"turns":[
		{"text":"Looking.","tool_calls":[{"name":"view","input":{"file_path":"a.txt"}},
			{"name":"todos","input":{"todos":[{"content":"Edit a.txt","status":"in_progress","active_form":"Editing a.txt"},{"content":"Check","status":"pending"}]}}]},
		{"tool_calls":[{"name":"write","input":{"file_path":"new.txt","content":"hello\n"}},
			{"name":"edit","input":{"file_path":"a.txt","old_string":"two","new_string":"TWO"}},
			{"name":"view","input":{"file_path":"missing.txt"}},
			{"name":"bash","input":{"command":"echo hi"}},
			{"name":"bash","input":{"command":"rm -rf /"}}]},
		{"text":"Done."}]}`
	if err := os.WriteFile(script, []byte(turns), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "run", "--workspace", ws, "--model", "replay:"+script, "--mode", "auto", "--json", "edit it")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	types := map[string]int{}
	callIDs := map[string]bool{}
	hunks := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		for _, e := range validate(root, root, v, "event") {
			t.Errorf("%s\n  in %s", e, line)
		}
		typ, _ := v["type"].(string)
		types[typ]++
		id, _ := v["id"].(string)
		switch typ {
		case "tool_call":
			callIDs[id] = true
			if v["kind"] == nil {
				t.Errorf("tool_call without a kind: %s", line)
			}
		case "permission", "tool_result":
			if !callIDs[id] {
				t.Errorf("%s names no earlier tool_call (id %q): %s", typ, id, line)
			}
		}
		if h, ok := v["hunks"].([]any); ok {
			hunks += len(h)
		}
	}
	for _, want := range []string{"turn_start", "text", "tool_call", "permission", "tool_result", "todos", "turn_end"} {
		if types[want] == 0 {
			t.Errorf("no %s event in the turn (types %v)", want, types)
		}
	}
	if hunks < 2 {
		t.Errorf("the write and the edit carried %d hunks, want at least 2:\n%s", hunks, out)
	}
}
