package tools

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentls/agentls/internal/skills"
)

// invalidCase is an input a tool's schema must refuse, and a part of the
// message the model gets.
type invalidCase struct {
	name, input, want string
}

// schemaCase is one tool's valid inputs and invalid ones.
type schemaCase struct {
	valid   []string
	invalid []invalidCase
}

// schemaCases holds, for every tool, inputs its schema accepts and a table
// of inputs it refuses. Each table covers what the schema declares: a
// wrong type, an unknown field, each required property left out, values
// outside an enum, below a minimum, and an empty list where minItems
// applies.
func schemaCases() map[string]schemaCase {
	return map[string]schemaCase{
		"view": {
			valid: []string{`{"file_path":"a.go"}`, `{"file_path":"a.go","offset":0,"limit":1}`, `{"file_path":"a.go","offset":null}`},
			invalid: []invalidCase{
				{"missing file_path", `{"offset":3}`, `required: missing properties: ["file_path"]`},
				{"null file_path", `{"file_path":null}`, `required: missing properties: ["file_path"]`},
				{"file_path not a string", `{"file_path":7}`, `file_path: type: 7 has type "integer", want "string"`},
				{"offset fractional", `{"file_path":"a","offset":1.5}`, `offset: type: 1.5 has type "number", want "integer"`},
				{"offset below 0", `{"file_path":"a","offset":-1}`, `offset: minimum: -1 is less than 0`},
				{"limit below 1", `{"file_path":"a","limit":0}`, `limit: minimum: 0 is less than 1`},
				{"unknown field", `{"file_path":"a","path":"b"}`, `unexpected additional properties ["path"]; the known properties are file_path, limit, offset`},
			},
		},
		"ls": {
			valid: []string{`{}`, ``, `null`, `{"path":"src","ignore":["*.log"]}`},
			invalid: []invalidCase{
				{"ignore not a list", `{"ignore":"*.log"}`, `ignore: type: *.log has type "string", want "array"`},
				{"ignore item not a string", `{"ignore":[1]}`, `ignore[]: type: 1 has type "integer", want "string"`},
				{"unknown field", `{"depth":2}`, `unexpected additional properties ["depth"]`},
			},
		},
		"glob": {
			valid: []string{`{"pattern":"**/*.go"}`, `{"pattern":"*.md","path":"docs"}`},
			invalid: []invalidCase{
				{"missing pattern", `{"path":"docs"}`, `required: missing properties: ["pattern"]`},
				{"pattern not a string", `{"pattern":["*.go"]}`, `pattern: type: [*.go] has type "array", want "string"`},
				{"unknown field", `{"pattern":"*","recursive":true}`, `unexpected additional properties ["recursive"]`},
			},
		},
		"grep": {
			valid: []string{`{"pattern":"func"}`, `{"pattern":"a.b","path":".","include":"*.go","literal_text":true}`},
			invalid: []invalidCase{
				{"missing pattern", `{"include":"*.go"}`, `required: missing properties: ["pattern"]`},
				{"literal_text not a boolean", `{"pattern":"x","literal_text":"yes"}`, `literal_text: type: yes has type "string", want "boolean"`},
				{"unknown field", `{"pattern":"x","regex":true}`, `unexpected additional properties ["regex"]`},
			},
		},
		"edit": {
			valid: []string{`{"file_path":"a","old_string":"x","new_string":"y"}`, `{"file_path":"a","old_string":"","new_string":"y","replace_all":true}`},
			invalid: []invalidCase{
				{"missing new_string", `{"file_path":"a","old_string":"x"}`, `required: missing properties: ["new_string"]`},
				{"missing everything", `{}`, `required: missing properties: ["file_path" "old_string" "new_string"]`},
				{"replace_all not a boolean", `{"file_path":"a","old_string":"x","new_string":"y","replace_all":1}`, `replace_all: type: 1 has type "integer", want "boolean"`},
				{"unknown field", `{"file_path":"a","old_string":"x","new_string":"y","edits":[]}`, `unexpected additional properties ["edits"]`},
			},
		},
		"multiedit": {
			valid: []string{`{"file_path":"a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"p","new_string":"q","replace_all":true}]}`},
			invalid: []invalidCase{
				{"missing edits", `{"file_path":"a"}`, `required: missing properties: ["edits"]`},
				{"empty edits", `{"file_path":"a","edits":[]}`, `edits: minItems: array length 0 is less than 1`},
				{"edits not a list", `{"file_path":"a","edits":{"old_string":"x","new_string":"y"}}`, `edits: type: map[new_string:y old_string:x] has type "object", want "array"`},
				{"entry without new_string", `{"file_path":"a","edits":[{"old_string":"x"}]}`, `edits[]: required: missing properties: ["new_string"]`},
				{"entry field of a wrong type", `{"file_path":"a","edits":[{"old_string":1,"new_string":"y"}]}`, `edits[].old_string: type: 1 has type "integer", want "string"`},
				{"entry with an unknown field", `{"file_path":"a","edits":[{"old_string":"x","new_string":"y","file_path":"b"}]}`, `edits[]: unexpected additional properties ["file_path"]; the known properties are new_string, old_string, replace_all`},
			},
		},
		"write": {
			valid: []string{`{"file_path":"a","content":""}`},
			invalid: []invalidCase{
				{"missing content", `{"file_path":"a"}`, `required: missing properties: ["content"]`},
				{"content not a string", `{"file_path":"a","content":{"text":"x"}}`, `content: type: map[text:x] has type "object", want "string"`},
				{"unknown field", `{"file_path":"a","content":"","mode":"0644"}`, `unexpected additional properties ["mode"]`},
			},
		},
		"bash": {
			valid: []string{`{"command":"ls"}`, `{"command":"go test","description":"run tests","working_dir":".","run_in_background":false,"auto_background_after":5}`},
			invalid: []invalidCase{
				{"missing command", `{"description":"list"}`, `required: missing properties: ["command"]`},
				{"command not a string", `{"command":["ls","-l"]}`, `command: type: [ls -l] has type "array", want "string"`},
				{"auto_background_after below 1", `{"command":"ls","auto_background_after":0}`, `auto_background_after: minimum: 0 is less than 1`},
				{"auto_background_after fractional", `{"command":"ls","auto_background_after":1.5}`, `auto_background_after: type: 1.5 has type "number", want "integer"`},
				{"unknown field", `{"command":"ls","sudo":true}`, `unexpected additional properties ["sudo"]`},
				{"not an object", `[1]`, `type: [1] has type "array", want "object"`},
				{"not JSON", `nope`, `not JSON`},
			},
		},
		"job_output": {
			valid: []string{`{"shell_id":"shell-1"}`, `{"shell_id":"shell-1","wait":true}`, `{"shell_id":"shell-1","wait":10}`},
			invalid: []invalidCase{
				{"missing shell_id", `{"wait":true}`, `required: missing properties: ["shell_id"]`},
				{"wait a string", `{"shell_id":"s","wait":"10"}`, `wait: type: 10 has type "string", want one of "boolean, integer"`},
				{"wait below 0", `{"shell_id":"s","wait":-5}`, `wait: minimum: -5 is less than 0`},
				{"unknown field", `{"shell_id":"s","timeout":3}`, `unexpected additional properties ["timeout"]`},
			},
		},
		"job_kill": {
			valid: []string{`{"shell_id":"shell-1"}`},
			invalid: []invalidCase{
				{"missing shell_id", `{}`, `required: missing properties: ["shell_id"]`},
				{"shell_id a number", `{"shell_id":1}`, `shell_id: type: 1 has type "integer", want "string"`},
				{"wait is job_output's", `{"shell_id":"s","wait":true}`, `unexpected additional properties ["wait"]`},
			},
		},
		"lsp_diagnostics": {
			valid: []string{`{}`, `{"file_path":"a.go"}`},
			invalid: []invalidCase{
				{"file_path not a string", `{"file_path":true}`, `file_path: type: true has type "boolean", want "string"`},
				{"unknown field", `{"severity":"error"}`, `unexpected additional properties ["severity"]`},
			},
		},
		"lsp_references": {
			valid: []string{`{"file_path":"a.go","line":1,"column":1}`, `{"symbol":"Parse","include_declaration":false}`},
			invalid: []invalidCase{
				{"line below 1", `{"file_path":"a.go","line":0,"column":1}`, `line: minimum: 0 is less than 1`},
				{"column below 1", `{"file_path":"a.go","line":1,"column":-2}`, `column: minimum: -2 is less than 1`},
				{"include_declaration not a boolean", `{"symbol":"F","include_declaration":"no"}`, `include_declaration: type: no has type "string", want "boolean"`},
				{"unknown field", `{"symbol":"F","character":3}`, `unexpected additional properties ["character"]`},
			},
		},
		"lsp_definition": {
			valid: []string{`{"file_path":"a.go","line":3,"column":9}`, `{"symbol":"Server.Start"}`},
			invalid: []invalidCase{
				{"line a string", `{"file_path":"a.go","line":"3","column":1}`, `line: type: 3 has type "string", want "integer"`},
				{"column below 1", `{"file_path":"a.go","line":1,"column":0}`, `column: minimum: 0 is less than 1`},
				{"unknown field", `{"symbol":"F","include_declaration":true}`, `unexpected additional properties ["include_declaration"]`},
			},
		},
		"lsp_symbols": {
			valid: []string{`{"query":"Parse"}`, `{"file_path":"a.go","query":"x"}`},
			invalid: []invalidCase{
				{"query not a string", `{"query":5}`, `query: type: 5 has type "integer", want "string"`},
				{"unknown field", `{"query":"x","kind":"func"}`, `unexpected additional properties ["kind"]`},
			},
		},
		"lsp_call_hierarchy": {
			valid: []string{`{"symbol":"F"}`, `{"symbol":"F","direction":"outgoing"}`, `{"file_path":"a.go","line":2,"column":6,"direction":"incoming"}`},
			invalid: []invalidCase{
				{"direction outside the enum", `{"symbol":"F","direction":"up"}`, `direction: enum: up does not equal any of: [incoming outgoing]`},
				{"direction of a wrong case", `{"symbol":"F","direction":"Incoming"}`, `direction: enum: Incoming does not equal`},
				{"line below 1", `{"file_path":"a.go","line":0,"column":1}`, `line: minimum: 0 is less than 1`},
				{"unknown field", `{"symbol":"F","depth":2}`, `unexpected additional properties ["depth"]`},
			},
		},
		"lsp_rename": {
			valid: []string{`{"symbol":"F","new_name":"G"}`, `{"file_path":"a.go","line":1,"column":6,"new_name":"G"}`},
			invalid: []invalidCase{
				{"missing new_name", `{"symbol":"F"}`, `required: missing properties: ["new_name"]`},
				{"new_name not a string", `{"symbol":"F","new_name":1}`, `new_name: type: 1 has type "integer", want "string"`},
				{"column below 1", `{"file_path":"a.go","line":1,"column":0,"new_name":"G"}`, `column: minimum: 0 is less than 1`},
				{"unknown field", `{"symbol":"F","new_name":"G","old_name":"F"}`, `unexpected additional properties ["old_name"]`},
			},
		},
		"lsp_replace_symbol": {
			valid: []string{`{"file_path":"a.go","symbol":"F","new_text":"func F() {}"}`, `{"file_path":"a.go","symbol":"F","mode":"delete"}`},
			invalid: []invalidCase{
				{"missing symbol", `{"file_path":"a.go","new_text":"x"}`, `required: missing properties: ["symbol"]`},
				{"mode outside the enum", `{"file_path":"a.go","symbol":"F","mode":"append"}`, `mode: enum: append does not equal any of: [replace insert_before insert_after delete]`},
				{"mode not a string", `{"file_path":"a.go","symbol":"F","mode":1}`, `mode: type: 1 has type "integer", want "string"`},
				{"unknown field", `{"file_path":"a.go","symbol":"F","line":3}`, `unexpected additional properties ["line"]`},
			},
		},
		"todos": {
			valid: []string{`{"todos":[]}`, `{"todos":[{"content":"Write the fix","status":"in_progress","active_form":"Writing the fix"},{"content":"Test","status":"pending"}]}`},
			invalid: []invalidCase{
				{"missing todos", `{}`, `required: missing properties: ["todos"]`},
				{"todos not a list", `{"todos":"write the fix"}`, `todos: type: write the fix has type "string", want "array"`},
				{"item missing status", `{"todos":[{"content":"x"}]}`, `required: missing properties: ["status"]`},
				{"status outside the enum", `{"todos":[{"content":"x","status":"done"}]}`, `status: enum: done does not equal any of: [pending in_progress completed]`},
				{"unknown item field", `{"todos":[{"content":"x","status":"pending","priority":"high"}]}`, `unexpected additional properties ["priority"]`},
			},
		},
		"question": {
			valid: []string{`{"question":"Which database?"}`, `{"question":"Which?","options":["a","b"],"multi":true}`},
			invalid: []invalidCase{
				{"missing question", `{"options":["a"]}`, `required: missing properties: ["question"]`},
				{"options not a list", `{"question":"q","options":"a,b"}`, `options: type: a,b has type "string", want "array"`},
				{"multi not a boolean", `{"question":"q","multi":"yes"}`, `multi: type: yes has type "string", want "boolean"`},
				{"unknown field", `{"question":"q","default":"a"}`, `unexpected additional properties ["default"]`},
			},
		},
		"fetch": {
			valid: []string{`{"url":"https://go.dev/doc/"}`, `{"url":"http://127.0.0.1/","format":"raw","max_bytes":10}`},
			invalid: []invalidCase{
				{"missing url", `{"format":"text"}`, `required: missing properties: ["url"]`},
				{"format outside the enum", `{"url":"https://a","format":"html"}`, `format: enum: html does not equal any of: [markdown text raw]`},
				{"max_bytes below 1", `{"url":"https://a","max_bytes":0}`, `max_bytes: minimum: 0 is less than 1`},
				{"unknown field", `{"url":"https://a","headers":{}}`, `unexpected additional properties ["headers"]`},
			},
		},
		"agent": {
			valid: []string{`{"prompt":"Find where the config is read"}`, `{"prompt":"p","description":"find config"}`},
			invalid: []invalidCase{
				{"missing prompt", `{"description":"x"}`, `required: missing properties: ["prompt"]`},
				{"prompt not a string", `{"prompt":["a"]}`, `prompt: type: [a] has type "array", want "string"`},
				{"unknown field", `{"prompt":"p","tools":["bash"]}`, `unexpected additional properties ["tools"]`},
			},
		},
		"skill": {
			valid: []string{`{"name":"pdf"}`, `{"name":"pdf","file":"reference.md"}`},
			invalid: []invalidCase{
				{"missing name", `{"file":"a.md"}`, `required: missing properties: ["name"]`},
				{"name not a string", `{"name":3}`, `name: type: 3 has type "integer", want "string"`},
				{"unknown field", `{"name":"pdf","args":"x"}`, `unexpected additional properties ["args"]`},
			},
		},
		"lsp_restart": {
			valid: []string{`{}`, `{"server":"gopls"}`},
			invalid: []invalidCase{
				{"server not a string", `{"server":["gopls"]}`, `server: type: [gopls] has type "array", want "string"`},
				{"unknown field", `{"all":true}`, `unexpected additional properties ["all"]`},
			},
		},
	}
}

// allTools returns every built-in tool, the lsp_* tools included.
func allTools(t *testing.T) []Tool {
	t.Helper()
	ws, _ := newTestWS(t, nil)
	env := NewLSPEnv(ws, nil, nil)
	t.Cleanup(func() { env.Shutdown(context.Background()) })
	return append(DefaultTools(ws, NewShellEnv(ws, t.TempDir()), env), NewQuestionTool(nil, 0), NewSkillTool(ws, func() skills.Set { return skills.Set{} }))
}

// checkProviderSchema checks one (sub)schema the way a provider reads it.
// The keywords allowed are the ones the OpenAI and Anthropic
// function-calling APIs take anywhere in a tool's parameters; $schema,
// $defs, $ref and the combinators are not among them.
func checkProviderSchema(t *testing.T, where string, s map[string]any) {
	t.Helper()
	keywords := []string{"type", "properties", "required", "additionalProperties", "items", "description", "enum", "minimum", "minItems"}
	for k := range s {
		if !slices.Contains(keywords, k) {
			t.Errorf("%s: keyword %q is not one providers are known to accept", where, k)
		}
	}
	var types []any
	switch ty := s["type"].(type) {
	case string:
		types = []any{ty}
	case []any:
		types = ty
	default:
		t.Errorf("%s: type is %v, want a type name or a list of them", where, s["type"])
	}
	for _, ty := range types {
		if !slices.Contains([]any{"object", "string", "integer", "boolean", "array"}, ty) {
			t.Errorf("%s: type %v", where, ty)
		}
	}
	if slices.Contains(types, "object") {
		props, ok := s["properties"].(map[string]any)
		if !ok {
			t.Fatalf("%s: an object schema without properties", where)
		}
		if s["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties = %v, want false", where, s["additionalProperties"])
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				t.Errorf("%s: required %v is not a property", where, r)
			}
		}
		for name, p := range props {
			checkProviderSchema(t, where+"."+name, p.(map[string]any))
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		checkProviderSchema(t, where+"[]", items)
	} else if slices.Contains(types, "array") {
		t.Errorf("%s: an array schema without items", where)
	}
}

// TestToolSchemas checks every tool's generated schema: one that the
// providers accept, a valid JSON Schema, and the one that checks the
// tool's input — the valid samples pass and each invalid one is refused
// by Describe and Run alike, with a message naming what to fix.
func TestToolSchemas(t *testing.T) {
	ts := allTools(t)
	var names []string
	for _, tool := range ts {
		names = append(names, tool.Spec().Name)
	}
	all := schemaCases()
	if want := slices.Sorted(maps.Keys(all)); !slices.Equal(slices.Sorted(slices.Values(names)), want) || len(names) < 22 {
		t.Fatalf("tools %v, want the %d with cases here: %v", names, len(want), want)
	}
	ctx := context.Background()
	cases := 0
	for _, tool := range ts {
		spec := tool.Spec()
		tc := all[spec.Name]
		t.Run(spec.Name, func(t *testing.T) {
			var top map[string]any
			if err := json.Unmarshal(spec.Schema, &top); err != nil {
				t.Fatal(err)
			}
			if top["type"] != "object" {
				t.Errorf("top-level type %v, want object", top["type"])
			}
			checkProviderSchema(t, spec.Name, top)
			for name, p := range top["properties"].(map[string]any) {
				// multiedit's edits are described in multiedit.md.
				if d, _ := p.(map[string]any)["description"].(string); len(d) < 10 && spec.Name+"."+name != "multiedit.edits" {
					t.Errorf("property %s has no real description: %q", name, d)
				}
			}
			// A valid JSON Schema: it reads back into the library's form,
			// which resolves and writes out the same JSON.
			var back jsonschema.Schema
			if err := json.Unmarshal(spec.Schema, &back); err != nil {
				t.Fatal(err)
			}
			if _, err := back.Resolve(nil); err != nil {
				t.Errorf("schema does not resolve: %v", err)
			}
			if again, err := json.Marshal(&back); err != nil || !jsonEqual(again, spec.Schema) {
				t.Errorf("schema does not round-trip: %s (%v)\nwant %s", again, err, spec.Schema)
			}
			for _, in := range tc.valid {
				if err := ValidateInput(spec.Schema, json.RawMessage(in)); err != nil {
					t.Errorf("valid input %s refused: %v", in, err)
				}
				if _, err := tool.Describe(ctx, Call{Input: json.RawMessage(in)}); err != nil && strings.Contains(err.Error(), ": input: ") {
					t.Errorf("Describe refused valid input %s: %v", in, err)
				}
			}
			for _, c := range tc.invalid {
				cases++
				in := json.RawMessage(c.input)
				if err := ValidateInput(spec.Schema, in); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: ValidateInput(%s) = %v, want %q", c.name, c.input, err, c.want)
				}
				prefix, suffix := spec.Name+": input: ", "; fix the arguments and call again"
				_, err := tool.Describe(ctx, Call{Input: in})
				if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.want) || !strings.HasSuffix(err.Error(), suffix) {
					t.Errorf("%s: Describe(%s) = %v, want %q%q…%q", c.name, c.input, err, prefix, c.want, suffix)
				}
				res, err := tool.Run(ctx, Call{Input: in})
				if err != nil || !res.IsError || !strings.HasPrefix(res.Content, prefix) || !strings.Contains(res.Content, c.want) {
					t.Errorf("%s: Run(%s) = %+v, %v, want an error result %q…%q", c.name, c.input, res, err, prefix, c.want)
				}
			}
		})
	}
	if cases < 3*len(ts) {
		t.Errorf("only %d invalid inputs for %d tools", cases, len(ts))
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// The message names the field and the fix, with plain numbers.
func TestInputErrorMessage(t *testing.T) {
	_, err := NewViewTool(nil).Describe(context.Background(), Call{Input: json.RawMessage(`{"file_path":"a","offset":-1}`)})
	want := "view: input: offset: minimum: -1 is less than 0; fix the arguments and call again"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

// ValidateInput reads any tool's schema, such as a test tool's
// hand-written one, and says when it cannot.
func TestValidateInputOtherSchemas(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	tests := []struct {
		schema, in, err string
	}{
		{string(schema), `{"path":"a","extra":1}`, ""}, // additional properties allowed here
		{string(schema), `{"path":3}`, `path: type: 3 has type "integer", want "string"`},
		{string(schema), `{}`, `missing properties: ["path"]`},
		{`{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}}}`, `{"items":[1]}`, `items[]: type: 1 has type "integer", want "string"`},
		{`{`, `{}`, "not a JSON schema"},
		{`{"$ref":"#/$defs/x"}`, `{}`, "does not resolve"},
	}
	for _, tt := range tests {
		err := ValidateInput(json.RawMessage(tt.schema), json.RawMessage(tt.in))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ValidateInput(%s, %s) = %v, want %q", tt.schema, tt.in, err, tt.err)
		}
	}
}
